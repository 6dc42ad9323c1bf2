// The one interface every implementation (hand-written, CUB or Thrust) is reached through, and the
// registry that tests, benchmarks and notebooks enumerate.
#pragma once

#include "common/contract/problem.hpp"
#include "common/contract/requirements.hpp"
#include "common/contract/status.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace redu
{

class Reduction;

// What an implementation is for in the study.
enum class Role
{
  lesson,   // hand-written, following a document or teaching one step: tested, benchmarked
  baseline, // a library entry point (CUB, Thrust): tested, benchmarked
  exhibit,  // a published bug kept to be shown (racy or wrong): reached by name only, never in registry()
  exercise  // a course exercise (exercises/), in registry() only in a build with REDU_EXERCISES: tested, benchmarked
};

// How far an implementation's result bits are reproducible, for one (element type, operator), in CUB's
// words (cuda::execution::determinism):
//  - not_guaranteed: the same input may give other bits on the next run (float partials added in the
//    order blocks finish);
//  - run_to_run: the same input gives the same bits run after run on the same GPU, but the tree follows
//    the launch shape, which follows the GPU (SM count, occupancy), so another GPU may give other bits;
//  - gpu_to_gpu: the same bits on any GPU and whatever the launch shape.
// Tested as claimed: run_to_run by reruns with other work on the GPU in between, gpu_to_gpu also by
// several launch shapes where an implementation exposes them (tests/correctness_test.cpp,
// tests/reproducible_sum_test.cpp).
enum class Determinism
{
  not_guaranteed,
  run_to_run,
  gpu_to_gpu
};
const char* to_string(Determinism determinism);

using DeterminismRule = Determinism (*)(DType dtype, Op op);
constexpr bool is_float_sum(DType dtype, Op op)
{
  return is_floating(dtype) && (op == Op::sum || op == Op::sum_squares);
}
// Integer sums (exact, wrapping), integer min/max and argmin/argmax (the first occurrence wins) give the
// same bits in any order. Float min/max too, but for the sign of a zero result, which follows the tree.
constexpr bool order_free(DType dtype, Op op)
{
  return !is_floating(dtype) || op == Op::argmin || op == Op::argmax;
}
// A fixed combining tree whose shape comes from the launch: float sums and float min/max are run_to_run.
constexpr Determinism fixed_tree(DType dtype, Op op)
{
  return order_free(dtype, op) ? Determinism::gpu_to_gpu : Determinism::run_to_run;
}
// An atomic finish adds float partials in arrival order.
constexpr Determinism arrival_order_float_sums(DType dtype, Op op)
{
  return is_float_sum(dtype, op) ? Determinism::not_guaranteed : fixed_tree(dtype, op);
}
// Bits that depend on nothing but the input (an exact or reproducible accumulator).
constexpr Determinism input_only(DType, Op)
{
  return Determinism::gpu_to_gpu;
}

// A documented departure from the contract: the element types it happens for and why.
struct ContractDeparture
{
  std::vector<DType> dtypes;
  std::string why;
  bool applies_to(DType dtype) const;
};

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
  Role role          = Role::lesson;
  std::int64_t max_n = INT64_MAX; // largest total element count it handles
  // How reproducible its bits are, per (dtype, op) (Determinism above).
  DeterminismRule determinism = fixed_tree;
  // run() can be captured into a CUDA graph: it neither synchronises nor allocates nor copies from
  // pageable host memory. Tested by capture and replay for every implementation that claims it.
  bool graph_capture = true;
  // Float sums only: how many partials of one output the implementation adds in arrival order (an
  // atomic finish) for this problem; each adds one rounding to the error bound (sum_error_factor).
  // nullptr: none, every partial is combined in a fixed tree.
  std::int64_t (*unordered_partials)(const Problem& problem) = nullptr;
  // Float sums only: an error factor of its own, for implementations that are not a plain tree (a
  // compensated or an exact sum), for `count` terms of `dtype`; nullptr: the tree's (sum_error_factor).
  double (*error_factor)(DType dtype, std::int64_t count) = nullptr;
  // Float sums only: the result is the exact sum rounded once (to nearest, ties to even) into the
  // output type, whatever the data and the order: the bits depend on the input alone, and a sum whose
  // partial sums would overflow still returns the finite exact sum rounded. Tested bit for bit against
  // the exact host sum (tests/contract_rules_test.cpp).
  bool correctly_rounded = false;
  // Library baselines only: where the library's float sums depart from the contract (problem.hpp), for
  // which element types, and why; none by default. The shared tests skip exactly that check there and
  // print the reason; tests/library_departures_test.cpp shows the departure still happens, so a library
  // release that fixes it fails there, and the declaration goes.
  ContractDeparture subnormal_sum_departure;    // sums of input that is all subnormal (or all tiny)
  ContractDeparture nonfinite_sum_departure;    // sums of input that holds an infinity
  ContractDeparture top_of_range_sum_departure; // sums whose terms reach the top of the type's range
  // argmin/argmax of a row whose every element is the infinity that loses (argmax of all -inf): the
  // contract wants that infinity at index 0.
  ContractDeparture infinite_row_arg_departure;
  // What it needs from the GPU and from the code compiled for it (requirements.hpp): where either falls
  // short it is unavailable (available()), with the reason, and validate() refuses it.
  Requirements needs;

  bool supports(DType dtype) const;
  bool supports(Op op) const;
  bool supports(Kind kind) const;
  Determinism determinism_of(DType dtype, Op op) const { return determinism(dtype, op); }
  // Bit-identical reruns at least (run_to_run or gpu_to_gpu).
  bool is_deterministic(DType dtype, Op op) const { return determinism(dtype, op) != Determinism::not_guaranteed; }
};

