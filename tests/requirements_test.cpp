// The requirement check of common/contract/requirements.hpp against fake devices and binaries: the
// judgement is a pure function of what an implementation declares and what a GPU and its code offer, so
// every case, from a Turing to a Blackwell and from SASS to older PTX JIT-compiled by the driver, runs
// here without a GPU.
#include "common/contract/reduction.hpp"
#include "common/contract/requirements.hpp"
#include "common/host/device_info.hpp"

#include <gtest/gtest.h>
#include <string>

namespace redu::test
{
namespace
{

constexpr auto npos = std::string::npos;

// A GPU of compute capability `device_arch` running code compiled for `code_arch` (PTX JIT-compiled by
// the driver when the two differ), with the launch attributes its architecture brings.
Target fake_gpu(int device_arch, int code_arch)
{
  Target target;
  target.device_name        = "Fake GPU";
  target.device_arch        = device_arch;
  target.code_arch          = code_arch;
  target.binary_arch        = code_arch == 0 ? 0 : device_arch;
  target.cooperative_launch = true;
  target.cluster_launch     = device_arch >= 90;
  return target;
}

const Requirements clusters{.required = {Feature::thread_block_clusters}};
const int architectures[] = {75, 80, 86, 89, 90, 100, 120};

TEST(Requirements, TheArchitectureNeededIsTheNewestRequiredFeaturesOrItsOwnFloor)
{
  EXPECT_EQ(Requirements{}.arch(), 0);
  EXPECT_EQ(clusters.arch(), 90);
  EXPECT_EQ((Requirements{.required = {Feature::cooperative_launch}}.arch()), 60);
  EXPECT_EQ((Requirements{.min_arch = 100, .required = {Feature::thread_block_clusters}}.arch()), 100);
  EXPECT_EQ((Requirements{.optional = {Feature::thread_block_clusters}}.arch()), 0)
      << "optional features never raise it";
}

// The case that ended the CUDA context: code compiled as compute_80 PTX, JIT-compiled on a Hopper. The
// device has clusters; the code does not.
TEST(Requirements, AClusterKernelCompiledForAnOlderTargetIsUnavailableOnAHopper)
{
  for (int code : {75, 80, 86, 89})
  {
    const std::string why = unavailable_reason(clusters, fake_gpu(90, code));
    EXPECT_NE(why.find("compute_" + std::to_string(code) + " PTX, JIT-compiled by the driver for sm_90"), npos) << why;
    EXPECT_NE(why.find("thread block clusters (sm_90)"), npos) << why;
    EXPECT_NE(why.find("CMAKE_CUDA_ARCHITECTURES"), npos) << "says what build would do: " << why;
  }
}

TEST(Requirements, AClusterKernelIsUnavailableOnGpusBeforeHopper)
{
  for (int arch : {75, 80, 86, 89})
  {
    const std::string why = unavailable_reason(clusters, fake_gpu(arch, arch));
    EXPECT_NE(why.find("needs compute capability 9.0"), npos) << why;
    EXPECT_NE(why.find("compute capability " + std::to_string(arch / 10) + "." + std::to_string(arch % 10)), npos)
        << why;
  }
}

TEST(Requirements, AClusterKernelRunsWhereTheDeviceAndTheCodeHaveClusters)
{
  EXPECT_EQ(unavailable_reason(clusters, fake_gpu(90, 90)), "");
  EXPECT_EQ(unavailable_reason(clusters, fake_gpu(100, 100)), "");
  EXPECT_EQ(unavailable_reason(clusters, fake_gpu(120, 120)), "");
  EXPECT_EQ(unavailable_reason(clusters, fake_gpu(120, 90)), "") << "compute_90 PTX JIT-compiled on a newer GPU";
}

TEST(Requirements, ADeviceAttributeThatIsOffRefusesItsFeature)
{
  Target no_clusters         = fake_gpu(90, 90);
  no_clusters.cluster_launch = false;
  EXPECT_NE(unavailable_reason(clusters, no_clusters).find("cudaDevAttrClusterLaunch is 0"), npos);
  Target no_cooperative             = fake_gpu(80, 80);
  no_cooperative.cooperative_launch = false;
  const Requirements cooperative{.required = {Feature::cooperative_launch}};
  EXPECT_NE(unavailable_reason(cooperative, no_cooperative).find("cudaDevAttrCooperativeLaunch is 0"), npos);
  EXPECT_EQ(unavailable_reason(cooperative, fake_gpu(75, 75)), "");
}

TEST(Requirements, ABinaryWithNoCodeForTheDeviceRunsNothing)
{
  Target none           = fake_gpu(86, 0);
  none.no_code          = "cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device";
  const std::string why = unavailable_reason(Requirements{}, none);
  EXPECT_NE(why.find("holds no code that runs on the Fake GPU (compute capability 8.6)"), npos) << why;
  EXPECT_NE(why.find("cudaErrorNoKernelImageForDevice"), npos) << why;
  EXPECT_NE(why.find("-DCMAKE_CUDA_ARCHITECTURES=86"), npos) << why;
}

TEST(Requirements, OptionalFeaturesNeverMakeAnImplementationUnavailable)
{
  Requirements all_optional;
  for (Feature feature : all_features)
  {
    all_optional.optional.push_back(feature);
  }
  for (int device : architectures)
  {
    for (int code : architectures)
    {
      if (code <= device)
      {
        EXPECT_EQ(unavailable_reason(all_optional, fake_gpu(device, code)), "") << device << " " << code;
      }
    }
  }
}

// The fast path of a feature with a fallback runs only where both the device and the code have it: the
// host picks a launch form by this (a programmatic dependent launch only where the kernel waits).
TEST(Requirements, AFeaturesFastPathNeedsTheDeviceAndTheCode)
{
  EXPECT_FALSE(feature_active(Feature::l2_cache_hints, fake_gpu(75, 75)));
  EXPECT_TRUE(feature_active(Feature::l2_cache_hints, fake_gpu(80, 80)));
  EXPECT_FALSE(feature_active(Feature::l2_cache_hints, fake_gpu(90, 75)));
  EXPECT_TRUE(feature_active(Feature::warp_redux, fake_gpu(86, 80)));
  EXPECT_FALSE(feature_active(Feature::programmatic_dependent_launch, fake_gpu(90, 80)));
  EXPECT_FALSE(feature_active(Feature::programmatic_dependent_launch, fake_gpu(89, 89)));
  EXPECT_TRUE(feature_active(Feature::programmatic_dependent_launch, fake_gpu(90, 90)));
  EXPECT_TRUE(feature_active(Feature::programmatic_dependent_launch, fake_gpu(120, 100)));
  Target no_clusters         = fake_gpu(100, 100);
  no_clusters.cluster_launch = false;
  EXPECT_FALSE(feature_active(Feature::thread_block_clusters, no_clusters));
}

TEST(Requirements, TheCodeARunUsesIsNamedAsTheRuntimeReportsIt)
{
  EXPECT_EQ(describe_code(fake_gpu(90, 90)), "sm_90 SASS");
  EXPECT_EQ(describe_code(fake_gpu(90, 80)), "compute_80 PTX, JIT-compiled by the driver for sm_90");
  EXPECT_EQ(describe_code(fake_gpu(86, 0)), "none");
}

TEST(Requirements, EveryFeatureHasANameAndAnArchitecture)
{
  for (Feature feature : all_features)
  {
    EXPECT_STRNE(to_string(feature), "?");
    EXPECT_GE(first_arch(feature), 60);
    EXPECT_NE(describe(feature).find("(sm_" + std::to_string(first_arch(feature)) + ")"), npos) << describe(feature);
  }
}

// What the registry declares: the Hopper-only lesson says so, and everything runs on the newest
// architecture of the portable list, everything without a required feature on the oldest.
TEST(Requirements, TheRegistryDeclaresWhatItsKernelsNeed)
{
  const Reduction* cluster = find("modern.cluster");
  ASSERT_NE(cluster, nullptr);
  EXPECT_TRUE(cluster->info().needs.requires_feature(Feature::thread_block_clusters));
  EXPECT_NE(cluster->info().needs.kernel, nullptr) << "its own kernel's compiled code is what is checked";
  const Reduction* cooperative = find("modern.cooperative");
  ASSERT_NE(cooperative, nullptr);
  EXPECT_TRUE(cooperative->info().needs.requires_feature(Feature::cooperative_launch));
  const Reduction* segmented = find("segmented.adaptive");
  ASSERT_NE(segmented, nullptr);
  EXPECT_TRUE(segmented->info().needs.uses(Feature::programmatic_dependent_launch));
  EXPECT_FALSE(segmented->info().needs.requires_feature(Feature::programmatic_dependent_launch)) << "it has a fallback";
  for (const Reduction* impl : registry())
  {
    const Requirements& needs = impl->info().needs;
    EXPECT_EQ(unavailable_reason(needs, fake_gpu(120, 120)), "") << impl->info().name;
    if (needs.required.empty() || needs.arch() <= 75)
    {
      EXPECT_EQ(unavailable_reason(needs, fake_gpu(75, 75)), "") << impl->info().name;
    }
  }
}

// Without a GPU there is nothing to judge against: every implementation counts as available, and the
// launch reports the missing GPU as it always has (validate() must not refuse a well-formed problem).
TEST(Requirements, WithoutAGpuNothingIsRefusedForItsRequirements)
{
  if (!no_gpu_reason().empty())
  {
    for (const Reduction* impl : registry())
    {
      EXPECT_TRUE(available_here(*impl).ok) << impl->info().name;
    }
  }
  EXPECT_STRNE(build_cuda_architectures(), "") << "the build records its CUDA architectures";
}

} // namespace
} // namespace redu::test
