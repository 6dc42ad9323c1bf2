// Where each segment of a problem starts, as CUB's segmented entry points take it: equal rows through an
// iterator of row starts (row i at i x length: no offsets array), variable segments through their
// offsets. Segment i ends where i + 1 begins, so one iterator gives both bounds (begin, begin + 1).
#pragma once

#include "common/contract/problem.hpp"

#include <cstdint>
#include <cuda_runtime_api.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace redu
{

// Row i of a batch starts at i * length.
struct RowStart
{
  std::int64_t length;
  __host__ __device__ std::int64_t operator()(std::int64_t row) const { return row * length; }
};

// Calls reduce(begin) with the problem's segment starts: row starts for Kind::batched, the offsets
// array otherwise. One call serves CUB's size query and its launch alike.
template <class Reduce> cudaError_t with_segment_begins(const Problem& p, Reduce reduce)
{
  if (p.kind == Kind::batched)
  {
    return reduce(
        thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), RowStart{p.row_length()}));
  }
  return reduce(p.offsets);
}

} // namespace redu
