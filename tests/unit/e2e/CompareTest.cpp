// tessera compare: one kernel on several targets with the same inputs - time, % of peak, bound, numerics against
// the reference and the first target, price-performance from the target files (or --price).

#include "tessera/Compare.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using namespace tessera::driver;

RunRequest smallMatmul() {
  RunRequest r;
  r.kernel = "matmul";
  r.shape = {{"M", 128}, {"N", 512}, {"K", 256}};
  return r;
}

TEST(Compare, EveryColumnFilledOnBothFamilies) {
  const Comparison c = compareTargets(smallMatmul(), {"trn1", "trn2", "tpu-v5e", "tpu-v6e"}, {});
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_TRUE(c.ok);
  for (const CompareRow &r : c.rows) {
    ASSERT_TRUE(r.report) << r.target << ": " << r.error;
    EXPECT_GT(r.report->timeUs(), 0) << r.target;
    EXPECT_GT(r.report->peakPercent(), 0) << r.target;
    EXPECT_FALSE(r.report->bound().kind.empty()) << r.target;
    // bf16 outputs of an FP32-accumulated matmul differ from the FP32 reference by their rounding, no more.
    ASSERT_EQ(r.vsReference.size(), 1u);
    EXPECT_GT(r.vsReference[0].maxRel, 0) << r.target;
    EXPECT_LE(r.vsReference[0].maxRel, tolerance(isa::DType::BF16)) << r.target;
    ASSERT_EQ(r.vsFirst.size(), 1u);
    EXPECT_LE(r.vsFirst[0].maxRel, 2 * tolerance(isa::DType::BF16)) << r.target;
    ASSERT_TRUE(r.dollarsPerMillionCalls()) << r.target << " has no price";
    EXPECT_NEAR(*r.dollarsPerMillionCalls(), r.report->timeUs() / 3600.0 * r.pricePerChipHour / r.coresPerChip, 1e-12);
  }
  EXPECT_EQ(c.rows[0].vsFirst[0].maxAbs, 0); // trn1 against itself
  EXPECT_EQ(c.rows[1].coresPerChip, 8u);     // trn2: the chip's price is shared by its 8 NeuronCores
  EXPECT_EQ(c.rows[2].coresPerChip, 1u);     // v5e: one TensorCore per chip
}

TEST(Compare, PriceFromTheCommandLineAndNoneWithoutOne) {
  const Comparison c = compareTargets(smallMatmul(), {"trn3", "tpu-v5e"}, {{"tpu-v5e", 10.0}});
  ASSERT_TRUE(c.rows[0].report);
  EXPECT_EQ(c.rows[0].pricePerChipHour, 0); // trn3.toml has no public price
  EXPECT_FALSE(c.rows[0].dollarsPerMillionCalls());
  EXPECT_EQ(c.rows[1].pricePerChipHour, 10.0);
}

TEST(Compare, AKernelThatDoesNotRunOnAFamilyIsARowWithItsReason) {
  RunRequest r;
  r.kernel = "test_isa_tensor_scalar"; // tsr::isa calls: NeuronCore only (IsaElementwiseTest registers it)
  const Comparison c = compareTargets(r, {"trn2", "tpu-v5e"}, {});
  ASSERT_TRUE(c.rows[0].report);
  EXPECT_FALSE(c.rows[1].report);
  EXPECT_NE(c.rows[1].error.find("is a NeuronCore instruction"), std::string::npos) << c.rows[1].error;
  EXPECT_THROW(compareTargets(r, {"trn2", "trn9"}, {}), InputError);
  EXPECT_THROW(compareTargets(r, {}, {}), InputError);
}

} // namespace
