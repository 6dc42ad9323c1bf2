// The contract lets one workspace serve any sequence of stream-ordered calls of one implementation on
// different problems (common/contract/problem.hpp). Here, per implementation and kind: one workspace, sized for
// the largest problem and zero-filled once, serves a sequence of problems of alternating element types
// and operators, sizes that fall and rise again and varying segment counts, enqueued back to back on one
// stream with no synchronisation in between; then the same sequence again in reverse order. Every output
// is checked. (An earlier segmented.adaptive lost an output here: its per-segment counters landed where a
// previous problem's lists had left data.)
#include "support/cases.hpp"
#include "support/device_problem.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/run_helpers.hpp"
#include "support/shapes.hpp"

#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>

namespace redu::test
{
namespace
{

// Shapes in the order the sequence visits them: large, down to empty, up again.
std::vector<Shape> reuse_shapes(Kind kind)
{
  std::vector<Shape> shapes;
  if (kind == Kind::full)
  {
    for (std::int64_t n : {(std::int64_t{1} << 22) + 3, std::int64_t{70001}, std::int64_t{1000}, std::int64_t{0},
                           std::int64_t{65537}, std::int64_t{5}, (std::int64_t{1} << 20) + 1})
    {
      shapes.push_back({"n=" + std::to_string(n), n, 1, {}});
    }
    return shapes;
  }
  if (kind == Kind::batched)
  {
    for (auto [rows, length] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, (1 << 22) + 3}, {3, 70001}, {2048, 256}, {0, 0}, {100000, 3}, {7, 333}, {1024, 4099}})
    {
      shapes.push_back({std::to_string(rows) + "x" + std::to_string(length), rows * length, rows, {}});
    }
    return shapes;
  }
  std::vector<std::int64_t> many_long(1100, 4099);
  many_long[17] = (1 << 20) + 9; // split over several blocks
  shapes.push_back(segments_from_lengths("one-huge", {(1 << 22) + 3}));
  shapes.push_back(segments_from_lengths("three-one-long", {5, 70001, 0}));
  shapes.push_back(segments_from_lengths("many-long-one-huge", many_long));
  shapes.push_back(segments_from_lengths("none", {}));
  shapes.push_back(segments_from_lengths("medium-and-big", {20000, 0, 300000, 3, 1 << 18, 9000}));
  shapes.push_back(segments_from_lengths("three-one-long-again", {70001, 7, 65537}));
  return shapes;
}

// One enqueued problem: its host input, the case it runs and its buffers (no workspace of its own).
struct Enqueued
{
  Shape shape;
  DType dtype;
  Op op;
  std::vector<char> host_values; // the input's bytes
  DeviceProblem device;
};

template <class T>
void prepare(Enqueued& call, Kind kind, std::mt19937_64& rng)
{
  const std::vector<T> values = random_values<T>(call.shape.n, call.op, rng);
  call.host_values.assign(reinterpret_cast<const char*>(values.data()),
                          reinterpret_cast<const char*>(values.data() + values.size()));
  ASSERT_OK(make_device_problem(kind, call.op, call.shape, values, nullptr, call.device));
}

