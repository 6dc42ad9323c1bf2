// An adaptive segmented reduction: the mapping of threads to a segment is chosen from its length.
//
// Idea: no single mapping is good for every segment length. One block per segment (Lei Mao's batched
// kernel, CUB's DeviceSegmentedReduce) leaves the GPU idle when segments are few and long, and spends
// most of its time on block-wide barriers and idle threads when they are many and short. So each
// segment gets the smallest group of threads that can stream it at full speed, and long segments get
// several blocks:
//
//   length (16-byte vectors)   mapping                                         where
//   equal rows, 2^k <= 256     one warp-wide tile of 8 x 512 B loads covers      reduce_pow2_rows
//                              2^k-lane groups of rows; shuffles per row
//   >= 1024 equal rows of      one block per row: enough rows to fill the GPU    leimao::batched_reduce_v2
//   >= 2048 elements           and long enough to stream
//   >= 1024 segments of        one block per segment, except those over both      reduce_block_per_segment
//   >= 2048 elements on        128 KiB and 4 x the average length, which go to
//   average (offsets)          the big list (last row); blocks of 512 threads
//                              when the average is 512 KiB or more, else 256
//   otherwise, by length:
//   <= 8      (128 B)          one thread                                        classify_and_reduce_small
//   <= 64     (1 KiB)          a pair of lanes                                   classify_and_reduce_small
//   <= 1024   (16 KiB)         a warp, from a list written by the first pass     reduce_big_and_medium
//   > 1024                     pieces of up to 4 x 32 KiB claimed dynamically    reduce_big_and_medium
//                              by all blocks, combined in piece order
//
// Equal rows (Kind::batched) of a power-of-two number of vectors up to 4 KiB take the first mapping,
// decided on the host from the row length. Everything else (variable offsets, or equal rows of other
// lengths, read through the same segment interface) takes two launches: the first classifies 256
// segments per block, reduces the tiny and small ones on the spot and appends the medium and big ones
// to lists in the workspace (or, for many long segments, gives each its own block); the second reduces
// the big ones' chunks and then the medium ones.
//
// Flaw of the one-block-per-segment kernels it removes: their speed depends on the shape (CUB's
// DeviceSegmentedReduce reaches 3 TB/s at 2048 x 131072 floats but 19 GB/s at 1 x 2^28 and 32 GB/s at
// 2^25 x 8 on the H100).
// Requirements: 64-bit offsets, any alignment of the input and of segment starts (heads and tails are
// loaded element by element, bodies as 16-byte vectors); n <= 2^34 (the 24-bit entry count and 40-bit
// chunk count packed into one 64-bit counter); a workspace of lists and partial slots (about 1% of the
// input's bytes) whose four counters are zero between calls (the last block of the second launch resets
// them). Everything else in it is per-call state written before it is read: a big entry's piece counter
// is zeroed by the first launch together with the entry, because the lists' layout depends on the
// problem, so an earlier call of another shape may have left list data where this call counts pieces.
// Deterministic: each segment is folded in an order fixed by its bounds and the input's address alone
// (never by which block or warp gets it, nor by the grid size); atomics only hand out list positions
// and work, and count finished pieces.
// Measured before the block-per-row case was added (results/ has the current figures; H100 80GB HBM3,
// cold L2, float sum, 2^28 elements, GB/s of input read + output written):
//   shape          1x2^28  8x2^25  2048x2^17  2^16x2^12  2^20x256  2^22x64  2^23x32  2^25x8  lognormal
//   batched          3022    3004       3002       2862      2857     2763     2762    2926          -
//   segmented        2830    2865       2898       2601      2735     2618     2458    2016       2612
// (segmented: the same shapes given as an offsets array, whose 8 bytes per segment are read but not
// counted; lognormal: the benchmark's 88975 segments, median length e^6, sigma 2.)
// Source: Lei Mao's batched kernels (a block per row) and the "Large Array Reduce Sum" section (split a
// long row over several blocks), extended as in CUB's segmented reduce and moderngpu's tile thinking.
#include "common/device/warp_reduce.cuh"
#include "common/per_device.cuh"
#include "common/typed_reduction.cuh"
#include "handwritten/leimao/02_batched_reduce_sum_v2.cuh"
#include "handwritten/segmented/vector_range.cuh"

#include <algorithm>
#include <cstdint>
#include <cuda_runtime.h>

