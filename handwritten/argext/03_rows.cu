// Argext family, lesson 3: argmin/argmax per row (batched) and per segment: (value, index) pairs, and
// lesson 2's 64-bit keys where few long rows are split.
//
// The shape most used in practice: a language model's next token is the argmax of one row of logits per
// sequence, 1 to 4096 rows of 32000-151936 floats (128-600 KB a row). Three launches, chosen on the host
// by the (average) row length and the number of rows (constants and rules: argext_shape.cuh):
//  - short rows (<= 512 elements; many equal rows up to the GPU's "argext.equal_row_warp_max", 512 by
//    default): a group of 1 to 32 lanes per row, as few as hold the row in one round of loads
//    (lanes_per_row), or a warp that takes several; the group's pairs meet in group_best, its first lane
//    writes. A block per such row would leave most of its threads without a load, and so would a warp
//    per row of 8.
//  - long rows, many of them: one block per row (block_best).
//  - long rows, fewer than SMs (1 or 8 sampling rows): one block per row would use 1 or 8 SMs of 132, so
//    each row is cut into chunks of >= 16 KiB, one block each, and a per-row ticket (last_arrival) elects
//    the row's last block to finish the row. 8 rows of 151936 floats: 38 blocks per row, 304 in all,
//    against 8. The finish is lesson 2's for 32-bit types (split_rows_key64: each block's key into the
//    row's word with one atomicMax, the last block reads it back), lesson 1's otherwise (split_rows: the
//    blocks' pairs written, the last block folds them again).
// Every index is relative to its row's start (the fold's `origin`), as the contract asks; an empty row or
// segment leaves its pair at (identity, none) -> identity and -1. Ties, +0/-0 and the element's own
// value: the pair rule (arg_pair.cuh), and the key's (arg_key64.cuh). Deterministic: the pair order and
// the key order are both total (value, then index).
// Bytes: the input once, the offsets once (segmented), 12-16 bytes per output; the split adds 12-16
// bytes per block written and re-read (pairs) or 8 bytes of atomics per block (keys).
// Requirements: workspace zero-filled once by the caller (the split's tickets and words, left zero by
// each row's last block); calls that share it stream-ordered.
// Source: CUB's DeviceSegmentedReduce::ArgMax (a block per segment) and its fixed-size dispatch (a
// warp or a block per row by length), with lesson 1's last-block finish for rows too long for one block.
#include "common/contract/typed_reduction.cuh"
#include "common/device/grid_ticket.cuh"
#include "handwritten/argext/arg_fold.cuh"
#include "handwritten/argext/arg_key64.cuh"
#include "handwritten/argext/argext_shape.cuh"
#include "handwritten/argext/row_bounds.cuh"

#include <algorithm>
#include <type_traits>

