# Choose CMAKE_CUDA_ARCHITECTURES before the CUDA language is enabled.
#  1. The user's choice wins (-DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable).
#  2. Otherwise build for the GPU(s) present, read from nvidia-smi (e.g. compute_cap 9.0 -> 90).
#  3. Otherwise (no GPU, as in CI) the documented default: 90, the H100 this project is measured on.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

set(REDU_DEFAULT_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures used when no GPU is detected")

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
  message(STATUS "CUDA architectures from the GPU present: ${detected}")
  set(CMAKE_CUDA_ARCHITECTURES "${detected}" CACHE STRING "CUDA architectures")
else()
  message(STATUS "No GPU detected: CUDA architectures default to ${REDU_DEFAULT_CUDA_ARCHITECTURES}")
  set(CMAKE_CUDA_ARCHITECTURES "${REDU_DEFAULT_CUDA_ARCHITECTURES}" CACHE STRING "CUDA architectures")
endif()
