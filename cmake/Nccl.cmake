# NCCL for the multi-GPU code (multigpu/). Optional: when it is not found, the multi-GPU targets are left
# out with one STATUS line and everything else builds as before. Where it is looked for, in order:
#   1. -DREDU_NCCL_ROOT=<folder with include/nccl.h and lib/libnccl.so*>, or the NCCL_ROOT / NCCL_HOME
#      environment variables: that folder only (a root that holds no NCCL is an error, not a fallback);
#   2. the active python3's `nvidia.nccl` package: the nvidia-nccl-cu13 (or -cu12) wheel, which is also
#      how PyTorch ships NCCL (site-packages/nvidia/nccl/{include,lib}); its lib/ holds libnccl.so.2 and
#      no unversioned libnccl.so, so the .so.2 is linked by full path;
#   3. a system install (/usr, /usr/local, the CUDA Toolkit's folders).
# Between 2 and 3 the newer version wins (a tie goes to the wheel). The configure step prints which.
# Result: the INTERFACE target redu_nccl (headers ahead of the toolkit's, the library by full path, its
# folder in the build RPATH) and REDU_NCCL_FOUND / REDU_NCCL_VERSION.
set(REDU_NCCL_ROOT "" CACHE PATH "folder with include/nccl.h and lib/libnccl.so* (NCCL for multigpu/)")
option(REDU_MULTIGPU "build the multi-GPU code (multigpu/) when NCCL is found" ON)

set(REDU_NCCL_FOUND FALSE)
set(REDU_NCCL_VERSION "")

function(redu_nccl_version header out)
  file(STRINGS "${header}" lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  set(version "")
  foreach(part MAJOR MINOR PATCH)
    foreach(line IN LISTS lines)
      if(line MATCHES "^#define NCCL_${part} +([0-9]+)")
        list(APPEND version "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endforeach()
  list(JOIN version "." version)
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

# A folder pair holding nccl.h and libnccl.so(.2): sets <prefix>_include, <prefix>_library (empty if not).
function(redu_nccl_in_root root prefix)
  set(include "")
  set(library "")
  if(EXISTS "${root}/include/nccl.h")
    set(include "${root}/include")
    foreach(dir lib lib64 lib/x86_64-linux-gnu)
      foreach(name libnccl.so libnccl.so.2)
        if(NOT library AND EXISTS "${root}/${dir}/${name}")
          set(library "${root}/${dir}/${name}")
        endif()
      endforeach()
    endforeach()
  endif()
  set(${prefix}_include "${include}" PARENT_SCOPE)
  set(${prefix}_library "${library}" PARENT_SCOPE)
endfunction()

set(nccl_include "")
set(nccl_library "")
set(nccl_origin "")
if(NOT REDU_MULTIGPU)
  message(STATUS "multigpu: skipped (REDU_MULTIGPU=OFF)")
  return()
endif()

set(nccl_root "${REDU_NCCL_ROOT}")
if(NOT nccl_root AND DEFINED ENV{NCCL_ROOT})
  set(nccl_root "$ENV{NCCL_ROOT}")
elseif(NOT nccl_root AND DEFINED ENV{NCCL_HOME})
  set(nccl_root "$ENV{NCCL_HOME}")
endif()

if(nccl_root)
  redu_nccl_in_root("${nccl_root}" root)
  if(NOT root_include OR NOT root_library)
    message(FATAL_ERROR "NCCL root ${nccl_root} (REDU_NCCL_ROOT, NCCL_ROOT or NCCL_HOME): no include/nccl.h "
                        "with lib/libnccl.so or lib/libnccl.so.2 there")
  endif()
  set(nccl_include "${root_include}")
  set(nccl_library "${root_library}")
  set(nccl_origin "${nccl_root}")
else()
  # 2. The python3 package (a wheel of its own, or the one PyTorch depends on).
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" -c
        "import nvidia.nccl as m, pathlib; print(pathlib.Path(list(m.__path__)[0]).resolve())"
      OUTPUT_VARIABLE wheel_root OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE no_wheel)
    if(no_wheel EQUAL 0)
      redu_nccl_in_root("${wheel_root}" wheel)
      if(wheel_include AND wheel_library)
        redu_nccl_version("${wheel_include}/nccl.h" wheel_version)
        set(nccl_include "${wheel_include}")
        set(nccl_library "${wheel_library}")
        set(nccl_origin "the nvidia.nccl package of ${Python3_EXECUTABLE}")
      endif()
    endif()
  endif()
  # 3. A system install: taken when there is no wheel or when it is newer.
  find_path(REDU_NCCL_SYSTEM_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} PATHS /usr/local/include /usr/include)
  find_library(REDU_NCCL_SYSTEM_LIBRARY NAMES nccl libnccl.so.2
    HINTS ${CUDAToolkit_LIBRARY_DIR} "${CUDAToolkit_LIBRARY_ROOT}/lib" "${CUDAToolkit_LIBRARY_ROOT}/lib64")
  if(REDU_NCCL_SYSTEM_INCLUDE AND REDU_NCCL_SYSTEM_LIBRARY)
    redu_nccl_version("${REDU_NCCL_SYSTEM_INCLUDE}/nccl.h" system_version)
    if(NOT nccl_include OR system_version VERSION_GREATER wheel_version)
      set(nccl_include "${REDU_NCCL_SYSTEM_INCLUDE}")
      set(nccl_library "${REDU_NCCL_SYSTEM_LIBRARY}")
      set(nccl_origin "a system install")
    endif()
  endif()
endif()

if(NOT nccl_include)
  message(STATUS "multigpu: NCCL not found (no REDU_NCCL_ROOT, no nvidia.nccl package for python3, no system "
                 "nccl.h): the multi-GPU targets are skipped; `pip install -r cmake/nccl-requirements.txt` "
                 "or -DREDU_NCCL_ROOT=<dir> adds them")
  return()
endif()

redu_nccl_version("${nccl_include}/nccl.h" REDU_NCCL_VERSION)
add_library(redu_nccl INTERFACE)
# A plain -I ahead of the others, not -isystem: the CUDA Toolkit's include folder may hold an nccl.h of
# its own (this container's does), and the header must match the library linked.
target_include_directories(redu_nccl BEFORE INTERFACE "${nccl_include}")
# By full path: the wheel has libnccl.so.2 only. The folder goes into the build RPATH, so the programs
# load this library and not another one that ldconfig knows.
get_filename_component(nccl_library_dir "${nccl_library}" DIRECTORY)
target_link_libraries(redu_nccl INTERFACE "${nccl_library}")
target_link_options(redu_nccl INTERFACE "LINKER:-rpath,${nccl_library_dir}")
target_compile_definitions(redu_nccl INTERFACE REDU_NCCL_ORIGIN="${nccl_origin}")
set(REDU_NCCL_FOUND TRUE)
message(STATUS "multigpu: NCCL ${REDU_NCCL_VERSION} from ${nccl_origin} (${nccl_library})")
