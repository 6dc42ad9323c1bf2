// pi without the rectangles array: the reduction computes each height where it would have loaded it.
//
// Idea: calcRectangles writes n floats that the reduction reads back, 8 bytes of traffic per rectangle for
// numbers that cost a few instructions to recompute. Here a grid-stride loop evaluates the heights in
// registers, each block folds its threads by warp shuffles (common/device/warp_reduce.cuh), and a second
// launch of the same kernel, reading the block partials, finishes. No atomics: deterministic.
// Requirements: any n >= 1 (64-bit index); partials for at most fused_max_blocks blocks.
#include "common/device/block_reduce.cuh"
#include "common/contract/ops.cuh"
#include "studies/pi/device_sum_method.hpp"
#include "studies/pi/rectangles.cuh"

#include <algorithm>
#include <limits>

namespace redu::pi
{
namespace
{

constexpr int fused_threads = 256;
// Enough 256-thread blocks to fill an H100 (132 SMs x 8), few enough for one finishing block.
constexpr std::int64_t fused_max_blocks = 1024;

// The values a pass adds: computed heights (first pass) or stored partials (second pass).
struct StoredValue
{
  const float* values;
  __device__ float operator()(std::int64_t i) const { return values[i]; }
};

template <class Value>
__global__ void __launch_bounds__(fused_threads) sum_values(Value value_at, std::int64_t n, float* out)
{
  float sum               = 0.0f;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * fused_threads;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * fused_threads + threadIdx.x; i < n; i += step)
  {
    sum += value_at(i);
  }
  sum = block_reduce<fused_threads>(sum, SumOp{});
  if (threadIdx.x == 0)
  {
    out[blockIdx.x] = sum;
  }
}

class FusedMethod final : public DeviceSumMethod
{
public:
  FusedMethod()
      : DeviceSumMethod("fused")
  {}

  std::int64_t max_n() const override
  {
    return std::numeric_limits<std::int64_t>::max() - fused_max_blocks * fused_threads;
  }

  Status prepare(std::int64_t n) override
  {
    REDU_TRY(prepare_sum(n));
    const std::int64_t wanted = n / fused_threads + (n % fused_threads != 0 ? 1 : 0);
    blocks_                   = static_cast<int>(std::min(wanted, fused_max_blocks));
    return partials_.allocate(static_cast<std::size_t>(blocks_) * sizeof(float));
  }

  Status enqueue(cudaStream_t stream) override
  {
    sum_values<<<blocks_, fused_threads, 0, stream>>>(RectangleHeight{n()}, n(), partials_.as<float>());
    REDU_CUDA_TRY(cudaPeekAtLastError());
    sum_values<<<1, fused_threads, 0, stream>>>(StoredValue{partials_.as<float>()}, blocks_, sum());
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }

private:
  int blocks_ = 0;
  DeviceBuffer partials_;
};

} // namespace

std::unique_ptr<Method> make_fused_method()
{
  return std::make_unique<FusedMethod>();
}

} // namespace redu::pi
