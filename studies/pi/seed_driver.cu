// The seed's program (001, "Reduction on CUDA"): calcRectangles, then calcReductionGeneral, its recursive
// driver that reduces every 32 values with one <<<1, 32>>> launch and finishes on the host below 32 values.
// Reproduced as a pitfall to measure, not as a way to reduce: each launch pays two cudaMalloc, two copies, a
// synchronisation and two cudaFree (which synchronise too), so the time is the driver's, whatever the kernel.
// The seed also timed each launch with host clock() around the asynchronous launch call only, which is why
// its reduce0, reduce1 and reduce2 "took the same time" (0.457, 0.460, 0.459 s for 4M rectangles): the
// figure is launch-call overhead, while Harris measured a 2.33x and a 2.01x step between these kernels.
// The kernels are Harris's reduce0/1/2 of handwritten/harris/, launched with the seed's configuration.
#include "handwritten/harris/00_interleaved_divergent.cuh"
#include "handwritten/harris/01_interleaved_strided_index.cuh"
#include "handwritten/harris/02_sequential_addressing.cuh"
#include "studies/pi/pi.hpp"

#include <algorithm>
#include <array>
#include <ctime>
#include <string>
#include <vector>

namespace redu::pi
{
namespace
{

// "for each reduction I can only use 32 threads": one block of 32 threads reduces 32 values.
constexpr int seed_width = 32;
using Chunk              = std::array<float, seed_width>;

harris::PassKernel<float, SumOp> seed_kernel(SeedKernel kernel)
{
  switch (kernel)
  {
  case SeedKernel::reduce0:
    return harris::reduce0<float, SumOp>;
  case SeedKernel::reduce1:
    return harris::reduce1<float, SumOp>;
  case SeedKernel::reduce2:
    return harris::reduce2<float, SumOp>;
  }
  return nullptr;
}

// The seed's cudaMalloc'd arrays, freed on every path; free() reports cudaFree's own error, which the seed
// ignored.
class DeviceFloats
{
public:
  DeviceFloats()                               = default;
  DeviceFloats(const DeviceFloats&)            = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  ~DeviceFloats() { static_cast<void>(free()); }

  Status allocate(std::size_t count)
  {
    float* data = nullptr;
    REDU_CUDA_TRY(cudaMalloc(&data, count * sizeof(float)));
    data_ = data;
    return Status::success();
  }
  Status free()
  {
    float* data = data_;
    data_       = nullptr;
    if (data != nullptr)
    {
      REDU_CUDA_TRY(cudaFree(data));
    }
    return Status::success();
  }
  float* data() const { return data_; }

private:
  float* data_ = nullptr;
};

// calcReductionGeneral(n, rectangles, total, type): adds `values`, divides by `total`, and accumulates the
// seed's clock() measure in `clock_seconds`.
Status reduce_general(SeedKernel kernel, const std::vector<float>& values, std::int64_t total, float& pi,
                      double& clock_seconds)
{
  const std::int64_t n = static_cast<std::int64_t>(values.size());
  if (n < seed_width)
  {
    const std::clock_t start = std::clock();
    float sum                = 0.0f;
    for (const float value : values)
    {
      sum += value;
    }
    pi                     = sum / static_cast<float>(total);
    const std::clock_t end = std::clock();
    clock_seconds += static_cast<double>(end - start) / CLOCKS_PER_SEC;
    return Status::success();
  }

  const harris::PassKernel<float, SumOp> reduce = seed_kernel(kernel);
  const std::int64_t chunks                     = (n + seed_width - 1) / seed_width;
  std::vector<float> partials(static_cast<std::size_t>(chunks));
  for (std::int64_t c = 0; c < chunks; ++c)
  {
    Chunk input{}; // zeros pad the last chunk
    const auto first = values.begin() + c * seed_width;
    std::copy(first, first + std::min<std::int64_t>(seed_width, n - c * seed_width), input.begin());

    DeviceFloats input_d, output_d;
    REDU_TRY(input_d.allocate(seed_width));
    REDU_CUDA_TRY(cudaMemcpy(input_d.data(), input.data(), sizeof(Chunk), cudaMemcpyHostToDevice));
    REDU_TRY(output_d.allocate(seed_width));

    const std::clock_t start = std::clock();
    reduce<<<1, seed_width, sizeof(Chunk)>>>(input_d.data(), output_d.data(), seed_width, SumOp{});
    const std::clock_t end = std::clock();
    clock_seconds += static_cast<double>(end - start) / CLOCKS_PER_SEC;
    REDU_CUDA_TRY(cudaPeekAtLastError());

    REDU_CUDA_TRY(cudaDeviceSynchronize());
    Chunk output;
    REDU_CUDA_TRY(cudaMemcpy(output.data(), output_d.data(), sizeof(Chunk), cudaMemcpyDeviceToHost));
    partials[static_cast<std::size_t>(c)] = output[0];

    REDU_TRY(input_d.free());
    REDU_TRY(output_d.free());
  }
  return reduce_general(kernel, partials, total, pi, clock_seconds);
}

} // namespace

const char* to_string(SeedKernel kernel)
{
  switch (kernel)
  {
  case SeedKernel::reduce0:
    return "reduce0";
  case SeedKernel::reduce1:
    return "reduce1";
  case SeedKernel::reduce2:
    return "reduce2";
  }
  return "?";
}

Status seed_driver_pi(SeedKernel kernel, std::int64_t n, SeedDriverResult& result)
{
  result = SeedDriverResult{};
  if (n < 1 || n > seed_driver_max_n)
  {
    return Status::invalid("seed_driver_pi: n = " + std::to_string(n) + " outside [1, "
                           + std::to_string(seed_driver_max_n) + "]");
  }
  if (seed_kernel(kernel) == nullptr)
  {
    return Status::invalid("seed_driver_pi: unknown kernel");
  }

  std::vector<float> rectangles(static_cast<std::size_t>(n));
  {
    DeviceFloats rectangles_d;
    REDU_TRY(rectangles_d.allocate(rectangles.size()));
    REDU_TRY(launch_rectangles(rectangles_d.data(), n, nullptr));
    REDU_CUDA_TRY(
      cudaMemcpy(rectangles.data(), rectangles_d.data(), rectangles.size() * sizeof(float), cudaMemcpyDeviceToHost));
    REDU_TRY(rectangles_d.free());
  }
  return reduce_general(kernel, rectangles, n, result.pi, result.host_clock_seconds);
}

} // namespace redu::pi
