# Third-party packages. CCCL (CUB, Thrust, libcu++): the newest found (cmake/Cccl.cmake); GoogleTest
# and Google Benchmark come from the system when present (find_package) and are fetched at a pinned
# release otherwise.
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

find_package(benchmark CONFIG QUIET)
if(NOT TARGET benchmark::benchmark)
  message(STATUS "Google Benchmark not found: fetching v1.8.3")
  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(googlebenchmark
    URL https://github.com/google/benchmark/archive/refs/tags/v1.8.3.tar.gz
    URL_HASH SHA256=6bc180a57d23d4d9515519f92b0c83d61b05b5bab188961f36ac7b06b0d9e9ce)
  FetchContent_MakeAvailable(googlebenchmark)
endif()
