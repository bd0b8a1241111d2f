/// \file
/// The memory model's rules on each built-in target, with expectations computed from the target's coefficients:
/// access rules (partition start, free dimensions, sizes, strides, elements), the strided-access penalty, DMA
/// efficiency by bytes per partition, the HBM share, and the static and dependency overheads.

#include "tessera/isa/AccessRules.h"
#include "tessera/isa/Cost.h"
#include "tessera/isa/DmaCost.h"
#include "tessera/isa/InstructionOverhead.h"

#include <gtest/gtest.h>

#include <string>

namespace tessera::isa {
namespace {

AccessPattern onChip(MemSpace space, uint32_t start, uint32_t partitions, int64_t n, DType dtype = DType::F32,
                     int64_t stride = 1, int64_t offset = 0) {
  AccessPattern ap = AccessPattern::dense(space, dtype, start, partitions, offset, n);
  ap.strides[0] = stride;
  return ap;
}

AccessPattern hbmRows(uint32_t rows, int64_t n, DType dtype = DType::BF16, int64_t stride = 1) {
  AccessPattern ap = AccessPattern::dense(MemSpace::Hbm, dtype, 0, rows, 0, n);
  ap.tensor = 0;
  ap.strides[0] = stride;
  ap.partitionStride = n * stride;
  return ap;
}

Instruction load(uint32_t partitions, int64_t n, DType dtype = DType::BF16, int64_t hbmStride = 1) {
  Instruction inst;
  inst.op = Opcode::DmaCopy;
  inst.src0 = hbmRows(partitions, n, dtype, hbmStride);
  inst.dst = onChip(MemSpace::Sbuf, 0, partitions, n, dtype);
  return inst;
}

Instruction activation(AccessPattern in, AccessPattern out) {
  Instruction inst;
  inst.op = Opcode::Activation;
  inst.scale = 1.0f;
  inst.src0 = in;
  inst.dst = out;
  return inst;
}

class MemoryModel : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override { t_ = Target::find(GetParam()); }
  Target t_;
};

// --- partition start ------------------------------------------------------------------------------------------

TEST_P(MemoryModel, PartitionStartFollowsTheQuadrantRule) {
  const uint32_t q = t_.access.partitionQuadrant; // 32 on every NeuronCore
  // docs/targets.md "Access rules": more than 64 partitions start at 0; 33-64 at 0 or 64; 32 or fewer at 0/32/64/96.
  EXPECT_EQ(partitionAlignment(128, t_), 4 * q);
  EXPECT_EQ(partitionAlignment(2 * q + 1, t_), 4 * q);
  EXPECT_EQ(partitionAlignment(2 * q, t_), 2 * q);
  EXPECT_EQ(partitionAlignment(q + 1, t_), 2 * q);
  EXPECT_EQ(partitionAlignment(q, t_), q);
  EXPECT_EQ(partitionAlignment(1, t_), q);
  for (uint32_t start : {0u, q, 2 * q, 3 * q})
    EXPECT_FALSE(accessRuleViolation(onChip(MemSpace::Sbuf, start, q, 64), t_)) << start;
  for (uint32_t start : {0u, 2 * q})
    EXPECT_FALSE(accessRuleViolation(onChip(MemSpace::Psum, start, 2 * q, 64), t_)) << start;
  EXPECT_FALSE(accessRuleViolation(onChip(MemSpace::Sbuf, 0, 4 * q, 64), t_));

  const auto broken = accessRuleViolation(onChip(MemSpace::Sbuf, q, 2 * q, 64), t_);
  ASSERT_TRUE(broken);
  EXPECT_EQ(*broken, "starts at partition 32, but an access of 64 partitions starts at a multiple of 64");
  EXPECT_TRUE(accessRuleViolation(onChip(MemSpace::Sbuf, 2 * q, 2 * q + 1, 64), t_)); // 65 partitions start at 0
  EXPECT_TRUE(accessRuleViolation(onChip(MemSpace::Sbuf, 16, 16, 64), t_));           // not on a quadrant
}

// --- free dimensions, sizes, strides, elements ------------------------------------------------------------------

TEST_P(MemoryModel, FreeDimensionLimits) {
  AccessPattern fourD = onChip(MemSpace::Sbuf, 0, 128, 1);
  fourD.freeRank = 4;
  fourD.sizes = {2, 3, 4, 5};
  fourD.strides = {60, 20, 5, 1};
  EXPECT_FALSE(accessRuleViolation(fourD, t_));

  AccessPattern stride = onChip(MemSpace::Sbuf, 0, 128, 2, DType::BF16, t_.access.maxStride);
  EXPECT_FALSE(accessRuleViolation(stride, t_));
  stride.strides[0] = -t_.access.maxStride - 1; // int16's most negative
  EXPECT_FALSE(accessRuleViolation(stride, t_));
  stride.strides[0] = t_.access.maxStride + 1;
  const auto tooFar = accessRuleViolation(stride, t_);
  ASSERT_TRUE(tooFar);
  EXPECT_NE(tooFar->find("stride 32768"), std::string::npos) << *tooFar;

  const int64_t longest = int64_t(t_.access.maxSize);
  const auto tooLong = accessRuleViolation(onChip(MemSpace::Sbuf, 0, 128, longest + 1, DType::BF16), t_);
  ASSERT_TRUE(tooLong);
  EXPECT_NE(tooLong->find("size 65536"), std::string::npos) << *tooLong;

  // Elements per partition: 64K in SBUF, 4K in PSUM.
  AccessPattern sbufAll = onChip(MemSpace::Sbuf, 0, 128, 2, DType::BF16);
  sbufAll.freeRank = 2;
  sbufAll.sizes = {int64_t(t_.access.maxSbufElements) / 2, 2};
  sbufAll.strides = {2, 1};
  EXPECT_FALSE(accessRuleViolation(sbufAll, t_));
  sbufAll.sizes[0] += 1;
  EXPECT_TRUE(accessRuleViolation(sbufAll, t_));
  EXPECT_FALSE(accessRuleViolation(onChip(MemSpace::Psum, 0, 128, int64_t(t_.access.maxPsumElements)), t_));
  const auto psum = accessRuleViolation(onChip(MemSpace::Psum, 0, 128, int64_t(t_.access.maxPsumElements) + 1), t_);
  ASSERT_TRUE(psum);
  EXPECT_EQ(*psum, "touches 4097 elements per partition; an access of psum touches at most 4096");
}

TEST_P(MemoryModel, RulesApplyToEngineInstructionsOnChipOnly) {
  const AccessPattern sbuf = onChip(MemSpace::Sbuf, 0, 128, 8);
  EXPECT_TRUE(accessRulesApply(Engine::Vector, sbuf));
  EXPECT_TRUE(accessRulesApply(Engine::Tensor, sbuf));
  EXPECT_FALSE(accessRulesApply(Engine::Dma, sbuf));
  EXPECT_FALSE(accessRulesApply(Engine::Vector, hbmRows(128, 8)));
}

TEST_P(MemoryModel, ALongRowSplitsIntoTwoDimensionsWalkingTheSameElements) {
  const int64_t n = int64_t(t_.access.maxSbufElements); // 64K: one more than a uint16 size holds
  AccessPattern row = onChip(MemSpace::Sbuf, 0, 128, n, DType::BF16);
  ASSERT_TRUE(accessRuleViolation(row, t_));
  ASSERT_TRUE(splitLongFreeDimension(row, t_));
  EXPECT_FALSE(accessRuleViolation(row, t_));
  EXPECT_EQ(row.freeRank, 2);
  EXPECT_EQ(row.freeElements(), n);
  EXPECT_EQ(row.strides[1], 1);
  EXPECT_EQ(row.strides[0], row.sizes[1]); // row-major and dense: the same bytes in the same order
  EXPECT_EQ(row.byteExtent(), onChip(MemSpace::Sbuf, 0, 128, n, DType::BF16).byteExtent());
  // Nothing to do for a row that fits, or a pattern already 2-D.
  AccessPattern fits = onChip(MemSpace::Sbuf, 0, 128, 512);
  EXPECT_FALSE(splitLongFreeDimension(fits, t_));
  EXPECT_EQ(fits.freeRank, 1);
  EXPECT_FALSE(splitLongFreeDimension(row, t_));
}

// --- strided access ---------------------------------------------------------------------------------------------

TEST_P(MemoryModel, AMinorStrideOverSixteenBytesHalvesStreaming) {
  const int64_t n = 512;
  const uint64_t base = t_.cost.accessOverheadCycles;
  // FP32 at stride 4 is 16 bytes: not over the limit. At stride 5 (20 bytes) it is.
  const AccessPattern out = onChip(MemSpace::Sbuf, 0, 128, n);
  EXPECT_EQ(engineCycles(activation(onChip(MemSpace::Sbuf, 0, 128, n, DType::F32, 4), out), Engine::Scalar, t_),
            base + n);
  EXPECT_EQ(engineCycles(activation(onChip(MemSpace::Sbuf, 0, 128, n, DType::F32, 5), out), Engine::Scalar, t_),
            base + n * t_.cost.stridedAccessFactor);
  EXPECT_EQ(t_.cost.stridedAccessFactor, 2u); // NKI: halves the bandwidth
  // A strided destination counts as well; a broadcast (stride 0) does not.
  EXPECT_EQ(engineCycles(activation(out, onChip(MemSpace::Sbuf, 0, 128, n, DType::F32, 8)), Engine::Scalar, t_),
            base + n * t_.cost.stridedAccessFactor);
  EXPECT_EQ(engineCycles(activation(onChip(MemSpace::Sbuf, 0, 128, n, DType::F32, 0), out), Engine::Scalar, t_),
            base + n);
}

// --- DMA ----------------------------------------------------------------------------------------------------------

TEST_P(MemoryModel, NoEfficiencyCurve) {
  // The engines stream at their full rate at every size (efficiency_knee_bytes = 0): small transfers are slow
  // because of the fixed cost and the descriptor time (docs/memory.md).
  for (double b = 32; b <= 65536; b *= 2) EXPECT_DOUBLE_EQ(dmaEfficiency(b, t_.dma), 1.0) << b;
}

TEST_P(MemoryModel, ATransferStreamsOnTheEnginesOfItsPartitions) {
  const double bw = t_.dma.bytesPerNsPerEngine;
  // [128 x 2048] BF16: 16 engines of 8 partitions, each moving 8 x 4 KiB.
  const DmaTransferCost big = dmaTransferCost(load(128, 2048), t_);
  EXPECT_EQ(big.bytes, 128u * 2048 * 2);
  EXPECT_EQ(big.hbmBytes, big.bytes);
  EXPECT_DOUBLE_EQ(big.bytesPerPartition, 4096.0);
  EXPECT_DOUBLE_EQ(big.efficiency, 1.0);
  EXPECT_EQ(big.firstEngine, 0u);
  EXPECT_EQ(big.engines, 16u);
  EXPECT_DOUBLE_EQ(big.streamingNs, 8 * 4096.0 / bw);
  EXPECT_DOUBLE_EQ(big.hbmNs, double(big.bytes) / (t_.hbm.chipGBps / t_.hbm.coresPerChip));
  EXPECT_DOUBLE_EQ(big.leastNs, std::max({t_.dma.fixedLatencyNs, t_.dma.descriptorNs, big.streamingNs}));

  // [128 x 128] BF16, 256 B per partition: 16 engines of 2 KiB each, the fixed cost its least time.
  const DmaTransferCost small = dmaTransferCost(load(128, 128), t_);
  EXPECT_EQ(small.engines, 16u);
  EXPECT_DOUBLE_EQ(small.streamingNs, 8 * 256.0 / bw);
  EXPECT_DOUBLE_EQ(small.leastNs, std::max(t_.dma.fixedLatencyNs, t_.dma.descriptorNs));

  // [4 x 4096] BF16 (NKI DMA overview, Example 1): one engine moves all 32 KiB.
  const DmaTransferCost four = dmaTransferCost(load(4, 4096), t_);
  EXPECT_EQ(four.engines, 1u);
  EXPECT_DOUBLE_EQ(four.streamingNs, 4 * 8192.0 / bw);

  // 12 partitions from partition 4: engines 0 (4 of them) and 1 (8), the fuller one setting the time.
  Instruction twelve = load(12, 1024);
  twelve.dst.partitionStart = 4;
  const DmaTransferCost split = dmaTransferCost(twelve, t_);
  EXPECT_EQ(split.firstEngine, 0u);
  EXPECT_EQ(split.engines, 2u);
  EXPECT_DOUBLE_EQ(split.streamingNs, 8 * 2048.0 / bw);

  // The upper 64 partitions: engines 8 to 15.
  Instruction upper = load(64, 1024);
  upper.dst.partitionStart = 64;
  const DmaTransferCost half = dmaTransferCost(upper, t_);
  EXPECT_EQ(half.firstEngine, 8u);
  EXPECT_EQ(half.engines, 8u);

  // The HBM side walked with a 32-byte stride: the stride penalty halves the rate.
  const DmaTransferCost strided = dmaTransferCost(load(128, 2048, DType::BF16, 16), t_);
  EXPECT_DOUBLE_EQ(strided.efficiency, 1.0 / t_.cost.stridedAccessFactor);
}

TEST_P(MemoryModel, QueuesSpreadOverTheDmaEngines) {
  for (uint32_t q = 0; q < 2 * t_.dma.engines; ++q)
    EXPECT_EQ(dmaEngineOf(q, t_), q % t_.dma.engines);
}

// --- static overhead and dependencies ---------------------------------------------------------------------------

/// `n` FP32 elements of SBUF partitions [start, start + partitions) at byte `offset`.
AccessPattern at(int64_t offset, int64_t n, uint32_t start = 0, uint32_t partitions = 128) {
  return onChip(MemSpace::Sbuf, start, partitions, n, DType::F32, 1, offset);
}

TEST_P(MemoryModel, TinyOrDependentVectorScalarInstructionsPayTheStaticOverhead) {
  const uint64_t overhead = t_.cost.staticOverheadCycles;
  const int64_t tiny = t_.cost.tinyFreeElements - 1, big = 512;
  const Instruction a = activation(at(0, big), at(4096, big));
  // b reads what a wrote; c reads elsewhere.
  const Instruction b = activation(a.dst, at(8192, big));
  const Instruction c = activation(at(16384, big), at(20480, big));
  EXPECT_TRUE(readsOutputOf(b, a));
  EXPECT_FALSE(readsOutputOf(c, a));
  EXPECT_EQ(staticOverheadCycles(a, nullptr, Engine::Scalar, t_), 0u);
  EXPECT_EQ(staticOverheadCycles(b, &a, Engine::Scalar, t_), overhead);
  EXPECT_EQ(staticOverheadCycles(b, &a, Engine::Vector, t_), overhead);
  EXPECT_EQ(staticOverheadCycles(c, &a, Engine::Vector, t_), 0u);
  EXPECT_EQ(dependencyCommitCycles(b, &a, Engine::Scalar, t_), t_.cost.dependencyCommitCycles);
  EXPECT_EQ(dependencyCommitCycles(c, &a, Engine::Scalar, t_), 0u);
  // Only Vector and Scalar pay it (NKI); GpSimd has its start-up instead, the tensor engine its own formula.
  EXPECT_EQ(staticOverheadCycles(b, &a, Engine::GpSimd, t_), 0u);
  EXPECT_EQ(dependencyCommitCycles(b, &a, Engine::GpSimd, t_), 0u);
  // Tiny: N << 128.
  EXPECT_EQ(staticOverheadCycles(activation(at(0, tiny), at(4096, tiny)), nullptr, Engine::Vector, t_), overhead);
  EXPECT_EQ(staticOverheadCycles(activation(at(0, tiny + 1), at(4096, tiny + 1)), nullptr, Engine::Vector, t_), 0u);
  // Different partitions do not overlap.
  const Instruction lower = activation(at(0, big, 0, 64), at(4096, big, 0, 64));
  const Instruction upper = activation(at(4096, big, 64, 64), at(0, big, 64, 64));
  EXPECT_FALSE(readsOutputOf(upper, lower));
}

// A DMA transpose streams at the documented fraction of a copy's rate (trn2: 90% from HBM, 50% from SBUF; NKI
// Trainium2 architecture guide), and the same shape as a copy costs a copy's.
TEST(DmaTranspose, StreamsAtTheDocumentedShareOfACopy) {
  const Target t = Target::find("trn2");
  ASSERT_DOUBLE_EQ(t.dma.transposeHbmEfficiency, 0.9);
  ASSERT_DOUBLE_EQ(t.dma.transposeSbufEfficiency, 0.5);
  Instruction copy = load(128, 2048);
  Instruction transpose = copy;
  transpose.op = Opcode::DmaTranspose;
  const DmaTransferCost fromHbm = dmaTransferCost(transpose, t);
  EXPECT_DOUBLE_EQ(fromHbm.streamingNs, dmaTransferCost(copy, t).streamingNs / 0.9);
  copy.src0 = onChip(MemSpace::Sbuf, 0, 128, 2048, DType::BF16);
  copy.dst = onChip(MemSpace::Sbuf, 0, 128, 2048, DType::BF16);
  copy.dst.offset = 8192;
  transpose.src0 = copy.src0;
  transpose.dst = copy.dst;
  EXPECT_DOUBLE_EQ(dmaTransferCost(transpose, t).streamingNs, dmaTransferCost(copy, t).streamingNs / 0.5);
}

INSTANTIATE_TEST_SUITE_P(Builtin, MemoryModel, ::testing::Values("trn1", "trn2", "trn3"));

} // namespace
} // namespace tessera::isa
