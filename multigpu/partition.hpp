// How work is split over G ranks. Host code plans with these, and the two-shot kernel computes the
// same ranges on the device, so both sides must agree to the element: one definition (REDU_HD).
#pragma once

#include "multigpu/host_device.hpp"

#include <cstdint>

namespace redu::multigpu
{

struct Range
{
  std::int64_t begin = 0;
  std::int64_t end   = 0;
  REDU_HD std::int64_t size() const { return end - begin; }
};

// n items over `parts` parts as evenly as possible: the first n % parts parts get one more. Every item
// in exactly one part, in order; sizes differ by at most one.
REDU_HD inline Range even_split(std::int64_t n, int parts, int part)
{
  const std::int64_t base  = n / parts;
  const std::int64_t extra = n % parts;
  const std::int64_t p     = part;
  const std::int64_t begin = p * base + (p < extra ? p : extra);
  return {begin, begin + base + (p < extra ? 1 : 0)};
}

// The reproducible sharded sum's global chunking. The array of n elements is cut into chunks of
// `chunk` elements (the last one shorter) whatever the GPU count: the chunk partials, and the ordered sum
// of them, are then the same bits on 1, 2 or 8 GPUs. Rank r owns the whole chunks
// [r * per_rank, min((r + 1) * per_rank, chunks)), per_rank = ceil(chunks / G): after an all-gather of
// per_rank slots from every rank, the first `chunks` slots are the chunk partials in chunk order (only
// the last ranks can own fewer chunks, so the padding lands at the end).
struct ChunkPlan
{
  std::int64_t n        = 0;
  std::int64_t chunk    = 0; // elements per chunk, a multiple of 4 (16-byte packs start every chunk aligned)
  std::int64_t chunks   = 0; // ceil(n / chunk): independent of the GPU count
  int world             = 1;
  std::int64_t per_rank = 0; // ceil(chunks / world): slots each rank contributes to the all-gather

  Range chunks_of(int rank) const
  {
    const std::int64_t begin = static_cast<std::int64_t>(rank) * per_rank;
    const std::int64_t end   = begin + per_rank;
    return {begin < chunks ? begin : chunks, end < chunks ? end : chunks};
  }
  Range elements_of(int rank) const
  {
    const Range c         = chunks_of(rank);
    const std::int64_t lo = c.begin * chunk;
    const std::int64_t hi = c.end * chunk;
    return {lo < n ? lo : n, hi < n ? hi : n};
  }
};

// chunk must be positive and a multiple of 4, world positive: the caller checks (make_chunk_plan's
// callers pass constants or checked options).
inline ChunkPlan make_chunk_plan(std::int64_t n, std::int64_t chunk, int world)
{
  ChunkPlan plan;
  plan.n        = n;
  plan.chunk    = chunk;
  plan.chunks   = (n + chunk - 1) / chunk;
  plan.world    = world;
  plan.per_rank = (plan.chunks + world - 1) / world;
  return plan;
}

} // namespace redu::multigpu
