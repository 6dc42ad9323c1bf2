// Precision family, lesson 2: a compensated float sum (Kahan-Babuska-Neumaier), in one launch.
//
// Idea: a float add loses the low bits of the smaller operand; Fast2Sum recovers them exactly
// (t = s + x; the error is (s - t) + x when |s| >= |x|, else (x - t) + s), and a second accumulator
// collects the errors. Each thread keeps `compensated_unroll<T>` such (sum, error) pairs, one per pack slot, so their
// dependent chains overlap; pairs merge with TwoSum (the branch-free error-free sum of two floats) across
// the thread, the warp (shuffles), the block and, through partials and the ticket of lesson modern 3,
// the grid, always in the same order: the bits repeat run to run on one GPU (fixed_tree).
// Accuracy: |result - exact| <= (2u + 2 n u^2) sum|x| (Higham, Accuracy and Stability of Numerical
// Algorithms, section 4.3, for Kahan's and Neumaier's variants): about 2u for n below 1/u, against
// (log2 n + 1) 2u for a tree, and independent of the tree's shape in first order.
// Cost: ~8 flops per element instead of 1, far below what a memory-bound sum leaves idle (~28
// instructions per float at 4.8 TB/s on an H200, 01_exact_sum.cu says how), so the prediction is the
// plain sum's bandwidth (DESIGN.md).
// Requirements: any n (64-bit), input aligned to its element size; workspace zero-filled once by the
// caller (the ticket is left at zero after every call).
// Source: Neumaier, "Rundungsfehleranalyse einiger Verfahren zur Summation endlicher Summen" (1974);
// Knuth's TwoSum (TAOCP vol. 2, 4.2.2).
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "handwritten/modern/grid_shape.cuh"
#include "handwritten/precision/compensated.cuh"

namespace redu::precision
{
namespace
{

// The ticket sits in the first 16 bytes of the workspace, the partial pairs after it.
constexpr std::size_t partials_offset = 16;

template <int Threads, class T>
__global__ void __launch_bounds__(Threads)
    compensated_sum(const T* __restrict__ in, std::int64_t n, std::int64_t tiles_per_block, T* __restrict__ out,
                    Compensated<T>* partials, unsigned* ticket, bool evict_first)
{
  Compensated<T> c = block_compensated<Threads>(in, n, tiles_per_block, evict_first);
  if (gridDim.x == 1)
  {
    if (threadIdx.x == 0)
    {
      *out = c.result();
    }
    return;
  }
  if (!block_arrives_last(ticket, gridDim.x, [&] { partials[blockIdx.x] = c; }))
  {
    return;
  }
  // Partials written in this launch: read at L2 (__ldcg), never through the read-only path.
  c = Compensated<T>{};
  for (int i = threadIdx.x; i < static_cast<int>(gridDim.x); i += Threads)
  {
    c.merge(Compensated<T>{__ldcg(&partials[i].sum), __ldcg(&partials[i].error)});
  }
  c = block_merge<Threads>(c);
  if (threadIdx.x == 0)
  {
    *out    = c.result();
    *ticket = 0;
  }
}

class CompensatedSum : public TypedReduction<CompensatedSum, TypeList<float, double>, OpList<SumOp>>
{
public:
  CompensatedSum()
    : TypedReduction({.name         = "precision.compensated_sum",
                      .family       = "precision",
                      .source       = "Neumaier (1974) compensated summation; Knuth's TwoSum to merge",
                      .idea         = "a second accumulator keeps each add's lost bits: ~2u error instead of ~2u log2 n",
                      .kinds        = {Kind::full},
                      .error_factor = compensated_bound,
                      .needs        = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return partials_offset + modern::max_grid * sizeof(Compensated<T>);
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    constexpr auto kernel = compensated_sum<block_threads, T>;
    modern::LaunchShape shape;
    int waves = 0;
    REDU_TRY(grid_waves(waves));
    REDU_TRY((modern::launch_shape<kernel, block_threads, compensated_unroll<T>, T>(p.n, waves, shape)));
    auto* base = static_cast<unsigned char*>(ws.data);
    kernel<<<shape.blocks, block_threads, 0, stream>>>(static_cast<const T*>(p.input), p.n, shape.tiles_per_block,
                                                       static_cast<T*>(p.output),
                                                       reinterpret_cast<Compensated<T>*>(base + partials_offset),
                                                       reinterpret_cast<unsigned*>(base), shape.evict_first);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(CompensatedSum);

} // namespace
} // namespace redu::precision