namespace redu::segmented
{
namespace
{

constexpr int block_threads   = 256;
constexpr int warps_per_block = block_threads / 32;
constexpr unsigned full_mask  = 0xffffffffu;
// 16-byte loads each thread issues before it folds any: 128 bytes in flight per thread, so a quarter of
// the H100's 2048 threads per SM already covers the ~30 KB per SM that its bandwidth-latency product needs.
constexpr int unroll = 8;

// Class limits in 16-byte vectors (4 floats or ints, 2 doubles or int64s), so every type streams the
// same number of bytes per thread.
// tiny: one thread folds the segment with one round of at most `unroll` vector loads (<= 128 B).
constexpr std::int64_t tiny_vectors = unroll;
// small: a pair of lanes (<= 1 KiB, up to 4 rounds of 8 loads each). Pairs read whole 32-byte sectors,
// and with 128 pairs per block a tile of 256 such segments takes 2 rounds (256 B segments: 2 round
// trips). A warp per segment would leave most lanes idle and pay one round trip per segment; wider groups
// pay more rounds for the same bytes: with 8 lanes, 2^22 x 64 floats as offsets ran at 2.07 TB/s (pairs:
// 2.62), though 2^20 x 256 ran at 2.92 (pairs: 2.74).
constexpr int small_group            = 2;
constexpr std::int64_t small_vectors = 64;
// medium: a warp, at most four rounds of loads per lane (<= 16 KiB), so the last warp to finish (the
// medium phase ends the second launch) holds the GPU for only a few memory latencies. Measured on the
// H100 (offsets, float sum, GB/s): 2^16 x 4096 gave 2595 as big segments (limit 8 KiB), 2980 as medium
// (16 KiB); 32 and 64 KiB gave no more there and cost the lognormal shape 1% and 5% (warps' tails).
constexpr std::int64_t medium_vectors = 4 * 32 * unroll;
// big: a segment longer than 8 KiB no longer fits a warp's share of the work. It is cut into chunks of
// one block-round of loads (32 KiB), and chunks into pieces of up to 4 chunks (128 KiB) that blocks
// claim dynamically, so segments of any length and number balance to within one piece per block. The
// pieces are fixed relative to the segment start (not to the order in which blocks arrive), which is
// what keeps the result bit-reproducible.
constexpr std::int64_t chunk_vectors = block_threads * unroll;
constexpr std::int64_t piece_chunks  = 4;
// Chunk numbers a block claims with one atomicAdd: it folds the pieces that start among them (at most
// batch_chunks + piece_chunks - 1 chunks of work), so a 1 GiB segment costs 8192 atomics, not 32768.
constexpr std::int64_t batch_chunks = 4;

__host__ __device__ constexpr std::int64_t min64(std::int64_t a, std::int64_t b)
{
  return a < b ? a : b;
}

template <class T>
__host__ __device__ constexpr std::int64_t elements(std::int64_t vectors)
{
  return vectors * Vector16<T>::width;
}

// The big list's entry count and chunk count share one 64-bit counter, so one atomicAdd hands a block
// both its entries and a contiguous range of chunk numbers: entries are numbered in chunk order.
constexpr int chunk_bits                  = 40;
constexpr unsigned long long chunk_mask   = (1ull << chunk_bits) - 1;
constexpr std::int64_t max_elements_total = std::int64_t{1} << 34; // < 2^24 entries of > 8 KiB for 8-byte T

// Segment bounds: computed for equal rows, read from the offsets array for variable segments.
struct EqualRows
{
  std::int64_t length;
  __device__ std::int64_t begin(std::int64_t s) const { return s * length; }
  __device__ std::int64_t end(std::int64_t s) const { return (s + 1) * length; }
};

struct OffsetArray
{
  const std::int64_t* offsets;
  __device__ std::int64_t begin(std::int64_t s) const { return __ldg(offsets + s); }
  __device__ std::int64_t end(std::int64_t s) const { return __ldg(offsets + s + 1); }
};

// A list entry: the segment and its bounds, so the second launch reads one entry instead of an id and
// then (a dependent round trip later) its offsets.
struct SegmentRef
{
  std::int64_t segment, begin, end;
};

// The workspace, carved into counters, the two lists and the partial slots of split big segments.
template <class T>
struct Scratch
{
  unsigned long long* medium_count; // entries in medium_list
  unsigned long long* big_packed;   // (big entries << chunk_bits) | chunks handed out
  unsigned long long* chunk_cursor; // chunk numbers claimed so far by the second launch's blocks
  unsigned int* blocks_done;        // blocks of the second launch that have finished
  SegmentRef* medium_list;
  SegmentRef* big_list;
  std::int64_t* big_first_chunk;    // each big entry's first chunk number (increasing with the entry number)
  unsigned int* big_pieces_done;    // pieces of a split big segment written so far (zeroed with its entry)
  T* piece_slots;                   // a split segment's piece partials, at each piece's first chunk number
};

struct Layout
{
  std::size_t medium_list, big_list, big_first_chunk, big_pieces_done, piece_slots, bytes;
};

constexpr std::size_t align16(std::size_t bytes)
{
  return (bytes + 15) / 16 * 16;
}

template <class T>
Layout layout(const Problem& p)
{
  // Each medium segment holds more than elements(small_vectors) elements and each big one more than
  // elements(medium_vectors), which bounds the lists by n as well as by the segment count.
  const std::int64_t max_medium = std::min(p.segments, p.n / elements<T>(small_vectors));
  const std::int64_t max_big    = std::min(p.segments, p.n / elements<T>(medium_vectors));
  const std::int64_t max_chunks = p.n / elements<T>(chunk_vectors) + max_big; // sum of ceil(len / chunk)
  Layout l{};
  l.medium_list     = align16(4 * sizeof(unsigned long long));
  l.big_list        = l.medium_list + align16(max_medium * sizeof(SegmentRef));
  l.big_first_chunk = l.big_list + align16(max_big * sizeof(SegmentRef));
  l.big_pieces_done = l.big_first_chunk + align16(max_big * sizeof(std::int64_t));
  l.piece_slots     = l.big_pieces_done + align16(max_big * sizeof(unsigned int));
  l.bytes           = l.piece_slots + align16(max_chunks * sizeof(T));
  return l;
}

template <class T>
Scratch<T> carve(void* data, const Layout& l)
{
  auto* base = static_cast<char*>(data);
  auto* c    = reinterpret_cast<unsigned long long*>(base);
  return {c,
          c + 1,
          c + 2,
          reinterpret_cast<unsigned int*>(c + 3),
          reinterpret_cast<SegmentRef*>(base + l.medium_list),
          reinterpret_cast<SegmentRef*>(base + l.big_list),
          reinterpret_cast<std::int64_t*>(base + l.big_first_chunk),
          reinterpret_cast<unsigned int*>(base + l.big_pieces_done),
          reinterpret_cast<T*>(base + l.piece_slots)};
}

template <int Width, class T, class ReduceOp>
__device__ __forceinline__ T group_reduce(T value, ReduceOp op)
{
#pragma unroll
  for (int lane_mask = Width / 2; lane_mask > 0; lane_mask /= 2)
  {
    value = op(value, __shfl_xor_sync(full_mask, value, lane_mask));
  }
  return value;
}

// Lets the second launch (started with programmatic stream serialisation, see launch_second()) be
// scheduled once every block of this launch has started: its blocks then take the SM slots that this
// launch's last wave leaves free and wait in griddepcontrol.wait, so its launch latency overlaps our tail
// instead of following it. A no-op when no dependent launch waits.
__device__ __forceinline__ void allow_dependent_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Equal rows of 2^k vectors, k <= log2(32 * unroll), 16-byte aligned: the benchmark's many-row shapes.
//
// Mapping: a warp takes a tile of 32 x unroll consecutive vectors, one coalesced 512-byte load per
// unroll step, all issued before any is used. A row is 2^k consecutive vectors, so rows never straddle
// tiles and each load step holds whole rows (2^k <= 32: groups of 2^k lanes, folded by 2^k-wide butterfly
// shuffles) or a 1 / (2^k / 32) slice of one row (2^k > 32: warp-wide butterflies, then the steps of
// the row folded in order). Tiny rows thus keep 8 loads in flight per thread where a thread or a warp
// per row would keep one, and no row waits on a block-wide barrier.
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads) reduce_pow2_rows(const T* __restrict__ in, T* __restrict__ out,
                                                                  std::int64_t rows, int log2_row_vectors, ReduceOp op)
{
  using Vec                     = vector16_t<T>;
  const T identity              = ReduceOp::template identity<T>();
  const int lane                = threadIdx.x % 32;
  const int row_vectors         = 1 << log2_row_vectors;
  const int lanes_per_row       = row_vectors < 32 ? row_vectors : 32;
  const int steps_per_row       = row_vectors > 32 ? row_vectors / 32 : 1; // divides unroll
  const std::int64_t total      = rows << log2_row_vectors;
  const std::int64_t tiles      = (total + 32 * unroll - 1) / (32 * unroll);
  const std::int64_t warp_count = static_cast<std::int64_t>(gridDim.x) * warps_per_block;
  const Vec* v                  = reinterpret_cast<const Vec*>(in);

  for (std::int64_t tile = blockIdx.x * warps_per_block + threadIdx.x / 32; tile < tiles; tile += warp_count)
  {
    const std::int64_t first = tile * 32 * unroll;
    Vec x[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
    {
      const std::int64_t i = first + u * 32 + lane;
      x[u]                 = i < total ? __ldg(v + i) : splat(identity);
    }
    T row_value = identity;
#pragma unroll
    for (int u = 0; u < unroll; ++u)
    {
      T value = fold_vector<T>(x[u], op);
      for (int lane_mask = lanes_per_row / 2; lane_mask > 0; lane_mask /= 2)
      {
        value = op(value, __shfl_xor_sync(full_mask, value, lane_mask));
      }
      row_value = (u & (steps_per_row - 1)) == 0 ? value : op(row_value, value);
      if (((u + 1) & (steps_per_row - 1)) == 0)
      {
        const std::int64_t row = (first + (u + 1 - steps_per_row) * 32 + lane) >> log2_row_vectors;
        if (lane % lanes_per_row == 0 && row < rows)
        {
          out[row] = row_value;
        }
      }
    }
  }
}

// First launch of the general path: each block takes tiles of 256 consecutive segments (one per
// thread), reads their bounds once and decides by length:
// - tiny: the thread folds its own segment right away, one round of at most 8 vector loads (plus the
//   unaligned head and tail); 256 segments are in flight at once.
// - small: listed in shared memory and handed to the block's 128 pairs of lanes, 128 segments at a time.
// - medium and big: appended to the workspace lists with one atomicAdd per block and list (not per
//   segment: the counters would serialise a million same-address atomics), ranks from warp ballots.
//   A list entry costs 8 bytes written and read back per segment of more than 1 KiB: under 2% of the traffic.
template <class T, class ReduceOp, class Segments>
__global__ void __launch_bounds__(block_threads)
    classify_and_reduce_small(const T* __restrict__ in, T* __restrict__ out, Segments segs, std::int64_t segments,
                              Scratch<T> ws, ReduceOp op)
{
  constexpr std::int64_t tiny_max   = elements<T>(tiny_vectors);
  constexpr std::int64_t small_max  = elements<T>(small_vectors);
  constexpr std::int64_t medium_max = elements<T>(medium_vectors);
  constexpr std::int64_t chunk      = elements<T>(chunk_vectors);
  constexpr int small_groups        = block_threads / small_group;

  __shared__ std::int64_t seg_begin[block_threads];
  __shared__ std::int64_t seg_end[block_threads];
  __shared__ int small_list[block_threads];
  __shared__ int warp_small[warps_per_block];
  __shared__ int warp_medium[warps_per_block];
  __shared__ int warp_big[warps_per_block];
  __shared__ std::int64_t warp_chunks[warps_per_block];
  __shared__ int small_count;
  __shared__ unsigned long long medium_base;
  __shared__ unsigned long long big_base;

  allow_dependent_launch();
  const int lane              = threadIdx.x % 32;
  const int warp              = threadIdx.x / 32;
  const unsigned lanes_before = (1u << lane) - 1;

  std::int64_t a = 0, b = 0; // bounds of this thread's segment in the current tile
  if (static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x < segments)
  {
    a = segs.begin(static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x);
    b = segs.end(static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x);
  }
  for (std::int64_t tile = blockIdx.x; tile * block_threads < segments; tile += gridDim.x)
  {
    const std::int64_t s = tile * block_threads + threadIdx.x;
    const bool valid     = s < segments;
    // The next tile's bounds are loaded now and used after this tile's data: offsets and data, two
    // dependent round trips, then overlap instead of adding up (tiny segments are latency-bound).
    const std::int64_t next_s = s + static_cast<std::int64_t>(gridDim.x) * block_threads;
    std::int64_t next_a = 0, next_b = 0;
    if (next_s < segments)
    {
      next_a = segs.begin(next_s);
      next_b = segs.end(next_s);
    }
    const std::int64_t length = b - a;
    const bool tiny           = valid && length <= tiny_max;
    const bool small          = valid && length > tiny_max && length <= small_max;
    const bool medium         = valid && length > small_max && length <= medium_max;
    const bool big            = valid && length > medium_max;

    if (tiny) // empty segments too: the fold of nothing is the identity
    {
      out[s] = fold_range<1, unroll>(in, a, b, 0, op);
    }

    // A tile of tiny segments only (short rows, most of a skewed distribution's segments) needs no
    // lists: the ranking below and its barriers are skipped.
    if (__syncthreads_or(valid && !tiny))
    {
      seg_begin[threadIdx.x] = a;
      seg_end[threadIdx.x]   = b;
      // Ranks within the block: ballots per warp, an exclusive scan over the 8 warps by thread 0, and the
      // block's two atomics. Big entries also need an exclusive scan of their chunk counts.
      const unsigned small_mask  = __ballot_sync(full_mask, small);
      const unsigned medium_mask = __ballot_sync(full_mask, medium);
      const unsigned big_mask    = __ballot_sync(full_mask, big);
      const std::int64_t chunks  = big ? (length + chunk - 1) / chunk : 0;
      std::int64_t chunks_upto   = chunks; // inclusive scan over the warp
#pragma unroll
      for (int d = 1; d < 32; d *= 2)
      {
        const std::int64_t before = __shfl_up_sync(full_mask, chunks_upto, d);
        chunks_upto += lane >= d ? before : 0;
      }
      if (lane == 31)
      {
        warp_small[warp]  = __popc(small_mask);
        warp_medium[warp] = __popc(medium_mask);
        warp_big[warp]    = __popc(big_mask);
        warp_chunks[warp] = chunks_upto;
      }
      __syncthreads();
      if (threadIdx.x == 0)
      {
        int small_total = 0, medium_total = 0, big_total = 0;
        std::int64_t chunk_total = 0;
        for (int w = 0; w < warps_per_block; ++w)
        {
          const int ws_small = warp_small[w], ws_medium = warp_medium[w], ws_big = warp_big[w];
          const std::int64_t ws_chunks = warp_chunks[w];
          warp_small[w]                = small_total;
          warp_medium[w]               = medium_total;
          warp_big[w]                  = big_total;
          warp_chunks[w]               = chunk_total;
          small_total += ws_small;
          medium_total += ws_medium;
          big_total += ws_big;
          chunk_total += ws_chunks;
        }
        small_count = small_total;
        medium_base = medium_total > 0 ? atomicAdd(ws.medium_count, static_cast<unsigned long long>(medium_total)) : 0;
        big_base = big_total > 0 ? atomicAdd(ws.big_packed, (static_cast<unsigned long long>(big_total) << chunk_bits) |
                                                                static_cast<unsigned long long>(chunk_total))
                                 : 0;
      }
      __syncthreads();
      if (small)
      {
        small_list[warp_small[warp] + __popc(small_mask & lanes_before)] = threadIdx.x;
      }
      if (medium)
      {
        ws.medium_list[medium_base + warp_medium[warp] + __popc(medium_mask & lanes_before)] = {s, a, b};
      }
      if (big)
      {
        const std::int64_t entry =
            static_cast<std::int64_t>(big_base >> chunk_bits) + warp_big[warp] + __popc(big_mask & lanes_before);
        ws.big_list[entry] = {s, a, b};
        ws.big_first_chunk[entry] =
            static_cast<std::int64_t>(big_base & chunk_mask) + warp_chunks[warp] + chunks_upto - chunks;
        ws.big_pieces_done[entry] = 0;
      }
      __syncthreads();

      // Small segments: lane pair g takes list entries g, g + 128, ... The trip count is the same
      // for the whole block, so every warp's shuffles see all 32 lanes.
      const int group = threadIdx.x / small_group;
      const int rank  = threadIdx.x % small_group;
      for (int first = 0; first < small_count; first += small_groups)
      {
        const int item = first + group;
        T partial      = ReduceOp::template identity<T>();
        if (item < small_count)
        {
          const int local = small_list[item];
          partial         = fold_range<small_group, unroll>(in, seg_begin[local], seg_end[local], rank, op);
        }
        partial = group_reduce<small_group>(partial, op);
        if (item < small_count && rank == 0)
        {
          out[tile * block_threads + small_list[item]] = partial;
        }
      }
      __syncthreads(); // the next tile rewrites the shared lists
    }
    a = next_a;
    b = next_b;
  }
}

// Appends segment s, longer than one block should stream alone, to the big list: one atomicAdd hands
// out its entry and its chunk numbers together, so entries stay in chunk order.
template <class T>
__device__ void append_big(Scratch<T> ws, std::int64_t s, std::int64_t a, std::int64_t b)
{
  constexpr std::int64_t chunk    = elements<T>(chunk_vectors);
  const std::int64_t chunks       = (b - a + chunk - 1) / chunk;
  const unsigned long long packed = atomicAdd(ws.big_packed, (1ull << chunk_bits) | static_cast<unsigned long long>(chunks));
  const auto entry                = static_cast<std::int64_t>(packed >> chunk_bits);
  ws.big_list[entry]              = {s, a, b};
  ws.big_first_chunk[entry]       = static_cast<std::int64_t>(packed & chunk_mask);
  ws.big_pieces_done[entry]       = 0;
}

// First launch when segments are many and long on average (see run()): one block per segment, as in
// Lei Mao's batched kernels and CUB's DeviceSegmentedReduce, and the hardware's block scheduler hands
// segments to SMs with no lists and no atomics. Only segments longer than `split_above` elements, which
// would hold their block for many round trips and leave a long tail, go to the big list for the second
// launch (run_general() says how long that is).
template <int Threads, class T, class ReduceOp, class Segments>
__global__ void __launch_bounds__(Threads) reduce_block_per_segment(const T* __restrict__ in, T* __restrict__ out,
                                                                    Segments segs, std::int64_t split_above,
                                                                    Scratch<T> ws, ReduceOp op)
{
  allow_dependent_launch();
  const std::int64_t s = blockIdx.x;
  const std::int64_t a = segs.begin(s);
  const std::int64_t b = segs.end(s);
  if (b - a > split_above)
  {
    if (threadIdx.x == 0)
    {
      append_big(ws, s, a, b);
    }
    return;
  }
  T partial = fold_range<Threads, unroll>(in, a, b, threadIdx.x, op);
  partial   = block_reduce<Threads>(partial, op);
  if (threadIdx.x == 0)
  {
    out[s] = partial;
  }
}

// The big entry holding chunk x: the largest e with first_chunk[e] <= x (first_chunk[0] = 0 and the
// values increase). A 32-way search by one warp, log32(entries) dependent loads instead of log2.
__device__ std::int64_t find_entry(const std::int64_t* first_chunk, std::int64_t entries, std::int64_t x)
{
  const int lane  = threadIdx.x % 32;
  std::int64_t lo = 0, hi = entries; // first_chunk[lo] <= x, and hi == entries or first_chunk[hi] > x
  while (hi - lo > 1)
  {
    const std::int64_t step  = (hi - lo + 31) / 32;
    const std::int64_t probe = lo + lane * step;
    const unsigned below     = __ballot_sync(full_mask, probe < hi && first_chunk[probe] <= x);
    const int k              = 31 - __clz(static_cast<int>(below)); // lane 0 probes lo: always set
    hi                       = min64(hi, lo + (k + 1) * step);
    lo                       = lo + k * step;
  }
  return lo;
}

// Second launch of the general path, a persistent grid (SMs x resident blocks):
// 1. Big segments. Their chunks are numbered consecutively, entry by entry, by the first launch; blocks
//    claim 4 chunk numbers at a time from a counter and fold the pieces (up to 4 chunks, counted from
//    the segment start) that begin among them, so every block streams about the same number of bytes
//    whatever the segment lengths: one segment of 2^28 elements and 2048 of 2^17 balance alike, to
//    within one piece. A segment of one piece is written directly; otherwise each piece's value goes to
//    a slot, and the block that completes the last piece (counted with an atomic) folds the slots in
//    piece order. Chunk numbers depend on the order of the first launch's atomics, but the pieces and
//    their fold order depend only on the segment, so the result is deterministic.
// 2. Medium segments, a warp each, round-robin over the list; each warp prefetches the bounds of its
//    next 32 segments in one go, so a segment costs one memory round trip, not three.
// Finally the last block to finish resets the counters for the next call.
template <class T, class ReduceOp>
__global__ void __launch_bounds__(block_threads)
    reduce_big_and_medium(const T* __restrict__ in, T* __restrict__ out, Scratch<T> ws, ReduceOp op)
{
  constexpr std::int64_t chunk = elements<T>(chunk_vectors);
  __shared__ std::int64_t shared_batch;
  __shared__ std::int64_t shared_entry;
  __shared__ bool shared_last;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;

  // Launched as a programmatic dependent of the first launch: wait until that grid has finished and its
  // writes are visible (a no-op when launched the ordinary way).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  // Written by the first launch; volatile so that no read is repeated after the counters are reset.
  const unsigned long long packed = *static_cast<volatile unsigned long long*>(ws.big_packed);
  const auto medium_total = static_cast<std::int64_t>(*static_cast<volatile unsigned long long*>(ws.medium_count));
  const auto entries      = static_cast<std::int64_t>(packed >> chunk_bits);
  const auto chunks       = static_cast<std::int64_t>(packed & chunk_mask);
  if (chunks == 0 && medium_total == 0)
  {
    // Nothing was listed (no segment split, or only tiny and small ones): every counter is still zero,
    // so there is nothing to reset either, and a thousand same-address atomics are saved.
    return;
  }

  if (chunks > 0)
  {
    // Claims are not prefetched one batch ahead: measured, that hides one round trip per batch but
    // lengthens the tail (blocks hold claimed work while others run dry): 1 x 2^28 floats 3022 -> 2952 GB/s.
    while (true)
    {
      if (threadIdx.x == 0)
      {
        shared_batch =
            static_cast<std::int64_t>(atomicAdd(ws.chunk_cursor, static_cast<unsigned long long>(batch_chunks)));
      }
      __syncthreads();
      const std::int64_t batch = shared_batch;
      if (batch >= chunks)
      {
        break;
      }
      const std::int64_t batch_end = min64(chunks, batch + batch_chunks);
      if (warp == 0)
      {
        const std::int64_t entry = find_entry(ws.big_first_chunk, entries, batch);
        if (lane == 0)
        {
          shared_entry = entry;
        }
      }
      __syncthreads();
      // The pieces whose first chunk lies in [batch, batch_end): entry by entry from the one holding batch.
      for (std::int64_t entry = shared_entry; entry < entries; ++entry)
      {
        const std::int64_t entry_first = ws.big_first_chunk[entry];
        if (entry_first >= batch_end)
        {
          break;
        }
        const SegmentRef ref            = ws.big_list[entry];
        const std::int64_t s            = ref.segment;
        const std::int64_t a            = ref.begin;
        const std::int64_t b            = ref.end;
        const std::int64_t entry_chunks = (b - a + chunk - 1) / chunk;
        const std::int64_t pieces       = (entry_chunks + piece_chunks - 1) / piece_chunks;
        std::int64_t piece = batch <= entry_first ? 0 : (batch - entry_first + piece_chunks - 1) / piece_chunks;
        for (; piece < pieces && entry_first + piece * piece_chunks < batch_end; ++piece)
        {
          const std::int64_t first_chunk = piece * piece_chunks; // within the segment
          const std::int64_t last_chunk  = min64(entry_chunks, first_chunk + piece_chunks);
          T partial                      = ReduceOp::template identity<T>();
          for (std::int64_t k = first_chunk; k < last_chunk; ++k)
          {
            const std::int64_t chunk_begin = a + k * chunk;
            const std::int64_t chunk_end   = min64(b, chunk_begin + chunk);
            partial = op(partial, fold_range<block_threads, unroll>(in, chunk_begin, chunk_end, threadIdx.x, op));
          }
          partial = block_reduce<block_threads>(partial, op);
          if (pieces == 1)
          {
            if (threadIdx.x == 0)
            {
              out[s] = partial;
            }
          }
          else
          {
            if (threadIdx.x == 0)
            {
              ws.piece_slots[entry_first + first_chunk] = partial;
              __threadfence();
              const unsigned done = atomicAdd(ws.big_pieces_done + entry, 1u);
              shared_last         = done == static_cast<unsigned>(pieces - 1);
            }
            __syncthreads();
            if (shared_last) // every piece is in its slot: fold them in piece order
            {
              __threadfence();
              T total = ReduceOp::template identity<T>();
              for (std::int64_t q = threadIdx.x; q < pieces; q += block_threads)
              {
                const T value = *static_cast<volatile T*>(ws.piece_slots + entry_first + q * piece_chunks);
                total         = op(total, value);
              }
              total = block_reduce<block_threads>(total, op);
              if (threadIdx.x == 0)
              {
                out[s] = total;
              }
            }
          }
          __syncthreads(); // block_reduce's shared slots and shared_last are reused by the next piece
        }
      }
    }
  }

  const std::int64_t warp_id    = static_cast<std::int64_t>(blockIdx.x) * warps_per_block + warp;
  const std::int64_t warp_count = static_cast<std::int64_t>(gridDim.x) * warps_per_block;
  for (std::int64_t round = 0; warp_id + round * warp_count < medium_total; round += 32)
  {
    const std::int64_t item = warp_id + (round + lane) * warp_count;
    std::int64_t s = -1, a = 0, b = 0;
    if (item < medium_total)
    {
      const SegmentRef ref = ws.medium_list[item];
      s                    = ref.segment;
      a                    = ref.begin;
      b                    = ref.end;
    }
    for (int l = 0; l < 32; ++l)
    {
      const std::int64_t segment = __shfl_sync(full_mask, s, l);
      if (segment < 0) // items grow with l: the rest are past the list too
      {
        break;
      }
      const std::int64_t begin = __shfl_sync(full_mask, a, l);
      const std::int64_t end   = __shfl_sync(full_mask, b, l);
      T partial                = fold_range<32, unroll>(in, begin, end, lane, op);
      partial                  = warp_reduce(partial, op);
      if (lane == 0)
      {
        out[segment] = partial;
      }
    }
  }

  __syncthreads();
  if (threadIdx.x == 0)
  {
    __threadfence();
    if (atomicAdd(ws.blocks_done, 1u) == gridDim.x - 1) // every block has read the counters
    {
      *ws.medium_count = 0;
      *ws.big_packed   = 0;
      *ws.chunk_cursor = 0;
      *ws.blocks_done  = 0;
    }
  }
}

// Equal rows at least this many and this long take one block per row (see run()).
constexpr std::int64_t min_rows_for_block_per_row   = 1024;
constexpr std::int64_t min_length_for_block_per_row = 2048;
// Threads of a block that reduces one segment in the first launch: 256, or 512 when the segments are long
// on average (long_average_bytes or more). Measured on the H100 (offsets, float sum, GB/s, two sweeps of
// one run, CUB in brackets): 512 threads read 2048 x 2^18 at 3093-3101 (3092-3094) against 3074-3076
// with 256, and 2048 x 2^17 at 3071-3072 (3078-3084) against 3051-3053; but 2^16 x 4096 at 2970-2977
// against 3128-3132, and log-normal segments (3017 elements on average) at 2040 against 2693-2696. 128
// threads (an earlier run): 2^16 x 4096 3081 against 3111, log-normal 2842 against 2693, 2048 x 2^17
// 3028 against 3029. Fewer resident blocks of 256 threads (2 or 4 per SM) lost on every shape.
constexpr int block_per_segment_threads = 256;
constexpr int long_segment_threads      = 512;
constexpr std::int64_t long_average_bytes = std::int64_t{512} << 10;
// In the block-per-segment launch, a segment is split over the second launch's blocks only when it is
// longer than one piece (128 KiB) and than this many times the average length (see run_general()).
constexpr std::int64_t split_factor = 4;

// The second launch, reduce_big_and_medium over a persistent grid, as a programmatic dependent of the
// first: its blocks are scheduled while the first launch's last blocks still run (they call
// allow_dependent_launch() when they start) and wait in griddepcontrol.wait, so its launch latency is
// hidden behind the first launch's tail; stream order holds for everything after it. Measured on the
// H100 (offsets, float sum): +0.5% at 2^16 x 4096 (3111 against 3096 GB/s), +0.5% at 2048 x 2^17.
// Its grid is persistent: every block resident at once.
template <class T, class ReduceOp>
Status launch_second(const T* in, T* out, const Scratch<T>& scratch, cudaStream_t stream)
{
  constexpr auto kernel = reduce_big_and_medium<T, ReduceOp>;
  int blocks = 0, major = 0;
  REDU_TRY((resident_blocks<kernel, block_threads>(blocks)));
  REDU_TRY(compute_capability_major(major));
  cudaLaunchAttribute overlap{};
  overlap.id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim  = dim3(blocks);
  config.blockDim = dim3(block_threads);
  config.stream   = stream;
  config.attrs    = &overlap;
  config.numAttrs = major >= 9 ? 1 : 0; // programmatic dependent launch exists from sm_90 on
  REDU_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, in, out, scratch, ReduceOp{}));
  return Status::success();
}

