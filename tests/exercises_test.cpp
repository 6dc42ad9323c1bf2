// The course's exercises (exercises/, docs/course.md), checked on the host: no GPU is needed. Built only
// with REDU_EXERCISES (exercises/CMakeLists.txt), linked with the exercises alone, not the project's
// implementations. REDU_EXERCISES_EXPECT says what the exercises must report:
//   "any"     a student's build: each one written or not, and saying so correctly;
//   "solved"  the solutions in place of the student's files: every one written;
//   "given"   the student's files as checked in: none written, each refusing with its message.
// Whether each exercise computes the right thing is the shared harness's job, on a GPU
// (scripts/course_gpu_check.sh).
#include "common/contract/reduction.hpp"
#include "common/contract/requirements.hpp"
#include "exercises/exercise.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace redu::test
{
namespace
{

const std::string expect = REDU_EXERCISES_EXPECT;

// The exercises a student meets, in the course's order, and the file of each.
struct Expected
{
  std::string name;
  std::string file;
};
const std::vector<Expected> course = {
    {"exercise.reduce2", "exercises/01_sequential_addressing.cu"},
    {"exercise.reduce4", "exercises/02_warp_shuffle_finish.cu"},
    {"exercise.vec_two_pass", "exercises/03_vectorized_two_pass.cu"},
    {"exercise.last_block", "exercises/04_last_block_finish.cu"},
    {"exercise.warp_per_row", "exercises/05_warp_per_row.cu"},
    {"exercise.argmax", "exercises/06_argmax_pairs.cu"},
};

const exercise::Gradable* gradable(const std::string& name)
{
  return dynamic_cast<const exercise::Gradable*>(find(name));
}

std::string read(const std::string& relative)
{
  std::ifstream in(std::filesystem::path(REDU_SOURCE_DIR) / relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Exercises, EveryExerciseIsRegisteredUnderItsOwnRole)
{
  std::vector<std::string> registered;
  for (const Reduction* impl : registry())
  {
    EXPECT_EQ(impl->info().role, Role::exercise) << impl->info().name << ": only exercises are linked here";
    registered.push_back(impl->info().name);
  }
  std::vector<std::string> names;
  for (const Expected& e : course)
  {
    names.push_back(e.name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(registered, names) << "exercises/ and this list name the same exercises";
  for (const Expected& e : course)
  {
    SCOPED_TRACE(e.name);
    const Reduction* impl = find(e.name);
    ASSERT_NE(impl, nullptr);
    const Info& info = impl->info();
    EXPECT_EQ(info.family, "exercise");
    EXPECT_EQ(info.role, Role::exercise);
    EXPECT_FALSE(info.source.empty());
    EXPECT_FALSE(info.idea.empty());
    EXPECT_FALSE(info.dtypes.empty());
    EXPECT_FALSE(info.ops.empty());
    EXPECT_FALSE(info.kinds.empty());
    ASSERT_NE(gradable(e.name), nullptr) << "derives from redu::exercise::Exercise";
    EXPECT_EQ(gradable(e.name)->file(), e.file);
  }
}

TEST(Exercises, EachFileStatesItsTaskAndMarksWhereTheStudentWrites)
{
  for (const Expected& e : course)
  {
    SCOPED_TRACE(e.file);
    const std::string text = read(e.file);
    ASSERT_FALSE(text.empty()) << "the exercise's file is readable from the source tree";
    for (const char* part : {"Task:", "The flaw of the previous step",
                             "Hint:", "Test:", "Time:", "// ---- TODO: your code begins here ----",
                             "// ---- TODO: your code ends here ----", "constexpr bool kernel_written"})
    {
      EXPECT_NE(text.find(part), std::string::npos) << part;
    }
    EXPECT_NE(text.find("'*" + e.name.substr(0, e.name.find('.')) + "_" + e.name.substr(e.name.find('.') + 1) + "*'"),
              std::string::npos)
        << "its test command filters on its own name";
    EXPECT_NE(text.find("--impl=" + e.name + ","), std::string::npos) << "its timing command names it first";
  }
}

// The text of `file` before its begin marker and after its end marker.
std::pair<std::string, std::string> outside_the_markers(const std::string& file)
{
  const std::string text  = read(file);
  const std::string begin = "// ---- TODO: your code begins here ----\n";
  const std::string end   = "// ---- TODO: your code ends here ----\n";
  const std::size_t b = text.find(begin), e = text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b || text.find(begin, b + 1) != std::string::npos)
  {
    ADD_FAILURE() << file << ": one begin marker, then one end marker";
    return {};
  }
  return {text.substr(0, b + begin.size()), text.substr(e)};
}

// A solution is its exercise with the marked part filled in, so what CI proves with the solutions holds
// for the student's file: the same task text, registration and host code. (Not checked in a student's
// build, whose files may have changed anywhere.)
TEST(Exercises, EachSolutionIsItsExerciseWithOnlyTheMarkedPartFilledIn)
{
  if (expect == "any")
  {
    GTEST_SKIP() << "a student's build: the files may differ from the solutions anywhere";
  }
  for (const Expected& e : course)
  {
    SCOPED_TRACE(e.file);
    const std::string solution = "exercises/solutions/" + e.file.substr(e.file.find('/') + 1);
    EXPECT_EQ(outside_the_markers(e.file), outside_the_markers(solution));
    EXPECT_NE(read(e.file).find("constexpr bool kernel_written = false;"), std::string::npos);
    EXPECT_NE(read(solution).find("constexpr bool kernel_written = true;"), std::string::npos);
  }
}

TEST(Exercises, EachReportsWhetherItsKernelIsWrittenAndOtherwiseSaysWhatIsMissing)
{
  for (const Expected& e : course)
  {
    SCOPED_TRACE(e.name);
    const exercise::Gradable* g = gradable(e.name);
    ASSERT_NE(g, nullptr);
    const Status status = g->written();
    if (expect == "solved")
    {
      EXPECT_TRUE(status.ok()) << "the solution reports itself done: " << status.message();
    }
    if (expect == "given")
    {
      EXPECT_FALSE(status.ok()) << "the file as given has its kernel_written = false";
    }
    if (!status.ok())
    {
      EXPECT_EQ(status.message(), e.name + ": the kernel body is not written yet (" + e.file +
                                      ", between the TODO markers; then set kernel_written = true)");
    }
  }
}

// A problem every exercise accepts, at addresses that are never read: an exercise whose kernel is not
// written refuses before it launches anything, so no device memory is needed (and no GPU).
Problem untouched_problem(const Info& info)
{
  Problem p;
  p.kind     = info.kinds.front();
  p.dtype    = info.dtypes.front();
  p.op       = info.ops.front();
  p.n        = 1 << 20;
  p.segments = p.kind == Kind::full ? 1 : 1024;
  p.input    = reinterpret_cast<const void*>(std::uintptr_t{1} << 32);
  p.output   = reinterpret_cast<void*>((std::uintptr_t{1} << 32) + (std::uintptr_t{1} << 28));
  p.indices =
      is_arg(p.op) ? reinterpret_cast<std::int64_t*>((std::uintptr_t{1} << 32) + (std::uintptr_t{1} << 29)) : nullptr;
  return p;
}

TEST(Exercises, AnExerciseNotWrittenYetIsRefusedByRunBeforeAnythingIsLaunched)
{
  std::size_t refused = 0;
  for (const Expected& e : course)
  {
    SCOPED_TRACE(e.name);
    const Reduction* impl = find(e.name);
    ASSERT_NE(impl, nullptr);
    const Status written = gradable(e.name)->written();
    if (written.ok() || !available_here(*impl).ok)
    {
      continue; // a written kernel would launch (the GPU harness checks it); this GPU lacks the build's code
    }
    const Problem p   = untouched_problem(impl->info());
    std::size_t bytes = 0;
    ASSERT_TRUE(workspace_bytes(*impl, p, bytes).ok()) << "sizing needs no kernel";
    const Workspace ws{reinterpret_cast<void*>((std::uintptr_t{1} << 32) + (std::uintptr_t{1} << 30)), bytes};
    const Status status = run(*impl, p, ws, nullptr);
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(status.message(), written.message());
    ++refused;
  }
  if (expect == "given")
  {
    EXPECT_EQ(refused, course.size()) << "every file as given was refused through redu::run";
  }
}

} // namespace
} // namespace redu::test
