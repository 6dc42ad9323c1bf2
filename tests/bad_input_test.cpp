// Bad input gets a clear error and changes nothing. The contract checks run before any launch, so
// the host-only half needs no GPU; the GPU half proves that nothing was written.
#include "support/gpu.hpp"
#include "support/run_helpers.hpp"

#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <vector>

namespace redu::test
{
namespace
{

// A problem `impl` accepts, with fake (never dereferenced) pointers for host-only checks.
Problem accepted_problem(const Reduction& impl, void* input, void* output, const std::int64_t* offsets,
                         std::int64_t* indices)
{
  const Info& info = impl.info();
  Problem p;
  p.kind     = info.kinds.front();
  p.dtype    = info.dtypes.front();
  p.op       = info.ops.front();
  p.n        = 64;
  p.segments = p.kind == Kind::full ? 1 : 4;
  p.input    = input;
  p.output   = output;
  p.offsets  = offsets;
  p.indices  = indices;
  return p;
}

// Separate (never dereferenced) regions, since overlapping ones are refused: 64 elements of input,
// 4 outputs, 5 offsets, 4 indices.
alignas(16) char fake_input[64 * 8];
alignas(16) char fake_output[4 * 8];
alignas(16) std::int64_t fake_offset_array[5];
alignas(16) std::int64_t fake_index_array[4];
void* const fake         = fake_input;
void* const fake_out     = fake_output;
const auto* fake_offsets = fake_offset_array;
auto* const fake_indices = fake_index_array;

TEST(Validation, AcceptsAWellFormedProblemForEveryImplementation)
{
  for (const Reduction* impl : registry())
  {
    const Status status = validate(*impl, accepted_problem(*impl, fake, fake_out, fake_offsets, fake_indices));
    if (!runs_here(*impl)) // refused as unavailable, with the reason (common/contract/requirements.hpp)
    {
      EXPECT_EQ(status.cuda_error(), cudaErrorNotSupported) << impl->info().name << ": " << status.message();
      EXPECT_NE(status.message().find("not available here"), std::string::npos) << status.message();
      continue;
    }
    EXPECT_TRUE(status.ok()) << impl->info().name << ": " << status.message();
  }
}

TEST(Validation, RejectsNullPointersNegativeSizesAndBadShapes)
{
  for (const Reduction* impl : registry())
  {
    SCOPED_TRACE(impl->info().name);
    const Problem good = accepted_problem(*impl, fake, fake_out, fake_offsets, fake_indices);
    Problem p          = good;
    p.input            = nullptr;
    EXPECT_NE(validate(*impl, p).message().find("null input"), std::string::npos);
    p        = good;
    p.output = nullptr;
    EXPECT_NE(validate(*impl, p).message().find("null output"), std::string::npos);
    p   = good;
    p.n = -1;
    EXPECT_NE(validate(*impl, p).message().find("negative size"), std::string::npos);
    for (Op op : {Op::argmin, Op::argmax})
    {
      if (impl->info().supports(op))
      {
        p         = good;
        p.op      = op;
        p.indices = nullptr;
        EXPECT_NE(validate(*impl, p).message().find("null indices"), std::string::npos);
      }
    }
    if (good.kind == Kind::batched)
    {
      p   = good;
      p.n = good.n + 1;
      EXPECT_NE(validate(*impl, p).message().find("not a multiple"), std::string::npos);
    }
    if (good.kind == Kind::segmented)
    {
      p         = good;
      p.offsets = nullptr;
      EXPECT_NE(validate(*impl, p).message().find("without offsets"), std::string::npos);
    }
  }
}

// The memory rules of problem.hpp: misaligned pointers, outputs overlapping anything else, and a
// segmented problem without segments but with elements are refused before launch.
TEST(Validation, RejectsMisalignedPointersOverlapsAndElementsOutsideEverySegment)
{
  for (const Reduction* impl : registry())
  {
    if (unavailable_here(*impl))
    {
      continue;
    }
    SCOPED_TRACE(impl->info().name);
    const Info& info   = impl->info();
    const Problem good = accepted_problem(*impl, fake, fake_out, fake_offsets, fake_indices);
    const auto expect_refused = [&](const Problem& p, const char* expected) {
      const Status status = validate(*impl, p);
      EXPECT_NE(status.message().find(expected), std::string::npos)
          << "expected \"" << expected << "\", got \"" << status.message() << "\"";
    };
    Problem p = good;
    p.input   = fake_input + 1;
    expect_refused(p, "input pointer is not aligned");
    p        = good;
    p.output = fake_output + 2;
    expect_refused(p, "output pointer is not aligned");
    p        = good;
    p.output = fake_input + 64; // inside the input
    expect_refused(p, "output overlaps the input");
    p       = good;
    p.input = fake_output; // the input covers the output
    expect_refused(p, "output overlaps the input");
    for (Op op : {Op::argmin, Op::argmax})
    {
      if (info.supports(op))
      {
        p         = good;
        p.op      = op;
        p.indices = reinterpret_cast<std::int64_t*>(fake_input);
        expect_refused(p, "indices overlaps the input");
        p         = good;
        p.op      = op;
        p.indices = reinterpret_cast<std::int64_t*>(fake_output);
        expect_refused(p, "output overlaps the indices");
        p         = good;
        p.op      = op;
        p.indices = reinterpret_cast<std::int64_t*>(fake_input + 4);
        expect_refused(p, "indices pointer is not aligned");
      }
    }
    if (info.supports(Kind::segmented))
    {
      p         = good;
      p.kind    = Kind::segmented;
      p.offsets = reinterpret_cast<const std::int64_t*>(reinterpret_cast<const char*>(fake_offset_array) + 4);
      expect_refused(p, "offsets pointer is not aligned");
      p         = good;
      p.kind    = Kind::segmented;
      p.offsets = reinterpret_cast<const std::int64_t*>(fake_output); // the output is written over them
      expect_refused(p, "output overlaps the offsets");
      p          = good;
      p.kind     = Kind::segmented;
      p.segments = 0;
      expect_refused(p, "no segments but n = 64");
      p.n = 0;
      EXPECT_TRUE(validate(*impl, p).ok()) << "no segments and no elements is a valid (empty) problem";
    }
  }
}

// prepare() applies every check of run() and hands out nothing on refusal; an unprepared call refuses.
TEST(Validation, PrepareRefusesWhatRunRefusesAndAnUnpreparedCallDoesNotLaunch)
{
  const Status unprepared = Call{}.run(nullptr);
  EXPECT_NE(unprepared.message().find("not prepared"), std::string::npos) << unprepared.message();
  for (const Reduction* impl : registry())
  {
    SCOPED_TRACE(impl->info().name);
    Problem p = accepted_problem(*impl, fake, fake_out, fake_offsets, fake_indices);
    p.input   = nullptr;
    Call call;
    EXPECT_NE(prepare(*impl, p, Workspace{}, call).message().find("null input"), std::string::npos);
    EXPECT_NE(call.run(nullptr).message().find("not prepared"), std::string::npos) << "a refused call stays unprepared";
  }
}

TEST(Validation, RejectsWhatAnImplementationDoesNotDeclare)
{
  for (const Reduction* impl : registry())
  {
    if (unavailable_here(*impl))
    {
      continue;
    }
    SCOPED_TRACE(impl->info().name);
    const Info& info = impl->info();
    const Problem good = accepted_problem(*impl, fake, fake_out, fake_offsets, fake_indices);
    for (DType dtype : all_dtypes)
    {
      Problem p = good;
      p.dtype   = dtype;
      EXPECT_EQ(validate(*impl, p).ok(), info.supports(dtype)) << to_string(dtype);
    }
    for (Op op : all_ops)
    {
      Problem p = good;
      p.op      = op;
      EXPECT_EQ(validate(*impl, p).ok(), info.supports(op)) << to_string(op);
    }
    if (info.max_n < INT64_MAX)
    {
      Problem p = good;
      p.kind     = Kind::full;
      p.segments = 1;
      p.n        = info.max_n + 1;
      if (info.supports(Kind::full))
      {
        EXPECT_NE(validate(*impl, p).message().find("exceeds this implementation's limit"), std::string::npos);
      }
    }
  }
}

// On the GPU: a refused call returns the error and leaves the poisoned output exactly as it was.
TEST(BadInputOnGpu, RefusedCallsWriteNothing)
{
  REDU_REQUIRE_GPU();
  for (const Reduction* impl : registry())
  {
    if (unavailable_here(*impl))
    {
      continue;
    }
    SCOPED_TRACE(impl->info().name);
    DeviceBuffer input, output, offsets, indices, workspace_buffer;
    ASSERT_OK(input.allocate(1024));
    ASSERT_OK(output.allocate(64));
    ASSERT_OK(offsets.allocate(64));
    ASSERT_OK(indices.allocate(64));
    ASSERT_OK(poison(output));
    std::vector<std::int64_t> host_offsets = {0, 16, 32, 48, 64};
    ASSERT_EQ(cudaMemcpy(offsets.data(), host_offsets.data(), 40, cudaMemcpyHostToDevice), cudaSuccess);
    const Problem good = accepted_problem(*impl, input.data(), output.data(), offsets.as<const std::int64_t>(),
                                          indices.as<std::int64_t>());
    Workspace workspace;
    ASSERT_OK(allocate_workspace(*impl, good, workspace_buffer, workspace));

    std::vector<Problem> bad;
    Problem p = good;
    p.input   = nullptr;
    bad.push_back(p);
    p   = good;
    p.n = -5;
    bad.push_back(p);
    p       = good;
    p.input = output.data(); // the output lies inside the input
    bad.push_back(p);
    p        = good;
    p.output = static_cast<char*>(output.data()) + 1;
    bad.push_back(p);
    if (good.kind == Kind::segmented)
    {
      p         = good;
      p.offsets = reinterpret_cast<const std::int64_t*>(static_cast<const char*>(offsets.data()) + 4);
      bad.push_back(p); // a misaligned offsets read once ended the CUDA context of the whole process
    }
    for (const Problem& problem : bad)
    {
      EXPECT_FALSE(run(*impl, problem, workspace, nullptr).ok());
    }
    if (workspace.bytes > 0)
    {
      const Status aliased = run(*impl, good, Workspace{input.data(), workspace.bytes}, nullptr);
      EXPECT_NE(aliased.message().find("the workspace overlaps the"), std::string::npos) << aliased.message();
    }
    if (workspace.bytes > 0)
    {
      const Status too_small = run(*impl, good, Workspace{workspace.data, workspace.bytes - 1}, nullptr);
      EXPECT_NE(too_small.message().find("workspace"), std::string::npos) << too_small.message();
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<unsigned char> bytes;
    ASSERT_OK(download(output, bytes));
    for (unsigned char b : bytes)
    {
      ASSERT_EQ(b, poison_byte) << "a refused call wrote to the output";
    }
  }
}

// On the GPU: an implementation that cannot run here (its requirements, common/contract/requirements.hpp)
// is refused by every entry point with cudaErrorNotSupported and the reason, and writes nothing. Where
// everything runs (a build for this GPU) there is nothing to refuse, and the test says so.
TEST(BadInputOnGpu, UnavailableImplementationsAreRefusedAndWriteNothing)
{
  REDU_REQUIRE_GPU();
  int refused = 0;
  for (const Reduction* impl : registry())
  {
    const Availability verdict = availability_here(*impl);
    if (verdict.ok)
    {
      continue;
    }
    SCOPED_TRACE(impl->info().name + ": " + verdict.reason);
    DeviceBuffer input, output, offsets, indices;
    ASSERT_OK(input.allocate(64 * 8));
    ASSERT_OK(output.allocate(4 * 8));
    ASSERT_OK(offsets.allocate(5 * sizeof(std::int64_t)));
    ASSERT_OK(indices.allocate(4 * sizeof(std::int64_t)));
    ASSERT_OK(poison(output));
    const std::vector<std::int64_t> host_offsets = {0, 16, 32, 48, 64};
    ASSERT_EQ(cudaMemcpy(offsets.data(), host_offsets.data(), 40, cudaMemcpyHostToDevice), cudaSuccess);
    const Problem good = accepted_problem(*impl, input.data(), output.data(), offsets.as<const std::int64_t>(),
                                          indices.as<std::int64_t>());
    std::size_t bytes = 0;
    Call call;
    for (const Status& status : {run(*impl, good, Workspace{}, nullptr), validate(*impl, good),
                                 workspace_bytes(*impl, good, bytes), prepare(*impl, good, Workspace{}, call)})
    {
      EXPECT_EQ(status.cuda_error(), cudaErrorNotSupported) << status.message();
      EXPECT_NE(status.message().find(verdict.reason), std::string::npos) << status.message();
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "a refused call must leave the CUDA context usable";
    std::vector<unsigned char> bytes_after;
    ASSERT_OK(download(output, bytes_after));
    for (unsigned char b : bytes_after)
    {
      ASSERT_EQ(b, poison_byte) << "a refused call wrote to the output";
    }
    ++refused;
  }
  RecordProperty("refused_as_unavailable", refused);
  if (refused == 0)
  {
    std::cout << "[   NOTE   ] every implementation can run on this GPU with this build: nothing to refuse\n";
  }
}

// Offsets are device data, checked by run() before anything is launched: decreasing offsets, a negative
// first offset and a last offset other than n are refused with a message naming the position, and the
// poisoned output stays as it was. With OffsetsCheck::trust the check is skipped (not tested: what a
// kernel does with bad offsets is undefined).
TEST(BadInputOnGpu, BadSegmentOffsetsAreRefusedBeforeLaunch)
{
  REDU_REQUIRE_GPU();
  struct BadOffsets
  {
    std::vector<std::int64_t> offsets;
    std::string expected;
  };
  const std::vector<BadOffsets> cases = {
    {{0, 16, 8, 48, 64}, "offsets decrease: offsets[1] = 16 > offsets[2] = 8"},
    {{0, 16, 32, 64, 48}, "offsets decrease: offsets[3] = 64 > offsets[4] = 48"},
    {{-4, 16, 32, 48, 64}, "offsets[0] = -4 is negative"},
    {{0, 16, 32, 48, 60}, "offsets[4] = 60, must equal n = 64"}};
  int checked = 0;
  for (const Reduction* impl : registry())
  {
    const Info& info = impl->info();
    if (!info.supports(Kind::segmented) || unavailable_here(*impl))
    {
      continue;
    }
    SCOPED_TRACE(info.name);
    DeviceBuffer input, output, offsets, indices, workspace_buffer;
    ASSERT_OK(input.allocate(64 * 8));
    ASSERT_OK(output.allocate(4 * 8));
    ASSERT_OK(offsets.allocate(5 * sizeof(std::int64_t)));
    ASSERT_OK(indices.allocate(4 * sizeof(std::int64_t)));
    ASSERT_EQ(cudaMemset(input.data(), 0, input.bytes()), cudaSuccess); // the good run below reads it
    Problem p  = accepted_problem(*impl, input.data(), output.data(), offsets.as<const std::int64_t>(),
                                  indices.as<std::int64_t>());
    p.kind     = Kind::segmented;
    p.n        = 64;
    p.segments = 4;
    Workspace workspace;
    ASSERT_OK(allocate_workspace(*impl, p, workspace_buffer, workspace));
    for (const BadOffsets& bad : cases)
    {
      ASSERT_OK(upload(bad.offsets, offsets));
      ASSERT_OK(poison(output));
      const Status status = run(*impl, p, workspace, nullptr);
      EXPECT_NE(status.message().find(bad.expected), std::string::npos)
          << "expected \"" << bad.expected << "\", got \"" << status.message() << "\"";
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<unsigned char> bytes;
      ASSERT_OK(download(output, bytes));
      for (unsigned char b : bytes)
      {
        ASSERT_EQ(b, poison_byte) << "a call with bad offsets wrote to the output";
      }
    }
    // The same buffers with good offsets run: the refusals above came from the offsets alone.
    ASSERT_OK(upload(std::vector<std::int64_t>{0, 16, 32, 48, 64}, offsets));
    ASSERT_OK(run_and_wait(*impl, p, workspace, nullptr));
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

} // namespace
} // namespace redu::test
