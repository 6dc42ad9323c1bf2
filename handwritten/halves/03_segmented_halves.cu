// Halves, lesson 3: bf16 and f16 rows (batched) and variable segments, one float sum (or one half
// min/max) per segment.
//
// Idea: a segment gets the smallest group of threads whose 16-byte loads cover it, as segmented.adaptive
// does for full-width types, with every element widened to float on the way in (lessons 1 and 2). A
// pack holds 8 halves, so the group is chosen from the average length in packs, for four packs per lane
// (one round of `unroll` loads in flight) up to a warp:
//
//   average length            threads per segment                  why
//   < 8 packs    (128 B)      1                                    a warp reads 32 short rows at once
//   < 16, 32, 64, 128 packs   2, 4, 8, 16                          four packs per lane, one round
//   up to a warp's limit      a warp                               4 to 8 packs per lane by default
//     (equal rows: the GPU's table, 2048 halves by default; variable segments: below 256 packs)
//   variable, < 1024 packs    128 threads, two segments a block    twice the offsets loaded at once
//   longer                    a block of 256                       as CUB and Lei Mao: one per segment
//   few and long              a block per part of a segment, then  block-per-segment would leave SMs
//                             a warp per segment folds its parts   idle (1 x 2^28 has one block)
//
// One pack per lane (the first version: 1, 4 or 32 lanes, a warp from 32 packs) left a lane a single
// load in flight, about half the bandwidth of four packs a lane (handwritten/halves/DESIGN.md). Variable
// segments keep larger groups than equal rows: a warp given one of the heavy tail's long segments (the
// log-normal shape averages 377 packs) streams it alone, far slower than a block.
// Why 128 threads for variable segments of 256 to 1024 packs: a segment's bounds are two loads from the
// offsets that must return before its first pack is asked for, a second round trip that equal rows (bounds
// by multiplication) do not pay. A block per segment of 4096 halves (8 KiB) spends about half its life
// waiting on that load. Two segments a block of 256 keep twice as many such waits in flight; 64 threads
// would hide more but stream a long segment with too few threads, and a persistent grid that loads the
// next segment's bounds during this one's packs hands segments out in a fixed stride, piling the long ones
// on some blocks (DESIGN.md).
// Split: each segment is cut into equal parts of at least 32 KiB, as many as give two waves of resident
// blocks (the GPU's occupancy x SMs) in all; with fewer than two parts a segment, a block each. The
// second launch reads 4 bytes per part, a few KiB in all.
// Napkin (H100, 3.35 TB/s): 2^28 halves are 512 MiB, 160 us at peak; one segment on one block streams
// at ~1/132 of that, 21 ms, which is why few long segments are split.
// Flaw kept to teach: variable segments are grouped by their average length, and only the average
// decides whether to split, so a segment far longer than the rest still holds one block (the heavy
// tail of the log-normal shape). segmented.adaptive (f32) lists such segments and splits them; CUB's
// DeviceSegmentedReduce has the same flaw as this lesson.
// Determinism: each segment is folded in an order fixed by its bounds, its address and the group (or
// the number of parts, which follows the GPU's occupancy): run_to_run, as lesson 1's fixed tree.
// Requirements: 64-bit offsets, any alignment of the input and of segment starts (heads and tails are
// loaded element by element); a workspace of max_part_blocks floats for the parts.
// Source: Lei Mao's batched kernels (a block per row), segmented.adaptive's group per length, and the
// widening of halves lessons 1 and 2.
#include "common/contract/typed_reduction.cuh"
#include "common/device/block_reduce.cuh"
#include "common/device/per_device.cuh"
#include "common/device/tuned_per_device.cuh"
#include "common/device/warp_reduce.cuh"
#include "handwritten/halves/fold.cuh"
#include "handwritten/segmented/segment_bounds.cuh"

#include <algorithm>
#include <cstdint>

