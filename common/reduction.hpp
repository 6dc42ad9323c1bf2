// The one interface every implementation (hand-written, CUB or Thrust) is reached through, and the
// registry that tests, benchmarks and notebooks enumerate.
#pragma once

#include "problem.hpp"
#include "status.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace redu
{

// What an implementation is and what it supports. Tests and benchmarks are generated from this.
struct Info
{
  std::string name;   // unique, "family.variant", e.g. "harris.reduce2" or "cub.device_reduce"
  std::string family; // "cub", "thrust", "harris", "leimao", "moderngpu", "modern", ...
  std::string source; // the document and section it follows, or the library entry point
  std::string idea;   // one line: what this implementation teaches
  std::vector<DType> dtypes;
  std::vector<Op> ops;
  std::vector<Kind> kinds;
  std::int64_t max_n = INT64_MAX; // largest total element count it handles
  bool deterministic = true;      // bit-identical results for identical input, run to run
  bool benchmarked   = true;      // part of the default benchmark sweep
  // run() can be captured into a CUDA graph: it neither synchronises nor allocates nor copies from
  // pageable host memory. Tested by capture and replay for every implementation that claims it.
  bool graph_capture = true;
  // Float sums only: how many partials of one output the implementation adds in arrival order (an
  // atomic finish) for this problem; each adds one rounding to the error bound (sum_error_factor).
  // nullptr: none, every partial is combined in a fixed tree.
  std::int64_t (*unordered_partials)(const Problem& problem) = nullptr;

  bool supports(DType dtype) const;
  bool supports(Op op) const;
  bool supports(Kind kind) const;
};

class Reduction
{
public:
  virtual ~Reduction() = default;
  virtual const Info& info() const = 0;

  // Implementation hooks. Callers use redu::workspace_bytes / redu::run below, which validate the
  // problem first, so these may assume a supported, well-formed problem.
  virtual Status query_workspace(const Problem& problem, std::size_t& bytes) const = 0;
  virtual Status launch(const Problem& problem, Workspace workspace, cudaStream_t stream) const = 0;
};

// Checks a problem against the contract and against what `impl` declares; launches nothing.
// Device-side contents (segment offsets) are checked by run(), see OffsetsCheck.
Status validate(const Reduction& impl, const Problem& problem);

// Segment offsets are device data: checking them (check_offsets in common/offsets_check.hpp) costs a
// read of 8 bytes per segment, a small kernel and a stream synchronisation. run() does it by default;
// a caller that has already checked the same offsets (a benchmark timing repeated calls) may trust them.
enum class OffsetsCheck
{
  verify,
  trust
};

// Validated entry points: a rejected problem returns a clear error and touches no memory.
Status workspace_bytes(const Reduction& impl, const Problem& problem, std::size_t& bytes);
Status run(const Reduction& impl, const Problem& problem, Workspace workspace, cudaStream_t stream,
           OffsetsCheck offsets_check = OffsetsCheck::verify);

// The stated accuracy of a float sum or sum_squares of `count` terms computed by `impl` for `problem`:
// |result - exact| <= factor * u * sum|x_i| (u: unit roundoff of the element type). A balanced tree of
// depth ceil(log2 count) + 1 has the first-order bound depth * u * sum|x|; GPU trees have short
// per-thread chains at their leaves, which the factor 2 covers; an implementation that adds partials in
// arrival order adds one rounding per partial (Info::unordered_partials).
double sum_error_factor(const Reduction& impl, const Problem& problem, std::int64_t count);

// Registry. Order is by name, stable across runs.
const std::vector<const Reduction*>& registry();
const Reduction* find(const std::string& name);
bool register_reduction(std::unique_ptr<Reduction> impl);

} // namespace redu

// One line next to an implementation registers it. The implementations are linked as an object
// library, so every registration's static initialiser is kept.
#define REDU_REGISTER(Type) \
  static const bool redu_registered_##Type = ::redu::register_reduction(std::make_unique<Type>())
