// The push variant's mailboxes (one_shot_push.cu), every rank's as this GPU addresses it: 8-byte words,
// [parity 2][sender rank][words]. No barrier guards them: each word carries its own flag.
#pragma once

#include "multigpu/communicator.hpp"

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

} // namespace redu::multigpu