// One block of Threads threads per segment (reduce_block_per_segment).
template <int Threads, class T, class ReduceOp, class Segments>
Status launch_block_per_segment(const T* in, T* out, Segments segs, std::int64_t segments, std::int64_t split_above,
                                const Scratch<T>& scratch, cudaStream_t stream)
{
  reduce_block_per_segment<Threads>
      <<<static_cast<unsigned>(segments), Threads, 0, stream>>>(in, out, segs, split_above, scratch, ReduceOp{});
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

// log2 of the row length in vectors when equal rows can take reduce_pow2_rows, -1 otherwise.
template <class T>
int pow2_row_vectors(const Problem& p)
{
  constexpr std::int64_t width = Vector16<T>::width;
  const std::int64_t length    = p.row_length();
  const std::int64_t vectors   = length / width;
  const bool aligned           = reinterpret_cast<std::uintptr_t>(p.input) % 16 == 0;
  if (!aligned || length % width != 0 || vectors < 1 || vectors > 32 * unroll || (vectors & (vectors - 1)) != 0)
  {
    return -1;
  }
  int log2 = 0;
  while ((std::int64_t{1} << log2) < vectors)
  {
    ++log2;
  }
  return log2;
}

class AdaptiveSegmented : public TypedReduction<AdaptiveSegmented>
{
public:
  AdaptiveSegmented()
    : TypedReduction({.name   = "segmented.adaptive",
                      .family = "segmented",
                      .source = "Lei Mao, CUDA Reduction (2024), batched and large-array sections, made adaptive",
                      .idea   = "a thread, 2 lanes, a warp or 128 KiB pieces over all blocks per segment, by length",
                      .kinds  = {Kind::batched, Kind::segmented},
                      .max_n  = max_elements_total,
                      .deterministic = true})
  {}

  // The general path's lists, whichever path run() takes (the choice also depends on the input's
  // alignment, which a workspace query need not know).
  template <class T, class ReduceOp>
  std::size_t workspace(const Problem& p) const
  {
    return layout<T>(p).bytes;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    const auto* in = static_cast<const T*>(p.input);
    auto* out      = static_cast<T*>(p.output);
    if (p.kind == Kind::batched)
    {
      const int log2_row_vectors = pow2_row_vectors<T>(p);
      if (log2_row_vectors >= 0)
      {
        int resident = 0;
        REDU_TRY((resident_blocks<reduce_pow2_rows<T, ReduceOp>, block_threads>(resident)));
        const std::int64_t tiles  = ((p.segments << log2_row_vectors) + 32 * unroll - 1) / (32 * unroll);
        const std::int64_t blocks = std::min<std::int64_t>(resident, (tiles + warps_per_block - 1) / warps_per_block);
        reduce_pow2_rows<<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(in, out, p.segments,
                                                                                      log2_row_vectors, ReduceOp{});
        REDU_CUDA_TRY(cudaPeekAtLastError());
        return Status::success();
      }
      // Thousands of long rows: one block per row already keeps every SM streaming, and it needs no
      // classification pass and no second launch. Rows that one block reads in a single round of loads
      // (<= 32 KiB) take reduce_block_per_segment, whose loads are all in flight at once; longer rows
      // Lei Mao's v2, whose strided loop streams them as well or better. Measured on the H100 (float sum,
      // GB/s, same run): 2^16 x 4096 3166 this way, 3121 as v2, CUB 3173; 2048 x 2^17 3085 / 3084 / 3092;
      // 2048 x 2^18 3099 / 3115 / 3117.
      if (p.segments >= min_rows_for_block_per_row && p.row_length() >= min_length_for_block_per_row)
      {
        if (p.row_length() <= elements<T>(chunk_vectors))
        {
          // No row is split (split_above is the row length), so the workspace lists stay untouched.
          return launch_block_per_segment<block_per_segment_threads, T, ReduceOp>(
              in, out, EqualRows{p.row_length()}, p.segments, p.row_length(), carve<T>(ws.data, layout<T>(p)), stream);
        }
        return leimao::launch_batched_v2<T, ReduceOp>(leimao::RowStore<T>{out}, in, p.segments, p.row_length(), p.n,
                                                      stream);
      }
      return run_general<T, ReduceOp>(p, ws, EqualRows{p.row_length()}, stream);
    }
    return run_general<T, ReduceOp>(p, ws, OffsetArray{p.offsets}, stream);
  }

private:
  template <class T, class ReduceOp, class Segments>
  static Status run_general(const Problem& p, Workspace ws, Segments segs, cudaStream_t stream)
  {
    const auto* in           = static_cast<const T*>(p.input);
    auto* out                = static_cast<T*>(p.output);
    const Scratch<T> scratch = carve<T>(ws.data, layout<T>(p));

    // Enough segments to fill the GPU with blocks, and long enough on average that a block per segment
    // streams (the average bounds the cost of a block given to a short one: at least 8 KiB read per
    // block): one block per segment, no classification. Measured on the H100, offsets of 2^16 x 4096
    // floats: 3090 GB/s this way, 2970 through classification (CUB: 3172).
    // Which segments are split instead: with a thousand or more segments the blocks of typical ones keep
    // the GPU busy and the block scheduler balances them, so only a segment far longer than the average
    // (split_factor times, and over one 128 KiB piece) would hold an SM after the rest are done. Splitting
    // every segment over 128 KiB, as this did before, sent all of 2048 x 2^17 floats through the second
    // launch's pieces: 2972 GB/s, against 3013 with a block each and CUB's 3077 (same run).
    // The second launch is what keeps this path ~1% behind CUB on such shapes even when nothing is
    // split (2^16 x 4096 floats, same run: 3162 GB/s without it, 3128 with it, CUB 3174). Tried and
    // dropped: one launch with helper blocks after the segment blocks, numbered by a ticket taken at block
    // start so that helpers wait only for running blocks. Without the second launch 2048 x 2^17 and
    // 2048 x 2^18 matched CUB, but the two atomics per block cost 17% at 2^16 x 4096 and a third of the
    // log-normal shape's speed, and the helpers' extra registers halved occupancy (NOTES.md beside this file).
    const std::int64_t average = p.n / p.segments; // segments > 0: redu::run returns before launching otherwise
    if (p.segments >= min_rows_for_block_per_row && average >= min_length_for_block_per_row)
    {
      const std::int64_t split_above = std::max(elements<T>(chunk_vectors * piece_chunks), split_factor * average);
      if (average * static_cast<std::int64_t>(sizeof(T)) >= long_average_bytes)
      {
        REDU_TRY((launch_block_per_segment<long_segment_threads, T, ReduceOp>(in, out, segs, p.segments, split_above,
                                                                             scratch, stream)));
      }
      else
      {
        REDU_TRY((launch_block_per_segment<block_per_segment_threads, T, ReduceOp>(in, out, segs, p.segments,
                                                                                  split_above, scratch, stream)));
      }
    }
    else
    {
      int resident = 0;
      REDU_TRY((resident_blocks<classify_and_reduce_small<T, ReduceOp, Segments>, block_threads>(resident)));
      const std::int64_t blocks = std::min<std::int64_t>(resident, (p.segments + block_threads - 1) / block_threads);
      classify_and_reduce_small<<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(in, out, segs, p.segments,
                                                                                             scratch, ReduceOp{});
      REDU_CUDA_TRY(cudaPeekAtLastError());
    }

    return launch_second<T, ReduceOp>(in, out, scratch, stream);
  }
};

REDU_REGISTER(AdaptiveSegmented);

} // namespace
} // namespace redu::segmented
