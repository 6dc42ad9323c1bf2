// Host-only tests: they run everywhere, CI included (no GPU needed).
#include "support/reference.hpp"

#include "bench/options.hpp"
#include "common/host/device_info.hpp"
#include "common/contract/reduction.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <regex>
#include <set>

namespace redu::test
{
namespace
{

TEST(Reference, SumsIntegersExactly)
{
  const std::vector<std::int32_t> values = {100, -100, 7, 2147483, -5};
  EXPECT_EQ(reference(values, 0, 5, Op::sum).value, 2147485.0L);
  EXPECT_EQ(reference(values, 1, 3, Op::sum).value, -93.0L);
}

TEST(Reference, MinMaxAndEmptyRangesGiveTheContractsIdentities)
{
  const std::vector<float> values = {3.5f, -2.0f, 8.0f};
  const long double inf           = std::numeric_limits<long double>::infinity();
  EXPECT_EQ(reference(values, 0, 3, Op::min).value, -2.0L);
  EXPECT_EQ(reference(values, 0, 3, Op::max).value, 8.0L);
  EXPECT_EQ(reference(values, 1, 1, Op::min).value, inf);
  EXPECT_EQ(reference(values, 1, 1, Op::max).value, -inf);
  EXPECT_EQ(reference(values, 1, 1, Op::sum).value, 0.0L);
  const std::vector<float> all_inf = {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()};
  EXPECT_EQ(reference(all_inf, 0, 2, Op::min).value, inf) << "not FLT_MAX";
  EXPECT_EQ(reference(all_inf, 0, 2, Op::argmin).index, 0);
  const std::vector<std::int32_t> ints = {5};
  EXPECT_EQ(reference(ints, 0, 0, Op::min).value, static_cast<long double>(INT32_MAX));
}

TEST(Reference, IntegerSumsWrapLikeTwosComplement)
{
  const std::vector<std::int32_t> values = {INT32_MAX, 1, INT32_MAX};
  EXPECT_EQ(reference(values, 0, 2, Op::sum).value, static_cast<long double>(INT32_MIN));
  EXPECT_EQ(reference(values, 0, 3, Op::sum).value, -1.0L) << "2^31 - 1 + 1 + 2^31 - 1 wraps to -1";
  const std::vector<std::int64_t> wide = {INT64_MAX, 2};
  EXPECT_EQ(reference(wide, 0, 2, Op::sum).value, static_cast<long double>(INT64_MIN + 1));
}

TEST(ExactValues, EveryPartialSumIsRepresentableAndSubnormalsAreKept)
{
  std::mt19937_64 rng(3);
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, (std::int64_t{1} << 24) + 3})
  {
    for (const bool subnormal : {false, true})
    {
      const auto values  = exact_values<float>(n, Op::sum, subnormal, rng);
      long double units  = 0;
      bool any_nonzero   = false;
      for (float v : values)
      {
        units += std::fabs(v / (subnormal ? std::numeric_limits<float>::denorm_min() : 1.0f));
        any_nonzero = any_nonzero || v != 0;
      }
      EXPECT_LE(units, 1 << 24) << "n = " << n;
      EXPECT_TRUE(any_nonzero) << "n = " << n;
      if (subnormal)
      {
        EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](float v) { return std::fabs(v) < FLT_MIN; }));
      }
    }
  }
}

TEST(Reference, ArgMinMaxReportTheFirstOccurrenceAndMinusOneWhenEmpty)
{
  const std::vector<std::int32_t> values = {4, 1, 7, 1, 7, 0, 0};
  EXPECT_EQ(reference(values, 0, 5, Op::argmin).index, 1);
  EXPECT_EQ(reference(values, 0, 5, Op::argmax).index, 2);
  EXPECT_EQ(reference(values, 5, 7, Op::argmin).index, 0); // relative to the range start
  EXPECT_EQ(reference(values, 3, 3, Op::argmin).index, -1);
  const std::vector<std::int32_t> all_identity = {INT32_MAX, INT32_MAX};
  EXPECT_EQ(reference(all_identity, 0, 2, Op::argmin).index, 0);
}

TEST(Reference, SumOfSquares)
{
  const std::vector<std::int32_t> values = {3, -4, 10};
  EXPECT_EQ(reference(values, 0, 3, Op::sum_squares).value, 125.0L);
}

TEST(Reference, CompensatedSumKeepsWhatANaiveDoubleSumLoses)
{
  const std::vector<double> values = {1e17, 1.0, -1e17, 1.0};
  EXPECT_EQ(reference(values, 0, 4, Op::sum).value, 2.0L);
}

