// The push variant's mailboxes (one_shot_push.cu), every rank's as this GPU addresses it: 8-byte words,
// [parity 2][sender rank][words]. No barrier guards them: each word carries its own flag.
#pragma once

#include "multigpu/communicator.hpp"

#include <cstddef>
#include <cstdint>

namespace redu::multigpu
{

struct Mailboxes
{
  unsigned long long* at[max_ranks];
  std::int64_t words; // per sender and parity
  int rank;
  int* timed_out; // local
};

// The layout in one place: the bytes AllReduceBuffers::allocate asks for, the words per sender and parity
// the host reads back from an allocation, and the index of one word.
constexpr std::size_t mailbox_bytes(int world, std::int64_t words)
{
  return sizeof(unsigned long long) * 2 * static_cast<std::size_t>(world) * static_cast<std::size_t>(words);
}
constexpr std::int64_t mailbox_words(std::size_t bytes, int world)
{
  return static_cast<std::int64_t>(bytes / (sizeof(unsigned long long) * 2 * static_cast<std::size_t>(world)));
}
__host__ __device__ constexpr std::int64_t mailbox_index(int parity, int sender, int world, std::int64_t words,
                                                         std::int64_t word)
{
  return (static_cast<std::int64_t>(parity) * world + sender) * words + word;
}

} // namespace redu::multigpu
