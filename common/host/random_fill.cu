#include "common/host/random_fill.hpp"

namespace redu
{
namespace
{

template <class T>
__global__ void fill_kernel(T* data, std::int64_t n, std::uint64_t seed)
{
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
  {
    data[i] = random_element<T>(seed, i);
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
    case DType::bf16:
      return launch_fill<__nv_bfloat16>(data, n, seed, stream);
    case DType::f16:
      return launch_fill<__half>(data, n, seed, stream);
  }
  return launch_fill<double>(data, n, seed, stream);
}

} // namespace redu