namespace redu::halves
{
namespace
{

using segmented::EqualRows;
using segmented::OffsetArray;

constexpr int threads = 256;
constexpr int unroll  = 4; // packs in flight per thread per round: 64 bytes
// A part of a split segment is at least this many halves (32 KiB): long enough that a block streams.
constexpr std::int64_t min_part_length = 16384;
// The most parts (segments x parts per segment) a split launch writes: the workspace, 64 KiB.
constexpr std::int64_t max_part_blocks = 16384;
// A warp per segment up to these average lengths. Equal rows: the GPU's table ("halves.equal_row_warp_max",
// in halves, 2048..65536; tuning/README.md), since whether a warp beats a block on rows of 4096 halves
// differs between GPUs (DESIGN.md); the default, 2048 halves, is 8 packs a lane. Variable segments:
// below 256 packs (8 a lane) on every GPU, since a warp that draws one of a heavy tail's long segments
// streams it alone (the log-normal shape).
constexpr int default_equal_row_warp_max   = 2048;
constexpr int max_equal_row_warp_max       = 65536;
constexpr std::int64_t segments_warp_below = 32 * 8;
// Variable segments then take 128 threads each up to this average length (8 packs a lane), a block beyond.
constexpr int segment_group                  = 128;
constexpr std::int64_t segments_group_below = segment_group * 8;
// Split when block-per-segment would give fewer blocks than this many waves of resident blocks.
constexpr int split_waves = 2;

// One float per segment: Group threads fold each segment (a block when Group is the block size), then
// combine by shuffles (up to a warp), through shared memory (more), in a fixed tree.
template <int Group, class T, class ReduceOp, class Segments>
__global__ void __launch_bounds__(threads)
    reduce_segment_groups(const T* __restrict__ in, Output<T, ReduceOp>* __restrict__ out, Segments segs,
                          std::int64_t segments)
{
  static_assert(Group <= 32 || Group == 128 || Group == threads, "a power of two up to a warp, 128, or the block");
  const ReduceOp op{};
  const std::int64_t s = (static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x) / Group;
  const int rank       = static_cast<int>(threadIdx.x % Group);
  float partial        = ReduceOp::template identity<float>();
  if (s < segments)
  {
    partial = fold_half_range<Group, unroll>(in, segs.begin(s), segs.end(s), rank, ReadOnlyLoad{}, op);
  }
  if constexpr (Group == threads)
  {
    partial = block_reduce<threads>(partial, op); // valid in thread 0
  }
  else if constexpr (Group > 32)
  {
    partial = group_reduce<Group, threads>(partial, op); // valid in the group's rank 0
  }
  else
  {
    partial = warp_reduce(partial, op, Group); // every lane of the group holds the group's result
  }
  if (rank == 0 && s < segments)
  {
    out[s] = static_cast<Output<T, ReduceOp>>(partial); // float, or a min/max narrowed back: exact
  }
}

// Split path, first launch: block b folds part b % parts of segment b / parts, one of `parts` equal
// cuts of it, and writes one float.
template <class T, class ReduceOp, class Segments>
__global__ void __launch_bounds__(threads)
    reduce_segment_parts(const T* __restrict__ in, Segments segs, std::int64_t parts, float* __restrict__ partials)
{
  const ReduceOp op{};
  const std::int64_t s      = blockIdx.x / parts;
  const std::int64_t part   = blockIdx.x % parts;
  const std::int64_t first  = segs.begin(s);
  const std::int64_t length = segs.end(s) - first; // <= 2^34, x parts <= 2^14: no overflow
  float partial             = fold_half_range<threads, unroll>(
      in, first + length * part / parts, first + length * (part + 1) / parts, threadIdx.x, ReadOnlyLoad{}, op);
  partial = block_reduce<threads>(partial, op);
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x] = partial;
  }
}

// Split path, second launch: a warp per segment folds its parts, lane-strided then by shuffles.
template <class T, class ReduceOp>
__global__ void __launch_bounds__(threads)
    fold_segment_parts(const float* __restrict__ partials, std::int64_t parts, std::int64_t segments,
                       Output<T, ReduceOp>* __restrict__ out)
{
  const ReduceOp op{};
  const std::int64_t s = (static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x) / 32;
  const int lane       = static_cast<int>(threadIdx.x % 32);
  float value          = ReduceOp::template identity<float>();
  for (std::int64_t k = lane; s < segments && k < parts; k += 32)
  {
    value = op(value, partials[s * parts + k]);
  }
  value = warp_reduce(value, op, 32);
  if (lane == 0 && s < segments)
  {
    out[s] = static_cast<Output<T, ReduceOp>>(value);
  }
}

// The longest equal row (halves) a warp takes: default_equal_row_warp_max, or this GPU's table.
Status tuned_equal_row_warp_max(int& length)
{
  static std::atomic<int> cache[cached_devices] = {};
  return tuned_per_device(cache, "halves.equal_row_warp_max", default_equal_row_warp_max, default_equal_row_warp_max,
                          max_equal_row_warp_max, length);
}

// Blocks of `threads` that give every one of `threads_needed` threads a place.
unsigned blocks_for(std::int64_t threads_needed)
{
  return static_cast<unsigned>((threads_needed + threads - 1) / threads);
}

