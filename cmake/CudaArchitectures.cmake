# Choose CMAKE_CUDA_ARCHITECTURES before the CUDA language is enabled.
#  1. The user's choice wins: -DCMAKE_CUDA_ARCHITECTURES=86 (or 86-real, 80-virtual, "80;90", ...) or the
#     CUDAARCHS environment variable.
#  2. REDU_ARCHITECTURES=portable (the `portable` preset): every architecture the project supports, for a
#     binary that runs on any of them (below).
#  3. Otherwise build for the GPU(s) present, read from nvidia-smi (e.g. compute_cap 8.6 -> 86).
#  4. Otherwise (no GPU, as in CI) the documented default: 90, the H100 and H200 this project is measured on.
# The configure output says which was taken; every results file records it (cuda_architectures in the
# provenance, report/provenance.cpp) together with the code that ran (device_code).
#
# The portable list: SASS for each architecture a course or lab is likely to own, and PTX for the newest,
# which the driver JIT-compiles for any GPU newer still.
#   75  Turing: T4, RTX 20xx                   89  Ada: L4, L40S, RTX 40xx
#   80  Ampere: A100, A30                      90  Hopper: H100, H200, GH200
#   86  Ampere: A10, A40, RTX 30xx, RTX A6000  100 Blackwell: B200, GB200
#                                              120 Blackwell: RTX 50xx, RTX PRO 6000
# sm_75 is the oldest target CUDA 13 compiles for; sm_100 and sm_120 need CUDA 12.8 or later.
set(REDU_PORTABLE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;100-real;120"
    CACHE STRING "the portable preset's CUDA architectures: SASS for each, PTX for the newest")
set(REDU_DEFAULT_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures used when no GPU is detected")
set(REDU_ARCHITECTURES "" CACHE STRING "\"portable\": build for every supported GPU (REDU_PORTABLE_CUDA_ARCHITECTURES)")

if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  if(DEFINED CMAKE_CUDA_ARCHITECTURES AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${REDU_CUDA_ARCHITECTURES_CHOSEN}")
    set(redu_arch_why "${REDU_CUDA_ARCHITECTURES_WHY}") # this build folder's first configure chose them
  elseif(DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(redu_arch_why "given: CMAKE_CUDA_ARCHITECTURES")
  else()
    set(redu_arch_why "given: the CUDAARCHS environment variable")
  endif()
elseif(REDU_ARCHITECTURES STREQUAL "portable")
  set(CMAKE_CUDA_ARCHITECTURES "${REDU_PORTABLE_CUDA_ARCHITECTURES}" CACHE STRING "CUDA architectures")
  set(redu_arch_why "the portable list: SASS for each, PTX for the newest")
elseif(NOT REDU_ARCHITECTURES STREQUAL "")
  message(FATAL_ERROR "REDU_ARCHITECTURES=${REDU_ARCHITECTURES}: the only value is \"portable\"; for other "
                      "architectures set CMAKE_CUDA_ARCHITECTURES (e.g. -DCMAKE_CUDA_ARCHITECTURES=86)")
else()
  find_program(REDU_NVIDIA_SMI nvidia-smi)
  set(detected "")
  if(REDU_NVIDIA_SMI)
    execute_process(
      COMMAND "${REDU_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE caps
      RESULT_VARIABLE rc
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND caps MATCHES "^[0-9]+\\.[0-9]+")
      string(REPLACE "\n" ";" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(STRIP "${cap}" cap)
        string(REPLACE "." "" arch "${cap}")
        list(APPEND detected "${arch}")
      endforeach()
      list(REMOVE_DUPLICATES detected)
    endif()
  endif()
  if(detected)
    set(CMAKE_CUDA_ARCHITECTURES "${detected}" CACHE STRING "CUDA architectures")
    set(redu_arch_why "the GPU present (nvidia-smi)")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${REDU_DEFAULT_CUDA_ARCHITECTURES}" CACHE STRING "CUDA architectures")
    set(redu_arch_why "no GPU detected: the default; `cmake --preset portable` builds for every supported GPU")
  endif()
endif()
if(NOT "${redu_arch_why}" MATCHES "^given:")
  set(REDU_CUDA_ARCHITECTURES_CHOSEN "${CMAKE_CUDA_ARCHITECTURES}" CACHE INTERNAL "")
  set(REDU_CUDA_ARCHITECTURES_WHY "${redu_arch_why}" CACHE INTERNAL "")
endif()
if(DEFINED CMAKE_CUDA_ARCHITECTURES)
  message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (${redu_arch_why})")
else()
  message(STATUS "CUDA architectures: $ENV{CUDAARCHS} (${redu_arch_why})")
endif()

# After project(): the compiler must know every architecture asked for (CUDA 12.8 is the first to know
# sm_100 and sm_120), and the build records what it compiled.
function(redu_check_cuda_compiler)
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.8)
    message(FATAL_ERROR "nvcc ${CMAKE_CUDA_COMPILER_VERSION} (${CMAKE_CUDA_COMPILER}): this project needs nvcc 12.8 or "
                        "later (CUDA 12.8/12.9 or 13.x); point CMAKE_CUDA_COMPILER at a newer one")
  endif()
  message(STATUS "nvcc ${CMAKE_CUDA_COMPILER_VERSION} (${CMAKE_CUDA_COMPILER})")
endfunction()
