#include "device_data.hpp"

namespace redu::bench
{
namespace
{

// SplitMix64: a counter-based generator, so every element is independent of the launch shape.
__device__ std::uint64_t splitmix64(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void fill_kernel(T* data, std::int64_t n, std::uint64_t seed)
{
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
  {
    const std::uint64_t bits = splitmix64(seed ^ static_cast<std::uint64_t>(i));
    if constexpr (std::is_integral_v<T>)
    {
      data[i] = static_cast<T>(static_cast<std::int64_t>(bits % 201) - 100);
    }
    else
    {
      data[i] = static_cast<T>(static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0);
    }
  }
}

template <class T>
Status launch_fill(void* data, std::int64_t n, std::uint64_t seed, cudaStream_t stream)
{
  fill_kernel<<<4096, 256, 0, stream>>>(static_cast<T*>(data), n, seed);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace

Status fill_random(DType dtype, void* data, std::int64_t n, std::uint64_t seed, cudaStream_t stream)
{
  switch (dtype)
  {
    case DType::i32:
      return launch_fill<std::int32_t>(data, n, seed, stream);
    case DType::i64:
      return launch_fill<std::int64_t>(data, n, seed, stream);
    case DType::f32:
      return launch_fill<float>(data, n, seed, stream);
    case DType::f64:
      break;
  }
  return launch_fill<double>(data, n, seed, stream);
}

Status L2Flusher::init(std::int64_t l2_bytes)
{
  return buffer_.allocate(static_cast<std::size_t>(2 * l2_bytes));
}

Status L2Flusher::flush(cudaStream_t stream) const
{
  REDU_CUDA_TRY(cudaMemsetAsync(buffer_.data(), 0x5a, buffer_.bytes(), stream));
  return Status::success();
}

} // namespace redu::bench