template <class T>
void expect_results(const Reduction& impl, const Enqueued& call, const char* pass)
{
  SCOPED_TRACE(std::string(pass) + ": " + call.shape.label + " " + to_string(call.dtype) + " " + to_string(call.op));
  const auto* first = reinterpret_cast<const T*>(call.host_values.data());
  const std::vector<T> values(first, first + call.shape.n);
  std::vector<long double> got; // in the output type (f32 for a half sum), widened
  std::vector<std::int64_t> got_indices;
  ASSERT_OK(download_outputs(call.device, got));
  ASSERT_OK(download(call.device.indices, got_indices));
  int failures = 0;
  for (std::int64_t s = 0; s < call.shape.segments; ++s)
  {
    const Kind kind           = call.device.problem.kind;
    const std::int64_t begin  = segment_begin(call.shape, kind, s);
    const std::int64_t end    = segment_end(call.shape, kind, s);
    const Reference ref       = reference(values, begin, end, call.op);
    const long double value   = got[s];
    const long double tol = tolerance<T>(ref, call.op, sum_error_factor(impl, call.device.problem, ref.count));
    const bool ok = !std::isnan(value) && (value == ref.value || std::fabs(value - ref.value) <= tol)
                 && (!is_arg(call.op) || got_indices[s] == ref.index);
    if (!ok && ++failures <= 3)
    {
      ADD_FAILURE() << "output " << s << " [" << begin << ", " << end << "): got " << static_cast<double>(value)
                    << ", expected " << static_cast<double>(ref.value);
    }
  }
  EXPECT_EQ(failures, 0);
}

class WorkspaceReuse : public testing::TestWithParam<ImplKind>
{};

TEST_P(WorkspaceReuse, AnySequenceOfProblemsSharesOneWorkspace)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  const auto [impl, kind] = GetParam();
  const Info& info        = impl->info();
  std::mt19937_64 rng(std::random_device{}());

  // Alternate (dtype, op) pairs from call to call, every declared pair in turn.
  std::vector<std::pair<DType, Op>> combos;
  for (Op op : info.ops)
  {
    for (DType dtype : info.dtypes)
    {
      combos.push_back({dtype, op});
    }
  }
  std::vector<std::unique_ptr<Enqueued>> calls;
  std::size_t largest = 0;
  std::size_t k       = 0;
  for (const Shape& shape : reuse_shapes(kind))
  {
    if (shape.n > info.max_n || shape.n > max_test_n())
    {
      continue;
    }
    for (int repeat = 0; repeat < 2; ++repeat, ++k) // two problems of different type and operator per shape
    {
      auto call   = std::make_unique<Enqueued>();
      call->shape = shape;
      std::tie(call->dtype, call->op) = combos[(k * 5 + 1) % combos.size()];
      if (shape.label == "three-one-long" && repeat == 0 && info.supports(DType::i64) && info.supports(Op::sum))
      {
        std::tie(call->dtype, call->op) = std::pair{DType::i64, Op::sum}; // the independent check's failing call
      }
      visit_dtype(call->dtype, [&](auto type) { prepare<decltype(type)>(*call, kind, rng); });
      ASSERT_FALSE(HasFatalFailure());
      std::size_t bytes = 0;
      ASSERT_OK(workspace_bytes(*impl, call->device.problem, bytes));
      largest = std::max(largest, bytes);
      calls.push_back(std::move(call));
    }
  }
  DeviceBuffer workspace_buffer;
  ASSERT_OK(workspace_buffer.allocate(std::max<std::size_t>(largest, 1)));
  ASSERT_EQ(cudaMemset(workspace_buffer.data(), 0, workspace_buffer.bytes()), cudaSuccess);
  const Workspace workspace{workspace_buffer.data(), workspace_buffer.bytes()};

  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (const char* pass : {"forward", "reverse"})
  {
    for (auto& call : calls)
    {
      ASSERT_OK(poison(call->device.output));
      ASSERT_OK(poison(call->device.indices));
    }
    for (std::size_t i = 0; i < calls.size(); ++i)
    {
      const Enqueued& call = *calls[std::string(pass) == "forward" ? i : calls.size() - 1 - i];
      ASSERT_OK(run(*impl, call.device.problem, workspace, stream)); // back to back: no synchronisation
    }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    for (const auto& call : calls)
    {
      visit_dtype(call->dtype, [&](auto type) { expect_results<decltype(type)>(*impl, *call, pass); });
    }
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

INSTANTIATE_TEST_SUITE_P(Registry, WorkspaceReuse, testing::ValuesIn(implementations_by_kind()), impl_kind_name);

} // namespace
} // namespace redu::test