namespace redu::argext
{
namespace
{

// Grids of the group and block launches loop over rows beyond this many blocks.
constexpr std::int64_t rows_grid_cap = std::int64_t{1} << 20;

// Workspace of the split launches: split_max_rows tickets, split_max_rows key words (keys), then
// split_max_blocks indices and values (pairs). Tickets and words are zero between launches; the pairs'
// places are written before they are read.
constexpr std::size_t split_words_offset   = split_max_rows * sizeof(unsigned);
constexpr std::size_t split_indices_offset = split_words_offset + split_max_rows * sizeof(unsigned long long);
static_assert(split_words_offset % 8 == 0, "the words are 8-byte aligned");

// Short rows: a group of Lanes lanes per row (lanes_per_row in argext_shape.cuh), block_threads / Lanes
// rows per block and trip. The trip count depends on the block only, so every lane reaches group_best's
// full-warp shuffles; a group past the last row folds an empty range and writes nothing.
template <int Lanes, class T, class ArgOp, class Rows>
__global__ void __launch_bounds__(block_threads)
    group_per_row(const T* __restrict__ in, std::int64_t rows, Rows bounds, T* __restrict__ out,
                  std::int64_t* __restrict__ out_index, bool evict_first)
{
  constexpr int rows_per_block = block_threads / Lanes;
  const int rank               = threadIdx.x % Lanes;
  const int group              = threadIdx.x / Lanes;
  const std::int64_t stride    = static_cast<std::int64_t>(gridDim.x) * rows_per_block;
  const StreamingLoad load(evict_first);
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block; first < rows; first += stride)
  {
    const std::int64_t r = first + group;
    const RowBounds row  = r < rows ? bounds(r) : RowBounds{0, 0};
    ArgPair<T> best      = fold_range_pair<Lanes, row_unroll, ArgOp>(in, row.begin, row.end, row.begin, rank, load);
    best                 = group_best<Lanes, ArgOp>(best);
    if (rank == 0 && r < rows)
    {
      write_arg_result(best, out + r, out_index + r);
    }
  }
}

// The launch of group_per_row with the lane count as a template argument.
template <int Lanes, class T, class ArgOp, class Rows>
Status launch_groups(const T* in, std::int64_t rows, Rows bounds, T* out, std::int64_t* out_index, bool evict_first,
                     cudaStream_t stream)
{
  constexpr int rows_per_block = block_threads / Lanes;
  const std::int64_t blocks    = std::min((rows + rows_per_block - 1) / rows_per_block, rows_grid_cap);
  group_per_row<Lanes, T, ArgOp><<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(in, rows, bounds, out,
                                                                                             out_index, evict_first);
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

template <class T, class ArgOp, class Rows>
__global__ void __launch_bounds__(block_threads)
    block_per_row(const T* __restrict__ in, std::int64_t rows, Rows bounds, T* __restrict__ out,
                  std::int64_t* __restrict__ out_index, bool evict_first)
{
  const StreamingLoad load(evict_first);
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x)
  {
    const RowBounds row = bounds(r);
    ArgPair<T> best =
        fold_range_pair<block_threads, row_unroll, ArgOp>(in, row.begin, row.end, row.begin, threadIdx.x, load);
    best = block_best<block_threads, ArgOp>(best);
    if (threadIdx.x == 0)
    {
      write_arg_result(best, out + r, out_index + r);
    }
    __syncthreads(); // the next row's block_best reuses the shared slots
  }
}

// The split launches' grid: gridDim.x blocks per row, gridDim.y rows. Block c of a row folds the row's
// c-th chunk; chunks are a whole number of 16-byte packs long, so only the row's own misalignment makes
// heads.
template <class T> __device__ __forceinline__ RowBounds chunk_of_row(const RowBounds& row)
{
  const std::int64_t per_row = gridDim.x;
  std::int64_t chunk         = (row.end - row.begin + per_row - 1) / per_row;
  chunk                      = (chunk + pack_size<T> - 1) / pack_size<T> * pack_size<T>;
  const std::int64_t begin   = row.begin + blockIdx.x * chunk < row.end ? row.begin + blockIdx.x * chunk : row.end;
  return {begin, begin + chunk < row.end ? begin + chunk : row.end};
}

// Split rows finished with pairs (lesson 1's finish per row): any element type.
template <class T, class ArgOp, class Rows>
__global__ void __launch_bounds__(block_threads)
    split_rows(const T* __restrict__ in, Rows bounds, T* __restrict__ out, std::int64_t* __restrict__ out_index,
               unsigned* tickets, std::int64_t* partial_index, T* partial_value, bool evict_first)
{
  const std::int64_t r       = blockIdx.y;
  const std::int64_t per_row = gridDim.x;
  const RowBounds row        = bounds(r);
  const RowBounds chunk      = chunk_of_row<T>(row);
  ArgPair<T> best            = fold_range_pair<block_threads, row_unroll, ArgOp>(in, chunk.begin, chunk.end, row.begin,
                                                                      threadIdx.x, StreamingLoad(evict_first));
  best                       = block_best<block_threads, ArgOp>(best);

  const std::int64_t slot = r * per_row + blockIdx.x;
  const bool last         = block_arrives_last(tickets + r, gridDim.x, [&] { // the row's winner acquires all
    partial_index[slot] = best.index;
    partial_value[slot] = best.value;
  });
  if (!last)
  {
    return;
  }
  best = no_element<ArgOp, T>();
  for (std::int64_t c = threadIdx.x; c < per_row; c += block_threads)
  {
    best = best_of<ArgOp>(best,
                          ArgPair<T>{__ldcg(partial_value + r * per_row + c), __ldcg(partial_index + r * per_row + c)});
  }
  best = block_best<block_threads, ArgOp>(best);
  if (threadIdx.x == 0)
  {
    write_arg_result(best, out + r, out_index + r);
    tickets[r] = 0;
  }
}

// Split rows finished with keys (lesson 2's finish per row): 32-bit types, rows shorter than 2^32 - 1.
// Each block folds its chunk into one 64-bit key (arg_key64.cuh), thread 0 adds it to the row's word with
// one atomicMax and takes the row's ticket; the last block reads and clears the word in one atomicExch
// and writes the winner. Against split_rows the last block neither re-reads the blocks' pairs nor runs a
// second block-wide fold (two __syncthreads and an L2 round trip of its critical path), and the other
// blocks write one 8-byte atomic instead of a 12-byte pair.
// Why: on a whole array lesson 2's finish costs about 1.8 us less than lesson 1's, so the sampling
// shapes' 1 to 64 rows, which a block per chunk splits, should gain as much. Measured:
// handwritten/modern/DESIGN.md.
template <class T, class ArgOp, class Rows>
__global__ void __launch_bounds__(block_threads)
    split_rows_key64(const T* __restrict__ in, Rows bounds, T* __restrict__ out, std::int64_t* __restrict__ out_index,
                     unsigned* tickets, unsigned long long* words, bool evict_first)
{
  const std::int64_t r  = blockIdx.y;
  const RowBounds row   = bounds(r);
  const RowBounds chunk = chunk_of_row<T>(row);
  Key64Best<ArgOp, T> acc;
  fold_range_arg<block_threads, row_unroll>(in, chunk.begin, chunk.end, row.begin, threadIdx.x,
                                            StreamingLoad(evict_first), acc);
  unsigned long long key = block_max_key<block_threads>(acc.best);
  if (threadIdx.x != 0)
  {
    return;
  }
  atomicMax(words + r, key);
  if (!last_arrival(tickets + r, gridDim.x)) // releases this block's atomic; the winner acquires the row's
  {
    return;
  }
  key        = atomicExch(words + r, 0ull); // read and clear: no other block of this launch touches it
  tickets[r] = 0;
  write_key64_result<ArgOp>(key, in + row.begin, out + r, out_index + r);
}

// A split launch of Kernel, if the rows are few and long enough for more than one block each
// (split_blocks_per_row, with Kernel's own resident blocks); `launched` says whether it was.
template <auto Kernel, class T, class... Args>
Status launch_split_grid(std::int64_t rows, std::int64_t average, int sms, cudaStream_t stream, bool& launched,
                         Args... args)
{
  int resident = 0;
  REDU_TRY((resident_blocks<Kernel, block_threads>(resident)));
  const std::int64_t per_row = split_blocks_per_row<T>(rows, average, sms, resident);
  launched                   = per_row > 1;
  if (launched)
  {
    const dim3 grid(static_cast<unsigned>(per_row), static_cast<unsigned>(rows));
    Kernel<<<grid, block_threads, 0, stream>>>(args...);
    REDU_CUDA_TRY(cudaPeekAtLastError());
  }
  return Status::success();
}

// Few long rows: split with keys where the type and length allow, with pairs otherwise.
template <class T, class ArgOp, class Bounds>
Status launch_split(const T* in, std::int64_t n, std::int64_t rows, std::int64_t average, Bounds bounds, T* out,
                    std::int64_t* out_index, Workspace ws, int sms, bool evict_first, cudaStream_t stream,
                    bool& launched)
{
  auto* base    = static_cast<unsigned char*>(ws.data);
  auto* tickets = reinterpret_cast<unsigned*>(base);
  if constexpr (has_key64<T>)
  {
    if (n <= key64_max_n) // every row's indices fit the key's 32 bits
    {
      auto* words = reinterpret_cast<unsigned long long*>(base + split_words_offset);
      return launch_split_grid<split_rows_key64<T, ArgOp, Bounds>, T>(rows, average, sms, stream, launched, in, bounds,
                                                                      out, out_index, tickets, words, evict_first);
    }
  }
  auto* partial_index = reinterpret_cast<std::int64_t*>(base + split_indices_offset);
  auto* partial_value = reinterpret_cast<T*>(partial_index + split_max_blocks);
  return launch_split_grid<split_rows<T, ArgOp, Bounds>, T>(rows, average, sms, stream, launched, in, bounds, out,
                                                            out_index, tickets, partial_index, partial_value,
                                                            evict_first);
}

class Rows : public TypedReduction<Rows, AllTypes, OpList<ArgMinOp, ArgMaxOp>>
{
public:
  Rows()
    : TypedReduction({.name   = "argext.rows",
                      .family = "argext",
                      .source = "CUB DeviceSegmentedReduce::ArgMax shapes (warp/block per row) + the last-block finish",
                      .idea   = "argmax per row: a few lanes per short row, a block per long row, split rows when few",
                      .kinds  = {Kind::batched, Kind::segmented},
                      .needs  = {.optional = {Feature::l2_cache_hints}}})
  {}

