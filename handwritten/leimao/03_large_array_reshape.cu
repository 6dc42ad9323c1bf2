// Lei Mao's "Large Array Reduce Sum", first answer: reshape and repeat.
//
// Idea: one block per row is hopeless for one long row (one SM works, the rest idle), so view the array
// of n elements as inner rows of n / inner elements, run the batched kernel (v2) on that view to get
// `inner` partials, and repeat on the partials until they fit one row, which a last single-block pass
// reduces into the output. With reshape_rows = 4096 and a final row of up to 8192 elements, every n
// takes at most two launches. n need not divide: the last row of each view is shorter (the ragged tail
// is clipped to the total inside the kernel, no padding with the identity is needed).
// Flaw it removes: the batched kernel's dependence on the batch size for parallelism.
// Flaw it keeps: one launch per level and the partials' round trip through global memory, which is
// what the atomic finish (04) tries to avoid; and the batched kernel's scalar loop.
// Requirements: a workspace of two buffers of reshape_rows partials (ping-pong between levels).
// Measured (H100, cold L2, float sum): 3037 GB/s at n = 2^28 (CUB DeviceReduce 3064), 462 at 2^20 (482).
// Source: Lei Mao, "CUDA Reduction" (2024), "Large Array Reduce Sum", first paragraph (reshape into
// (batch * inner_batch_size, inner_num_elements_per_batch) and repeat).
#include "common/contract/typed_reduction.cuh"
#include "handwritten/leimao/02_batched_reduce_sum_v2.cuh"
#include "handwritten/leimao/large_array_shape.cuh"

namespace redu::leimao
{
namespace
{

// Partials up to this count are reduced by a single block (32 loads per thread) straight into the output.
constexpr std::int64_t final_row_length = 8192;

class LargeArrayReshape : public TypedReduction<LargeArrayReshape>
{
public:
  LargeArrayReshape()
    : TypedReduction({.name          = "leimao.large_array_reshape",
                      .family        = "leimao",
                      .source        = "Lei Mao, CUDA Reduction (2024), Large Array Reduce Sum: reshape and repeat",
                      .idea          = "view one array as a batch of rows, reduce it with the batched kernel, repeat",
                      .kinds         = {Kind::full}})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem&) const
  {
    return 2 * reshape_rows * sizeof(T);
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    T* levels[2]       = {static_cast<T*>(ws.data), static_cast<T*>(ws.data) + reshape_rows};
    int next           = 0;
    const T* src       = static_cast<const T*>(p.input);
    std::int64_t count = p.n;
    while (count > final_row_length)
    {
      const std::int64_t row_length = reshape_row_length(count);
      const std::int64_t rows       = (count + row_length - 1) / row_length;
      REDU_TRY((launch_batched_v2<T, ReduceOp>(RowStore<T>{levels[next]}, src, rows, row_length, count, stream)));
      src   = levels[next];
      count = rows;
      next ^= 1;
    }
    // One row of `count` elements (possibly 0: the identity) into the output.
    return launch_batched_v2<T, ReduceOp>(RowStore<T>{static_cast<T*>(p.output)}, src, 1, count, count, stream);
  }
};

REDU_REGISTER(LargeArrayReshape);

} // namespace
} // namespace redu::leimao
