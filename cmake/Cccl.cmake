# CCCL (CUB, Thrust, libcu++): the newest that can be found, so the library baselines are the newest
# library. In order of preference:
#   1. -DREDU_CCCL_ROOT=<folder whose include/cccl holds cub/, thrust/ and cuda/>: an unpacked
#      nvidia-cuda-cccl wheel's nvidia/cu13, or a toolkit's targets/<arch> to pin the toolkit's own;
#   2. the nvidia-cuda-cccl wheel installed for the active python3 (pip install nvidia-cuda-cccl);
#   3. the CUDA Toolkit's CCCL.
# A chosen folder's headers go ahead of the toolkit's on every target that links redu_cccl (the wheel's
# CMake package files do not match its own layout, so they are not used). One configure line says which
# CCCL was taken and its version; every results file records CUB_VERSION as compiled.
set(REDU_CCCL_ROOT "" CACHE PATH "folder whose include/cccl holds the CCCL headers to build against")

function(redu_cccl_version include_dir out)
  file(STRINGS "${include_dir}/cuda/std/__cccl/version.h" line REGEX "^#define CCCL_VERSION [0-9]+")
  string(REGEX REPLACE "^#define CCCL_VERSION ([0-9]+).*" "\\1" number "${line}")
  math(EXPR major "${number} / 1000000")
  math(EXPR minor "(${number} / 1000) % 1000")
  math(EXPR patch "${number} % 1000")
  set(${out} "${major}.${minor}.${patch}" PARENT_SCOPE)
endfunction()

set(redu_cccl_include "")
set(redu_cccl_origin "")
if(REDU_CCCL_ROOT)
  set(redu_cccl_include "${REDU_CCCL_ROOT}/include/cccl")
  set(redu_cccl_origin "REDU_CCCL_ROOT")
else()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" -c
        "import importlib.metadata as m, pathlib; print(pathlib.Path(m.distribution('nvidia-cuda-cccl').locate_file('nvidia/cu13/include/cccl')).resolve())"
      OUTPUT_VARIABLE wheel_include OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE no_wheel)
    if(no_wheel EQUAL 0 AND EXISTS "${wheel_include}/cub/version.cuh")
      set(redu_cccl_include "${wheel_include}")
      set(redu_cccl_origin "the nvidia-cuda-cccl wheel of ${Python3_EXECUTABLE}")
    endif()
  endif()
endif()

add_library(redu_cccl INTERFACE)
target_link_libraries(redu_cccl INTERFACE CCCL::CCCL)
if(redu_cccl_include)
  if(NOT EXISTS "${redu_cccl_include}/cub/version.cuh")
    message(FATAL_ERROR "REDU_CCCL_ROOT=${REDU_CCCL_ROOT}: no CCCL headers in ${redu_cccl_include}")
  endif()
  # A plain -I, not -isystem: nvcc itself passes -I<toolkit>/include, which holds the toolkit's older
  # nv/target, and every -I directory is searched before any -isystem one.
  target_include_directories(redu_cccl BEFORE INTERFACE "${redu_cccl_include}")
else()
  # The toolkit's include directories (one or two, by installation) hold CCCL directly or in cccl/.
  foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    foreach(candidate "${dir}" "${dir}/cccl")
      if(NOT redu_cccl_include AND EXISTS "${candidate}/cuda/std/__cccl/version.h")
        set(redu_cccl_include "${candidate}")
      endif()
    endforeach()
  endforeach()
  set(redu_cccl_origin "the CUDA Toolkit")
endif()
redu_cccl_version("${redu_cccl_include}" REDU_CCCL_VERSION)
message(STATUS "CCCL ${REDU_CCCL_VERSION} from ${redu_cccl_origin} (${redu_cccl_include})")
