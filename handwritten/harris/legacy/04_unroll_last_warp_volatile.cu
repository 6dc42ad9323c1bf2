// Registers the historical exhibit of 04_unroll_last_warp_volatile.cuh as "harris.reduce4_volatile",
// with Role::exhibit: it goes through redu::run like every implementation, but it is never in
// registry(), so no test relies on its result and no sweep times it. It exists to be shown racy under
// compute-sanitizer (tests/legacy_exhibits_test.cpp, scripts/sanitize.sh), beside the registered
// harris.reduce4, which removes the race.
#include "handwritten/harris/legacy/04_unroll_last_warp_volatile.cuh"

namespace redu::harris
{
namespace
{

struct VolatileUnrollLastWarp
{
  // The same shape as the registered reduce4: 128 threads, two elements per thread, one tile per block.
  static constexpr PassShape shape = {harris_block_threads, 2 * harris_block_threads, max_grid_blocks};

  template <class T, class ReduceOp>
  static PassKernel<T, ReduceOp> kernel()
  {
    return legacy::volatile_reduce4;
  }

  static Info info()
  {
    return {.name   = "harris.reduce4_volatile",
            .source = "Harris 2007, Optimizing Parallel Reduction in CUDA, Reduction #5 as published (volatile)",
            .idea   = "the published last-warp unroll: volatile shared memory, no __syncwarp, a race since Volta",
            .role   = Role::exhibit};
  }
};

using HarrisVolatileReduce4 = MultiPassReduction<VolatileUnrollLastWarp, TypeList<float>, OpList<SumOp>>;
REDU_REGISTER(HarrisVolatileReduce4);

} // namespace
} // namespace redu::harris