class SegmentedHalves
  : public TypedReduction<SegmentedHalves, TypeList<__nv_bfloat16, __half>, OpList<SumOp, SumSquaresOp, MinOp, MaxOp>>
{
public:
  SegmentedHalves()
    : TypedReduction(
          {.name   = "halves.segmented",
           .family = "halves",
           .source = "Lei Mao's batched kernels with segmented.adaptive's group per length, widened",
           .idea   = "bf16/f16 rows and segments: 1 to 32 lanes (four packs each), 128 threads or a block per segment, by length",
           .kinds  = {Kind::batched, Kind::segmented}})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem&) const
  {
    return max_part_blocks * sizeof(float);
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    if (p.kind == Kind::batched)
    {
      return run_on<T, ReduceOp>(p, ws, EqualRows{p.row_length()}, stream);
    }
    return run_on<T, ReduceOp>(p, ws, OffsetArray{p.offsets}, stream);
  }

private:
  template <class T, class ReduceOp, class Segments>
  static Status run_on(const Problem& p, Workspace ws, Segments segs, cudaStream_t stream)
  {
    const auto* in             = static_cast<const T*>(p.input);
    auto* out                  = static_cast<Output<T, ReduceOp>*>(p.output);
    const std::int64_t average = p.n / p.segments; // segments > 0: redu::run returns before launching otherwise
    const std::int64_t packs   = average / pack_size<T>;
    // Group g while a segment has fewer than 2g x unroll packs: unroll (four) to 2 x unroll packs a lane.
    if (packs < 2 * unroll)
    {
      return launch_groups<1, T, ReduceOp>(in, out, segs, p.segments, stream);
    }
    if (packs < 4 * unroll)
    {
      return launch_groups<2, T, ReduceOp>(in, out, segs, p.segments, stream);
    }
    if (packs < 8 * unroll)
    {
      return launch_groups<4, T, ReduceOp>(in, out, segs, p.segments, stream);
    }
    if (packs < 16 * unroll)
    {
      return launch_groups<8, T, ReduceOp>(in, out, segs, p.segments, stream);
    }
    if (packs < 32 * unroll)
    {
      return launch_groups<16, T, ReduceOp>(in, out, segs, p.segments, stream);
    }
    // A warp up to the limit: equal rows read this GPU's table, variable segments a fixed length.
    bool warp = packs < segments_warp_below;
    if (p.kind == Kind::batched)
    {
      int equal_row_warp_max = 0;
      REDU_TRY(tuned_equal_row_warp_max(equal_row_warp_max));
      warp = average <= equal_row_warp_max;
    }
    if (warp)
    {
      return launch_groups<32, T, ReduceOp>(in, out, segs, p.segments, stream);
    }
    // Variable segments up to 1024 packs: 128 threads each, two segments to a block, so that twice as
    // many segments' offsets are loaded at once as with a block each (see the top of the file).
    if (p.kind == Kind::segmented && packs < segments_group_below)
    {
      return launch_groups<segment_group, T, ReduceOp>(in, out, segs, p.segments, stream);
    }
    int resident = 0;
    REDU_TRY((resident_blocks<reduce_segment_parts<T, ReduceOp, Segments>, threads>(resident)));
    const std::int64_t wanted = std::min<std::int64_t>(std::int64_t{split_waves} * resident, max_part_blocks);
    const std::int64_t parts  = std::min(wanted / p.segments, average / min_part_length); // segments x parts <= wanted
    if (parts < 2)
    {
      return launch_groups<threads, T, ReduceOp>(in, out, segs, p.segments, stream);
    }
    auto* partials = static_cast<float*>(ws.data);
    reduce_segment_parts<T, ReduceOp>
        <<<static_cast<unsigned>(p.segments * parts), threads, 0, stream>>>(in, segs, parts, partials);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    fold_segment_parts<T, ReduceOp>
        <<<blocks_for(p.segments * 32), threads, 0, stream>>>(partials, parts, p.segments, out);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }

  template <int Group, class T, class ReduceOp, class Segments>
  static Status launch_groups(const T* in, Output<T, ReduceOp>* out, Segments segs, std::int64_t segments,
                              cudaStream_t stream)
  {
    reduce_segment_groups<Group, T, ReduceOp>
        <<<blocks_for(segments * Group), threads, 0, stream>>>(in, out, segs, segments);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(SegmentedHalves);

} // namespace
} // namespace redu::halves
