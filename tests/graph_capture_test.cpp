// CUDA graph capture (common/contract/problem.hpp): every implementation that declares Info::graph_capture is
// captured, after one ordinary call (as graphs are used: warm up, then capture), and its graph is
// replayed twice on freshly poisoned outputs; each replay must give the reference. An implementation
// that cannot be captured (it synchronises with the host) must refuse the call while its stream
// captures, leaving the capture intact; and a segmented call that would check its offsets (a
// synchronisation) is refused too.
#include "support/cases.hpp"
#include "support/device_problem.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/run_helpers.hpp"
#include "support/shapes.hpp"

#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace redu::test
{
namespace
{

// One problem per kind: sizes with ragged tails, empty segments and a long one.
Shape capture_shape(Kind kind)
{
  switch (kind)
  {
    case Kind::full:
      return {"n=1000003", 1000003, 1, {}};
    case Kind::batched:
      return {"64x4097", 64 * 4097, 64, {}};
    case Kind::segmented:
      break;
  }
  return segments_from_lengths("mixed", {3, 0, 70001, 1000, 33, 0, 300000, 9});
}

// The case a graph is captured for: f32 sum where declared, else the first declared pair.
std::pair<DType, Op> capture_case(const Info& info)
{
  if (info.supports(DType::f32) && info.supports(Op::sum))
  {
    return {DType::f32, Op::sum};
  }
  return {info.dtypes.front(), info.ops.front()};
}

template <class T>
void check_capture(const Reduction& impl, Kind kind, Op op)
{
  const Info& info   = impl.info();
  const Shape shape  = capture_shape(kind);
  std::mt19937_64 rng(std::random_device{}());
  const std::vector<T> values = random_values<T>(shape.n, op, rng);
  DeviceProblem d;
  ASSERT_OK(make_device_problem(kind, op, shape, values, &impl, d));
  const Problem& p   = d.problem;
  const Workspace ws = d.workspace;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_OK(run_and_wait(impl, p, ws, stream)); // the ordinary call before capturing

  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const Status captured = run(impl, p, ws, stream, OffsetsCheck::trust);
  Status verified       = Status::success();
  if (kind == Kind::segmented)
  {
    verified = run(impl, p, ws, stream, OffsetsCheck::verify);
  }
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  ASSERT_EQ(ended, cudaSuccess) << "the capture was invalidated: " << cudaGetErrorString(ended);

  if (!info.graph_capture)
  {
    EXPECT_NE(captured.message().find("cannot be captured"), std::string::npos) << captured.message();
    ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    return;
  }
  ASSERT_TRUE(captured.ok()) << captured.message();
  if (kind == Kind::segmented)
  {
    EXPECT_NE(verified.message().find("OffsetsCheck::trust"), std::string::npos) << verified.message();
  }
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay)
  {
    SCOPED_TRACE("replay " + std::to_string(replay + 1));
    ASSERT_OK(poison(d.output));
    ASSERT_OK(poison(d.indices));
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    std::vector<long double> got; // in the output type (f32 for a half sum), widened
    std::vector<std::int64_t> got_indices;
    ASSERT_OK(download_outputs(d, got));
    ASSERT_OK(download(d.indices, got_indices));
    for (std::int64_t s = 0; s < shape.segments; ++s)
    {
      const Reference ref     = reference(values, segment_begin(shape, kind, s), segment_end(shape, kind, s), op);
      const long double value = got[s];
      EXPECT_TRUE(!std::isnan(value)
                  && std::fabs(value - ref.value) <= tolerance<T>(ref, op, sum_error_factor(impl, p, ref.count)))
          << "output " << s << ": got " << static_cast<double>(value) << ", expected " << static_cast<double>(ref.value);
      if (is_arg(op))
      {
        EXPECT_EQ(got_indices[s], ref.index) << "output " << s;
      }
    }
  }
  ASSERT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

class GraphCapture : public testing::TestWithParam<ImplKind>
{};

TEST_P(GraphCapture, CapturedCallsReplayCorrectlyOrAreRefused)
{
  REDU_REQUIRE_GPU();
  REDU_REQUIRE_AVAILABLE(*GetParam().impl);
  const auto [impl, kind] = GetParam();
  const auto [dtype, op]  = capture_case(impl->info());
  SCOPED_TRACE(std::string(to_string(dtype)) + " " + to_string(op)
               + (impl->info().graph_capture ? ", declared capturable" : ", declared not capturable"));
  visit_dtype(dtype, [&](auto type) { check_capture<decltype(type)>(*impl, kind, op); });
}

INSTANTIATE_TEST_SUITE_P(Registry, GraphCapture, testing::ValuesIn(implementations_by_kind()), impl_kind_name);

} // namespace
} // namespace redu::test