TEST(Tolerance, GrowsWithLog2NAndSumOfMagnitudesAndIsZeroWhenExact)
{
  Reference ref;
  ref.sum_abs = 1000;
  ref.count   = 1 << 20;
  const long double u = std::numeric_limits<float>::epsilon() / 2;
  EXPECT_DOUBLE_EQ(static_cast<double>(tolerance<float>(ref, Op::sum, tree_factor(ref.count))),
                   static_cast<double>(2 * 21 * u * 1000));
  ref.count = 1 << 10;
  EXPECT_DOUBLE_EQ(static_cast<double>(tolerance<float>(ref, Op::sum, tree_factor(ref.count))),
                   static_cast<double>(2 * 11 * u * 1000));
  EXPECT_EQ(tolerance<float>(ref, Op::min, tree_factor(ref.count)), 0);
  EXPECT_EQ(tolerance<std::int32_t>(ref, Op::sum, tree_factor(ref.count)), 0);
  EXPECT_LT(tolerance<double>(ref, Op::sum, tree_factor(ref.count)), tolerance<float>(ref, Op::sum, tree_factor(ref.count)));
  EXPECT_EQ(tree_factor(1), 0) << "one term: nothing is rounded";
}

TEST(Tolerance, CatchesAnErrorOfOneElementInASmallSum)
{
  std::mt19937_64 rng(42);
  const auto values   = random_values<float>(1000, Op::sum, rng);
  const Reference ref = reference(values, 0, 1000, Op::sum);
  // Dropping the first element must be detected: the test can fail.
  EXPECT_GT(std::fabs(static_cast<long double>(values[0])), tolerance<float>(ref, Op::sum, tree_factor(1000)));
}

TEST(RandomValues, IntegerSumsStayExactAndFloatsHaveMixedSigns)
{
  std::mt19937_64 rng(1);
  const auto ints = random_values<std::int32_t>((1 << 24) + 3, Op::sum, rng);
  for (std::int32_t v : ints)
  {
    ASSERT_LE(std::abs(v), 100);
  }
  const auto floats = random_values<float>(10000, Op::sum, rng);
  const auto negatives = std::count_if(floats.begin(), floats.end(), [](float v) { return v < 0; });
  EXPECT_GT(negatives, 4000);
  EXPECT_LT(negatives, 6000);
}

TEST(Registry, NamesAreUniqueWellFormedAndEveryEntryIsComplete)
{
  ASSERT_FALSE(registry().empty());
  const std::regex name_pattern("[a-z0-9_]+\\.[a-z0-9_]+");
  std::set<std::string> names;
  for (const Reduction* impl : registry())
  {
    const Info& info = impl->info();
    SCOPED_TRACE(info.name);
    EXPECT_TRUE(std::regex_match(info.name, name_pattern));
    EXPECT_TRUE(names.insert(info.name).second);
    EXPECT_EQ(info.name.substr(0, info.name.find('.')), info.family);
    EXPECT_FALSE(info.source.empty());
    EXPECT_FALSE(info.idea.empty());
    EXPECT_FALSE(info.dtypes.empty());
    EXPECT_FALSE(info.ops.empty());
    EXPECT_FALSE(info.kinds.empty());
    EXPECT_GT(info.max_n, 0);
    EXPECT_EQ(find(info.name), impl);
  }
  EXPECT_EQ(find("no.such_implementation"), nullptr);
}

TEST(Registry, HasTheCubBaselineEveryFamilyIsComparedWith)
{
  const Reduction* cub = find("cub.device_reduce");
  ASSERT_NE(cub, nullptr);
  EXPECT_TRUE(cub->info().supports(Kind::full));
  for (Op op : {Op::sum, Op::min, Op::max, Op::argmin, Op::argmax})
  {
    EXPECT_TRUE(cub->info().supports(op)) << to_string(op);
  }
}

TEST(Registry, ExhibitsAreFoundByNameButNeverStudied)
{
  ASSERT_GE(exhibits().size(), 2u);
  for (const Reduction* exhibit : exhibits())
  {
    EXPECT_EQ(exhibit->info().role, Role::exhibit);
    EXPECT_EQ(find(exhibit->info().name), exhibit);
    EXPECT_EQ(std::count(registry().begin(), registry().end(), exhibit), 0) << exhibit->info().name;
  }
  for (const Reduction* impl : registry())
  {
    EXPECT_NE(impl->info().role, Role::exhibit) << impl->info().name;
    EXPECT_EQ(impl->info().role == Role::baseline, impl->info().family == "cub" || impl->info().family == "thrust")
        << impl->info().name << ": library entry points are baselines, hand-written code lessons";
  }
}

TEST(Registry, ListIsSortedByName)
{
  const auto& impls = registry();
  EXPECT_TRUE(std::is_sorted(impls.begin(), impls.end(), [](const Reduction* a, const Reduction* b) {
    return a->info().name < b->info().name;
  }));
}

