# Google Benchmark: the pinned release, built here in Release, in preference to the system's library.
#
# Why not simply the system's: Debian's libbenchmark-dev (and other distribution builds) compile the
# library without NDEBUG, so every run prints "***WARNING*** Library was built as DEBUG" and every
# results file records library_build_type: debug. No time changes (the harness hands CUDA-event times
# to the library as manual time), but a results file should not carry a warning its reader must explain
# away, and one pinned version makes the results of different machines alike.
#
# Where the release comes from, first that works:
#   1. -DFETCHCONTENT_SOURCE_DIR_GOOGLEBENCHMARK=<its source>  (CMake's own override: offline machines)
#   2. the release archive, downloaded once into the build tree and checked against its hash, unless
#      REDU_DOWNLOAD_BENCHMARK is OFF (the CI preset: a machine without a GPU runs no benchmark)
#   3. otherwise the system's library, with a warning that names its build type's cost and the fix
set(redu_benchmark_version 1.8.3)
set(redu_benchmark_url https://github.com/google/benchmark/archive/refs/tags/v${redu_benchmark_version}.tar.gz)
set(redu_benchmark_sha256 6bc180a57d23d4d9515519f92b0c83d61b05b5bab188961f36ac7b06b0d9e9ce)

set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
set(BENCHMARK_ENABLE_WERROR OFF CACHE BOOL "" FORCE) # a newer compiler's new warning must not break our build

option(REDU_DOWNLOAD_BENCHMARK "download Google Benchmark's pinned release when its source is not given" ON)
set(redu_download_error "REDU_DOWNLOAD_BENCHMARK is OFF")
set(redu_benchmark_archive "${CMAKE_BINARY_DIR}/_deps/benchmark-v${redu_benchmark_version}.tar.gz")
if(REDU_DOWNLOAD_BENCHMARK AND NOT FETCHCONTENT_SOURCE_DIR_GOOGLEBENCHMARK AND NOT EXISTS "${redu_benchmark_archive}")
  # No EXPECTED_HASH here: with it a failed download is a fatal error, and failing is allowed.
  file(DOWNLOAD "${redu_benchmark_url}" "${redu_benchmark_archive}.part" STATUS redu_download TIMEOUT 30)
  list(GET redu_download 0 redu_download_code)
  list(GET redu_download 1 redu_download_error)
  if(redu_download_code EQUAL 0)
    file(SHA256 "${redu_benchmark_archive}.part" redu_download_sha256)
    if(redu_download_sha256 STREQUAL redu_benchmark_sha256)
      file(RENAME "${redu_benchmark_archive}.part" "${redu_benchmark_archive}")
    else()
      set(redu_download_error "SHA-256 ${redu_download_sha256}, expected ${redu_benchmark_sha256}")
    endif()
  endif()
  file(REMOVE "${redu_benchmark_archive}.part")
endif()

if(FETCHCONTENT_SOURCE_DIR_GOOGLEBENCHMARK OR EXISTS "${redu_benchmark_archive}")
  message(STATUS "Google Benchmark: v${redu_benchmark_version}, built here (Release)")
  FetchContent_Declare(googlebenchmark URL "${redu_benchmark_archive}" URL_HASH SHA256=${redu_benchmark_sha256})
  # The library's own build type, whatever this project's: its timing loop is what runs between samples.
  set(redu_saved_build_type "${CMAKE_BUILD_TYPE}")
  set(CMAKE_BUILD_TYPE Release)
  FetchContent_MakeAvailable(googlebenchmark)
  set(CMAKE_BUILD_TYPE "${redu_saved_build_type}")
  return()
endif()

find_package(benchmark CONFIG QUIET)
if(NOT TARGET benchmark::benchmark)
  message(FATAL_ERROR "Google Benchmark: none installed, and v${redu_benchmark_version} could not be downloaded "
                      "(${redu_download_error}). Install one (Debian: libbenchmark-dev), or pass "
                      "-DFETCHCONTENT_SOURCE_DIR_GOOGLEBENCHMARK=<the v${redu_benchmark_version} source>.")
endif()
if(REDU_DOWNLOAD_BENCHMARK)
  set(redu_benchmark_message_kind WARNING)
else()
  set(redu_benchmark_message_kind STATUS)
endif()
message(${redu_benchmark_message_kind} "Google Benchmark: the system's library (${benchmark_DIR}), as v${redu_benchmark_version} "
                "was not downloaded (${redu_download_error}). If that library was built without NDEBUG "
                "(Debian's is), every benchmark run prints 'Library was built as DEBUG' and its results say "
                "library_build_type: debug; the times are unaffected. Offline, pass "
                "-DFETCHCONTENT_SOURCE_DIR_GOOGLEBENCHMARK=<the v${redu_benchmark_version} source> for the release.")
