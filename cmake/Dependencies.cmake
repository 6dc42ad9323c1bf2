# Third-party packages. CCCL (CUB, Thrust, libcu++): the newest found (cmake/Cccl.cmake); GoogleTest
# from the system when present (find_package), fetched at a pinned release otherwise; Google Benchmark
# at its pinned release, built here, where that can be had (cmake/GoogleBenchmark.cmake says why).
include(FetchContent)

find_package(CUDAToolkit REQUIRED)
find_package(CCCL CONFIG REQUIRED HINTS "${CUDAToolkit_LIBRARY_DIR}/cmake")
include(cmake/Cccl.cmake)

find_package(GTest CONFIG QUIET)
if(NOT TARGET GTest::gtest)
  message(STATUS "GoogleTest not found: fetching v1.14.0")
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(googletest
    URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz
    URL_HASH SHA256=8ad598c73ad796e0d8280b082cebd82a630d73e73cd3c70057938a6501bba5d7)
  FetchContent_MakeAvailable(googletest)
endif()

include(cmake/GoogleBenchmark.cmake)
