// The workspace of the general path: four counters, the medium and big lists and the partial slots of
// split big segments, sized on the host from the problem (layout) and cut into typed pointers (carve).
#pragma once

#include "common/contract/problem.hpp"
#include "handwritten/segmented/segmented_shape.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace redu::segmented
{

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

} // namespace redu::segmented