TEST(DeviceInfo, PeakBandwidthFromClockAndBusWidth)
{
  // H100 SXM5 80GB HBM3: 2619 MHz, 5120-bit bus -> 3352.32 GB/s (GUIDE.md, 3352).
  EXPECT_NEAR(peak_bandwidth_gbps(2619000, 5120), 3352.32, 1e-6);
  // RTX 3090 (Lei Mao's post): 9751 MHz, 384-bit -> 936.1 GB/s.
  EXPECT_NEAR(peak_bandwidth_gbps(9751000, 384), 936.096, 1e-6);
}

TEST(DeviceInfo, SlugIsAFolderName)
{
  EXPECT_EQ(gpu_slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(gpu_slug("  Tesla V100-SXM2-16GB  "), "tesla-v100-sxm2-16gb");
  EXPECT_EQ(gpu_slug("***"), "unknown-gpu");
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12040), "12.4");
}

std::vector<const char*> argv_of(const std::vector<std::string>& args)
{
  std::vector<const char*> argv;
  for (const std::string& a : args)
  {
    argv.push_back(a.c_str());
  }
  return argv;
}

TEST(BenchOptions, ParsesOwnFlagsAndPassesBenchmarkFlagsThrough)
{
  const std::vector<std::string> args = {"bench", "--types=f32,i32", "--ops=sum", "--max_log2=20", "--l2=hot",
                                         "--clocks=gpu",      "--benchmark_filter=cub", "--impl=cub.device_reduce",
                                         "--samples=3",       "--floor=no"};
  const auto argv   = argv_of(args);
  const auto parsed = bench::parse_command_line(static_cast<int>(argv.size()), argv.data());
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  EXPECT_EQ(parsed.options.dtypes, (std::vector<DType>{DType::f32, DType::i32}));
  EXPECT_EQ(parsed.options.ops, (std::vector<Op>{Op::sum}));
  EXPECT_EQ(parsed.options.max_log2, 20);
  EXPECT_EQ(parsed.options.cold_l2, (std::vector<bool>{false}));
  EXPECT_EQ(parsed.options.clocks, (std::vector<report::Clock>{report::Clock::gpu}));
  EXPECT_FALSE(parsed.options.floor);
  EXPECT_EQ(parsed.options.samples, 3);
  EXPECT_EQ(parsed.options.impls, (std::vector<std::string>{"cub.device_reduce"}));
  EXPECT_EQ(parsed.benchmark_args, (std::vector<std::string>{"bench", "--benchmark_filter=cub"}));
}

TEST(BenchOptions, TimesBothL2StatesOnBothClocksByDefault)
{
  const std::vector<std::string> args = {"bench"};
  const auto argv   = argv_of(args);
  const auto parsed = bench::parse_command_line(1, argv.data());
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  EXPECT_EQ(parsed.options.cold_l2, (std::vector<bool>{true, false}));
  EXPECT_EQ(parsed.options.clocks, (std::vector<report::Clock>{report::Clock::host, report::Clock::gpu}));
  EXPECT_TRUE(parsed.options.floor);
}

TEST(BenchOptions, RejectsUnknownOptionsAndBadValues)
{
  for (const std::string bad : {"--frobnicate", "--types=f8", "--ops=prod", "--max_log2=99", "--l2=warm",
                                "--clocks=wall", "--floor=maybe", "--samples=0", "--sweep=everything", "--min_log2=abc", "--max_log2=41"})
  {
    const std::vector<std::string> args = {"bench", bad};
    const auto argv                     = argv_of(args);
    EXPECT_FALSE(bench::parse_command_line(2, argv.data()).error.empty()) << bad;
  }
  const std::vector<std::string> args = {"bench", "--min_log2=20", "--max_log2=10"};
  const auto argv                     = argv_of(args);
  EXPECT_FALSE(bench::parse_command_line(3, argv.data()).error.empty());
  // Up to 2^40 elements, beyond any GPU's memory: bench_cli_test.sh asks for a size that cannot fit.
  const std::vector<std::string> largest = {"bench", "--max_log2=40"};
  EXPECT_TRUE(bench::parse_command_line(2, argv_of(largest).data()).error.empty());
}

TEST(CodeId, ScriptPrintsAStableIdForThisCheckout)
{
  const std::string command = std::string("env -u REDU_CODE_ID bash ") + REDU_SOURCE_DIR + "/scripts/code_id.sh 2>/dev/null";
  auto read_id = [&] {
    std::string out;
    if (FILE* pipe = popen(command.c_str(), "r"))
    {
      char buffer[128];
      while (fgets(buffer, sizeof buffer, pipe))
      {
        out += buffer;
      }
      pclose(pipe);
    }
    return out;
  };
  const std::string first = read_id();
  if (first.empty())
  {
    GTEST_SKIP() << "not a git checkout and REDU_CODE_ID unset: code_id.sh has nothing to hash";
  }
  EXPECT_TRUE(std::regex_match(first, std::regex("[0-9a-f]{16}(-dirty)?\n"))) << first;
  EXPECT_EQ(read_id(), first);
}

} // namespace
} // namespace redu::test