// The workspace's alignment: what cudaMalloc and CUB's allocators give. Kernels keep 8- and 16-byte
// words (tickets, partials, vector stores) at the workspace's start; a less aligned workspace is refused
// by prepare() and run() with a clear error, before anything is launched.
inline constexpr std::size_t workspace_alignment = 256;

// Checks a problem against the contract and against what `impl` declares; launches nothing, and
// allocates nothing unless it refuses. Device-side contents (segment offsets) are checked by run().
// Last, whether `impl` can run on the current device with this binary (Info::needs, check_available):
// cudaErrorNotSupported with the reason where it cannot.
Status validate(const Reduction& impl, const Problem& problem);

// Validated entry point for sizing: a rejected problem returns a clear error.
Status workspace_bytes(const Reduction& impl, const Problem& problem, std::size_t& bytes);

class Call;
Status prepare(const Reduction& impl, const Problem& problem, Workspace workspace, Call& call);

// The two hooks an implementation provides, under the names its callers use: workspace_bytes and
// run. They are private: callers reach them through redu::workspace_bytes, redu::prepare and
// redu::run, which validate the problem first, so an implementation may assume a supported,
// well-formed problem.
class Reduction
{
public:
  virtual ~Reduction() = default;
  virtual const Info& info() const = 0;

private:
  virtual Status workspace_bytes(const Problem& problem, std::size_t& bytes) const               = 0;
  virtual Status run(const Problem& problem, Workspace workspace, cudaStream_t stream) const = 0;

  friend Status workspace_bytes(const Reduction& impl, const Problem& problem, std::size_t& bytes);
  friend Status prepare(const Reduction& impl, const Problem& problem, Workspace workspace, Call& call);
  friend class Call;
};

// Segment offsets are device data: checking them (check_offsets in common/offsets_check.hpp) costs a
// read of 8 bytes per segment, a small kernel and a stream synchronisation. run() does it by default;
// a caller that has already checked the same offsets (a benchmark timing repeated calls) may trust them.
enum class OffsetsCheck
{
  verify,
  trust
};

// A problem validated once against an implementation and a workspace (types, shapes, pointers,
// alignment, overlaps, workspace size): run() then launches it with no further checks and no workspace
// query, so a benchmark's timed window holds the launch alone. Made by prepare(); segment offsets are
// trusted (check them first, or use redu::run).
class Call
{
public:
  // Launches the prepared problem on `stream`. While the stream captures a CUDA graph, an
  // implementation that cannot be captured is refused (Info::graph_capture).
  Status run(cudaStream_t stream) const;
  const Problem& problem() const { return problem_; }

private:
  const Reduction* impl_ = nullptr;
  Problem problem_;
  Workspace workspace_;
  friend Status prepare(const Reduction& impl, const Problem& problem, Workspace workspace, Call& call);
};

// Validates, checks the segment offsets unless told to trust them, and launches: a rejected problem
// returns a clear error and touches no memory.
Status run(const Reduction& impl, const Problem& problem, Workspace workspace, cudaStream_t stream,
           OffsetsCheck offsets_check = OffsetsCheck::verify);

// The stated accuracy of a float sum or sum_squares of `count` terms computed by `impl` for `problem`:
// |result - exact| <= factor * u * sum|x_i| (u: unit roundoff of the element type). A balanced tree of
// depth ceil(log2 count) + 1 has the first-order bound depth * u * sum|x|; GPU trees have short
// per-thread chains at their leaves, which the factor 2 covers; an implementation that adds partials in
// arrival order adds one rounding per partial (Info::unordered_partials).
double sum_error_factor(const Reduction& impl, const Problem& problem, std::int64_t count);

// Registry of lessons and baselines (and exercises, in a build that has them), ordered by name, stable
// across runs; exhibits apart. find()
// looks in both. Which baselines a build registers depends on the CCCL it was built against (CCCL's
// version decides which entry points exist): a baseline that this build's CCCL lacks is not registered
// but listed by absent_from_build(), with the reason, so listings can say what is missing and why.
const std::vector<const Reduction*>& registry();
const std::vector<const Reduction*>& exhibits();
const Reduction* find(const std::string& name);
bool register_reduction(std::unique_ptr<Reduction> impl);

struct AbsentReduction
{
  std::string name;
  std::string why; // e.g. "needs CCCL 3.5 (this build: 3.0.1)"
};
const std::vector<AbsentReduction>& absent_from_build();
bool register_absent(AbsentReduction absent);

} // namespace redu

// One line next to an implementation registers it. The implementations are linked as an object
// library, so every registration's static initialiser is kept.
#define REDU_REGISTER(Type) \
  static const bool redu_registered_##Type = ::redu::register_reduction(std::make_unique<Type>())

// In place of REDU_REGISTER where this build's CCCL lacks what an implementation needs.
#define REDU_REGISTER_ABSENT(Tag, name, why) \
  static const bool redu_absent_##Tag = ::redu::register_absent(::redu::AbsentReduction{name, why})
