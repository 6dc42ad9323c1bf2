// What the benchmark binary measures: one BenchCase per (implementation, type, op, shape), built only
// from the registry and the command-line options.
#pragma once

#include "options.hpp"

#include "common/contract/reduction.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace redu::bench
{

struct BenchCase
{
  const Reduction* impl = nullptr;
  DType dtype           = DType::f32;
  Op op                 = Op::sum;
  Kind kind             = Kind::full;
  std::string shape;    // "n:1048576", "2048x131072", "lognormal:65536"
  std::int64_t n        = 0;
  std::int64_t segments = 1;
  std::shared_ptr<const std::vector<std::int64_t>> offsets; // segmented only

  // "<kind>/<impl>/<dtype>/<op>/<shape>": the documented naming scheme.
  std::string name() const;
};

// Equal-row shapes at a constant total (rows, row length), the CUB baselines issue's sweep.
std::vector<std::pair<std::int64_t, std::int64_t>> equal_row_shapes(std::int64_t total);

// Rows of logits when sampling from a language model: {1, 8, 64, 512, 4096} x {32000, 128256, 151936}.
std::vector<std::pair<std::int64_t, std::int64_t>> sampling_shapes();

// Log-normal segment lengths (a fixed seed: the same shape every run) summing exactly to `total`.
std::vector<std::int64_t> lognormal_offsets(std::int64_t total);

// Every case the options select, in registry order.
std::vector<BenchCase> build_sweep(const Options& options);

} // namespace redu::bench