  template <class T, class ArgOp> std::size_t workspace_bytes(const Problem&) const
  {
    return split_indices_offset + split_max_blocks * (sizeof(std::int64_t) + sizeof(T));
  }

  template <class T, class ArgOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    if (p.segments == 0)
    {
      return Status::success(); // no rows, nothing to write (n is 0 too)
    }
    if (p.kind == Kind::batched)
    {
      return launch<T, ArgOp>(p, ws, EqualRows{p.row_length()}, stream);
    }
    return launch<T, ArgOp>(p, ws, OffsetRows{p.offsets}, stream);
  }

private:
  template <class T, class ArgOp, class Bounds>
  static Status launch(const Problem& p, Workspace ws, Bounds bounds, cudaStream_t stream)
  {
    const auto* in             = static_cast<const T*>(p.input);
    auto* out                  = static_cast<T*>(p.output);
    const std::int64_t rows    = p.segments;
    const std::int64_t average = p.n / rows;
    bool evict_first           = false;
    REDU_TRY(input_evict_first<T>(p.n, evict_first));
    int sms = 0;
    REDU_TRY(multiprocessors(sms));
    // Many equal rows: up to this GPU's "argext.equal_row_warp_max" (by default warp_row_max_length).
    std::int64_t warp_max = warp_row_max_length;
    if (std::is_same_v<Bounds, EqualRows> && rows >= warp_rows_per_sm * sms)
    {
      int equal_max = 0;
      REDU_TRY(equal_row_warp_max(equal_max));
      warp_max = equal_max;
    }
    if (average <= warp_max)
    {
      switch (lanes_per_row<T>(average))
      {
      case 1: return launch_groups<1, T, ArgOp>(in, rows, bounds, out, p.indices, evict_first, stream);
      case 2: return launch_groups<2, T, ArgOp>(in, rows, bounds, out, p.indices, evict_first, stream);
      case 4: return launch_groups<4, T, ArgOp>(in, rows, bounds, out, p.indices, evict_first, stream);
      case 8: return launch_groups<8, T, ArgOp>(in, rows, bounds, out, p.indices, evict_first, stream);
      case 16: return launch_groups<16, T, ArgOp>(in, rows, bounds, out, p.indices, evict_first, stream);
      default: return launch_groups<32, T, ArgOp>(in, rows, bounds, out, p.indices, evict_first, stream);
      }
    }
    bool split = false;
    REDU_TRY(
        (launch_split<T, ArgOp>(in, p.n, rows, average, bounds, out, p.indices, ws, sms, evict_first, stream, split)));
    if (split)
    {
      return Status::success();
    }
    const std::int64_t blocks = std::min(rows, rows_grid_cap);
    block_per_row<T, ArgOp><<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(in, rows, bounds, out,
                                                                                        p.indices, evict_first);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(Rows);

} // namespace
} // namespace redu::argext
