// A kernel whose FP32 arithmetic errs by more than its output dtype's default tolerance says how much it accepts
// against its reference (KernelInfo::referenceTolerance). Found: the NKI attention tutorial ports at seqlen 512
// missed FP32's default at a third of the seeds (max rel err up to 1.68e-5 of 1.02e-5), so `tessera run
// tut_attention_v3 --seed 7` said FAILED for a correct kernel.

#include "tessera/Driver.h"
#include "tessera/HostData.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using driver::tolerance;

TEST(ReferenceTolerance, AKernelsOwnWidensTheDefaultAndNeverNarrowsIt) {
  const double f32 = tolerance(isa::DType::F32);
  EXPECT_NEAR(f32, 1.024e-5, 1e-8);
  EXPECT_EQ(tolerance(isa::DType::F32, 1e-4), 1e-4);
  EXPECT_EQ(tolerance(isa::DType::F32, 1e-9), f32);
  EXPECT_EQ(tolerance(isa::DType::F32, 0), f32);
}

TEST(ReferenceTolerance, WidensTheReferencesCheckOnlyNotTheGoldenModels) {
  const tsr::HostTensor ref = {1.0f, -1.0f, 0.5f, 0.25f}, out = {1.00005f, -1.0f, 0.5f, 0.25f}; // 5e-5 off
  const driver::TensorCheck withKernels = driver::compareWithBoth("y", isa::DType::F32, out, &ref, &ref, 1e-4);
  ASSERT_TRUE(withKernels.vsGolden && withKernels.vsReference);
  EXPECT_TRUE(withKernels.vsReference->ok);
  EXPECT_EQ(withKernels.vsReference->tolerance, 1e-4);
  EXPECT_FALSE(withKernels.vsGolden->ok); // the golden model computes in the DSL's order: the default holds
  EXPECT_FALSE(withKernels.ok);
  // The summary's error and tolerance are the failed check's, so that it reads as failed.
  EXPECT_EQ(withKernels.tolerance, tolerance(isa::DType::F32));
  EXPECT_GT(withKernels.maxRelErr, withKernels.tolerance);
  const driver::TensorCheck referenceOnly = driver::compareWithBoth("y", isa::DType::F32, out, nullptr, &ref, 1e-4);
  EXPECT_TRUE(referenceOnly.ok);
  EXPECT_EQ(referenceOnly.tolerance, 1e-4);
  EXPECT_FALSE(driver::compareWithBoth("y", isa::DType::F32, out, nullptr, &ref).ok); // the default: 1.02e-5
}

TEST(ReferenceTolerance, AttentionPortsPassAtEverySeed) {
  for (const char *kernel : {"tut_attention_v3", "tut_attention_v6"})
    for (uint64_t seed = 0; seed < 12; ++seed) { // seeds 4, 7 and 8 failed at FP32's default
      const driver::RunReport r = driver::runKernel({.kernel = kernel, .target = "trn2", .seed = seed});
      ASSERT_EQ(r.checks.size(), 1u);
      EXPECT_TRUE(r.ok) << kernel << " at seed " << seed << ": max rel err " << r.checks[0].maxRelErr;
      EXPECT_EQ(r.checks[0].tolerance, 1e-4) << kernel;
    }
}

} // namespace
