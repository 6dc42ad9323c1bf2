// How Lei Mao's "Large Array Reduce Sum" reshapes one long array into a batch: the post's
// (batch, n) -> (batch * inner_batch_size, n / inner_batch_size), with batch = 1.
// Shared by the reshape-and-repeat driver (03) and the atomic finish (04).
#pragma once

#include "handwritten/leimao/batched_common.cuh"

#include <cstdint>

namespace redu::leimao
{

// inner_batch_size: 4096 rows of 256 threads is about four waves of an H100 (132 SMs x 8 resident
// blocks), enough that the last wave's imbalance costs little, and few enough partials that one more
// block finishes them.
constexpr std::int64_t reshape_rows = 4096;
// A row shorter than 8 elements per thread would spend more on the block's tree than on loading.
constexpr std::int64_t min_reshape_row_length = 8 * static_cast<std::int64_t>(threads_per_batch);

// The row length of the reshaped view of `count` elements: ceil(count / reshape_rows), but not shorter
// than min_reshape_row_length. The view then has ceil(count / row_length) <= reshape_rows rows, the last
// one possibly shorter (the ragged tail, which batched_reduce_v2 clips to the total).
inline std::int64_t reshape_row_length(std::int64_t count)
{
  const std::int64_t even_split = (count + reshape_rows - 1) / reshape_rows;
  return even_split > min_reshape_row_length ? even_split : min_reshape_row_length;
}

} // namespace redu::leimao
