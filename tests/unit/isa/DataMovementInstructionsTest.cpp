/// \file
/// tensor_copy_predicated and dma_transpose (isa/lib/instructions/DataMovement.cpp): values through isa::execute
/// against plain C++ references (both move bytes unchanged, so NaN payloads and integers beyond 2^24 survive),
/// their verify rules, and their costs on every NeuronCore target.

#include "ElementwiseTestSupport.h"

#include "tessera/isa/Cost.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tessera::isa {
namespace {

using namespace elementwise_testing;

Instruction make(Opcode op) {
  Instruction inst;
  inst.op = op;
  return inst;
}

::testing::AssertionResult rejects(const Instruction &inst, const std::string &text,
                                   std::optional<Engine> engine = std::nullopt, const Target *target = nullptr) {
  const std::string problem = verifyInstruction(inst, engine, target);
  if (problem.find(text) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected a problem containing \"" << text << "\", got \"" << problem << "\"";
}

/// Writes raw 16-bit patterns into a 2-byte operand, partition-major.
void writeBits16(TestMemory &mem, const AccessPattern &ap, const std::vector<uint16_t> &bits) {
  size_t k = 0;
  for (int64_t p = 0; p < ap.partitions; ++p)
    for (int64_t i = 0; i < ap.freeElements(); ++i, ++k)
      std::memcpy(mem.element(ap, p, i), &bits[k], 2);
}

uint16_t bits16(TestMemory &mem, const AccessPattern &ap, int64_t p, int64_t i) {
  uint16_t b;
  std::memcpy(&b, mem.element(ap, p, i), 2);
  return b;
}

// ---- tensor_copy_predicated -------------------------------------------------------------------------------

TEST(TensorCopyPredicated, CopiesWhereThePredicateIsNonZero) {
  for (bool reverse : {false, true}) {
    TestMemory mem;
    Instruction inst = make(Opcode::TensorCopyPredicated);
    inst.reverse0 = reverse;
    const uint32_t rows = 12;
    inst.src0 = strided(MemSpace::Psum, DType::BF16, 0, rows, 0, {3, 16}, {32, 1});
    inst.src1 = dense(MemSpace::Sbuf, DType::U8, 20, rows, 100, 48);
    inst.dst = dense(MemSpace::Sbuf, DType::BF16, 40, rows, 512, 48);
    ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
    const std::vector<float> src = mem.fillRandom(inst.src0, 61);
    const std::vector<float> before = mem.fillRandom(inst.dst, 62);
    std::mt19937 rng(63);
    std::vector<float> predicate(rows * 48);
    for (float &v : predicate)
      v = static_cast<float>(std::array{0, 0, 1, 7, 255}[rng() % 5]);
    mem.write(inst.src1, predicate);
    execute(inst, mem.memories());
    std::vector<float> expected;
    for (size_t k = 0; k < predicate.size(); ++k)
      expected.push_back((predicate[k] != 0) != reverse ? src[k] : before[k]);
    EXPECT_TRUE(sameValues(expected, mem.readAll(inst.dst))) << "reverse_pred " << reverse;
  }
}

TEST(TensorCopyPredicated, ScalarSourceAndU32Predicate) {
  TestMemory mem;
  Instruction inst = make(Opcode::TensorCopyPredicated);
  inst.value = 2.5f;
  inst.src1 = dense(MemSpace::Sbuf, DType::U32, 0, 1, 0, 5);
  inst.dst = dense(MemSpace::Sbuf, DType::F16, 0, 1, 64, 5);
  const uint32_t predicate[5] = {0, 1, 0x80000000u, 0, 0xFFFFFFFFu};
  std::memcpy(mem.element(inst.src1, 0, 0), predicate, sizeof predicate);
  mem.write(inst.dst, {-1.0f, -2.0f, -3.0f, -4.0f, -5.0f});
  EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  execute(inst, mem.memories());
  EXPECT_TRUE(sameValues({-1.0f, 2.5f, 2.5f, -4.0f, 2.5f}, mem.readAll(inst.dst)));
}

TEST(TensorCopyPredicated, MovesBytesExactly) {
  // Integers beyond 2^24 and NaN payloads, which a trip through FP32 would change, in copied and kept elements.
  TestMemory mem;
  Instruction ints = make(Opcode::TensorCopyPredicated);
  ints.src0 = dense(MemSpace::Sbuf, DType::I32, 0, 1, 0, 4);
  ints.src1 = dense(MemSpace::Sbuf, DType::U8, 0, 1, 64, 4);
  ints.dst = dense(MemSpace::Sbuf, DType::I32, 0, 1, 128, 4);
  const int32_t src[4] = {16777217, -16777219, 2147483647, 5}, dst[4] = {33554433, 7, -2147483647, 123456789};
  std::memcpy(mem.element(ints.src0, 0, 0), src, sizeof src);
  std::memcpy(mem.element(ints.dst, 0, 0), dst, sizeof dst);
  mem.write(ints.src1, {1, 0, 1, 0});
  execute(ints, mem.memories());
  int32_t out[4];
  std::memcpy(out, mem.element(ints.dst, 0, 0), sizeof out);
  EXPECT_EQ(std::vector<int32_t>(out, out + 4), (std::vector<int32_t>{16777217, 7, 2147483647, 123456789}));

  Instruction nans = make(Opcode::TensorCopyPredicated);
  nans.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, 1, 256, 3);
  nans.src1 = dense(MemSpace::Sbuf, DType::U8, 0, 1, 300, 3);
  nans.dst = dense(MemSpace::Sbuf, DType::BF16, 0, 1, 320, 3);
  writeBits16(mem, nans.src0, {0x7FC1, 0xFF81, 0x8000}); // two NaN payloads and -0
  writeBits16(mem, nans.dst, {0x1234, 0x7F85, 0x4321});  // a signalling-NaN pattern to keep
  mem.write(nans.src1, {1, 0, 1});
  execute(nans, mem.memories());
  EXPECT_EQ(bits16(mem, nans.dst, 0, 0), 0x7FC1);
  EXPECT_EQ(bits16(mem, nans.dst, 0, 1), 0x7F85);
  EXPECT_EQ(bits16(mem, nans.dst, 0, 2), 0x8000);
}

TEST(TensorCopyPredicated, ReadsDstAndTheSourcesItHas) {
  Instruction inst = make(Opcode::TensorCopyPredicated);
  inst.src1 = dense(MemSpace::Sbuf, DType::U8, 0, 4, 0, 8);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 4, 64, 8);
  OperandUse use = operandUse(inst);
  EXPECT_TRUE(!use.src0 && use.src1 && use.readsDst && use.writesDst && !use.writesDst2);
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 4, 128, 8);
  use = operandUse(inst);
  EXPECT_TRUE(use.src0 && use.src1 && use.readsDst && use.writesDst);
}

TEST(TensorCopyPredicated, VerifyRules) {
  Instruction inst = make(Opcode::TensorCopyPredicated);
  inst.src0 = dense(MemSpace::Psum, DType::F32, 0, 4, 0, 8);
  inst.src1 = dense(MemSpace::Sbuf, DType::U8, 0, 4, 0, 8);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 4, 64, 8);
  EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  EXPECT_TRUE(rejects(inst, "cannot run on the scalar engine", Engine::Scalar));
  Instruction floatPredicate = inst;
  floatPredicate.src1.dtype = DType::F32;
  EXPECT_TRUE(rejects(floatPredicate, "predicate must be u8 or u32, not f32"));
  Instruction mixed = inst;
  mixed.src0.dtype = DType::BF16;
  EXPECT_TRUE(rejects(mixed, "src and dst must share a dtype, not bf16 and f32"));
  Instruction bothPsum = inst;
  bothPsum.src1.space = MemSpace::Psum;
  EXPECT_TRUE(rejects(bothPsum, "src and predicate cannot both be in PSUM"));
  Instruction shape = inst;
  shape.src1 = dense(MemSpace::Sbuf, DType::U8, 0, 4, 0, 4);
  EXPECT_TRUE(rejects(shape, "predicate is [4, 4] but dst is [4, 8]"));
  Instruction noPredicate = inst;
  noPredicate.src1 = {};
  EXPECT_TRUE(rejects(noPredicate, "needs operand src1"));
}

TEST(TensorCopyPredicated, CostsTwoInputsWithATileSource) {
  for (const Target &target : neuronCoreTargets())
    for (int64_t n : {1, 32, 33, 512}) {
      Instruction inst = make(Opcode::TensorCopyPredicated);
      inst.src1 = dense(MemSpace::Sbuf, DType::U8, 0, 128, 0, n);
      inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 128, 4096, n);
      EXPECT_EQ(engineCycles(inst, Engine::Vector, target), expectedStreamingCycles(target, Engine::Vector, n))
          << target.name << " scalar source";
      inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 128, 8192, n);
      EXPECT_EQ(engineCycles(inst, Engine::Vector, target),
                expectedStreamingCycles(target, Engine::Vector, n * target.cost.twoInputFactor))
          << target.name << " tile source";
    }
}

// ---- dma_transpose ----------------------------------------------------------------------------------------

TEST(DmaTranspose, HbmToSbuf) {
  TestMemory mem;
  const int64_t rowLength = 100, p = 40, f = 96;
  const int32_t x = mem.addTensor(64 * rowLength * 2);
  Instruction inst = make(Opcode::DmaTranspose);
  inst.src0 = hbmTile(x, DType::BF16, rowLength, 8, uint32_t(p), 2, f); // rows 8..47, columns 2..97
  inst.dst = dense(MemSpace::Sbuf, DType::BF16, 0, uint32_t(f), 512, p);
  ASSERT_EQ(verifyInstruction(inst, Engine::Dma, nullptr), "");
  const std::vector<float> src = mem.fillRandom(inst.src0, 71);
  execute(inst, mem.memories());
  std::vector<float> expected;
  for (int64_t j = 0; j < f; ++j)
    for (int64_t i = 0; i < p; ++i)
      expected.push_back(src[i * f + j]);
  EXPECT_TRUE(sameValues(expected, mem.readAll(inst.dst)));
}

TEST(DmaTranspose, StridedSbufToHbmKeepsEveryBit) {
  TestMemory mem;
  const uint32_t p = 6;
  const int64_t f = 10;
  // src [6, 2 x 5], the inner dimension walked with stride 2: its free dimensions flatten to F = 10.
  Instruction inst = make(Opcode::DmaTranspose);
  inst.src0 = strided(MemSpace::Sbuf, DType::F16, 16, p, 64, {2, 5}, {16, 2});
  const int32_t y = mem.addTensor(f * p * 2 + 8);
  inst.dst = hbmTile(y, DType::F16, p, 0, uint32_t(f), 0, p);
  std::vector<uint16_t> bits(p * f);
  for (size_t k = 0; k < bits.size(); ++k)
    bits[k] = static_cast<uint16_t>(0x3C00 + 37 * k); // distinct halves
  bits[3] = 0x7E01; // a NaN payload
  bits[4] = 0x8000; // -0
  writeBits16(mem, inst.src0, bits);
  ASSERT_EQ(verifyInstruction(inst, Engine::Dma, nullptr), "");
  execute(inst, mem.memories());
  for (int64_t j = 0; j < f; ++j)
    for (int64_t i = 0; i < p; ++i)
      EXPECT_EQ(bits16(mem, inst.dst, j, i), bits[i * f + j]) << j << "," << i;
  // Nothing past the tile is written.
  EXPECT_EQ(mem.hbm[y][f * p * 2], std::byte{0});
}

TEST(DmaTranspose, VerifyRules) {
  Instruction inst = make(Opcode::DmaTranspose);
  inst.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, 32, 0, 64);
  inst.dst = dense(MemSpace::Sbuf, DType::BF16, 0, 64, 1024, 32);
  EXPECT_EQ(verifyInstruction(inst, Engine::Dma, nullptr), "");
  EXPECT_TRUE(rejects(inst, "cannot run on the vector engine", Engine::Vector));
  Instruction fp32 = inst;
  fp32.src0.dtype = fp32.dst.dtype = DType::F32;
  EXPECT_TRUE(rejects(fp32, "src must have a 2-byte dtype (bf16, f16), not f32"));
  Instruction convert = inst;
  convert.dst.dtype = DType::F16;
  EXPECT_TRUE(rejects(convert, "dst must have src's dtype bf16, not f16"));
  Instruction notTransposed = inst;
  notTransposed.dst = dense(MemSpace::Sbuf, DType::BF16, 0, 32, 1024, 64);
  EXPECT_TRUE(rejects(notTransposed, "dst must be [64, 32] for src [32, 64], not [32, 64]"));
  Instruction psum = inst;
  psum.dst.space = MemSpace::Psum;
  EXPECT_TRUE(rejects(psum, "src and dst must be in HBM or SBUF, not PSUM"));
  // F becomes the partitions: more than the target has does not fit.
  for (const Target &target : neuronCoreTargets()) {
    if (!generationAtLeast(target, "v3")) continue;
    Instruction tall = make(Opcode::DmaTranspose);
    tall.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, 16, 0, target.partitions + 1);
    tall.dst = dense(MemSpace::Sbuf, DType::BF16, 0, target.partitions + 1, 0, 16);
    EXPECT_TRUE(rejects(tall, "elements per partition, which become dst's partitions", Engine::Dma, &target));
    EXPECT_EQ(verifyInstruction(inst, Engine::Dma, &target), "");
  }
  // A Trainium2 DMA feature: NeuronCore-v2 has none, and the message says where NKI says so.
  const Target trn1 = Target::find("trn1");
  EXPECT_TRUE(rejects(inst, "exists from NeuronCore-v3 on; target trn1 is NeuronCore-v2 [rule "
                            "dma_transpose.generation: NKI Trainium2 architecture guide",
                      Engine::Dma, &trn1));
}

TEST(DmaTranspose, NeverTouchesPsum) {
  Instruction inst = make(Opcode::DmaTranspose);
  inst.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, 32, 0, 64);
  inst.dst = dense(MemSpace::Psum, DType::BF16, 0, 64, 0, 32);
  EXPECT_TRUE(rejects(inst, "src and dst must be in HBM or SBUF, not PSUM"));
}

TEST(DmaCopy, NeverTouchesPsum) {
  Instruction inst = make(Opcode::DmaCopy);
  inst.src0 = dense(MemSpace::Psum, DType::F32, 0, 128, 0, 512);
  inst.dst = dense(MemSpace::Hbm, DType::F32, 0, 128, 0, 512);
  inst.dst.tensor = 0;
  inst.dst.partitionStride = 512;
  EXPECT_TRUE(rejects(inst, "src0 is in PSUM, which DMA cannot read or write; copy the tile to SBUF first [rule "
                            "dma.no-psum",
                      Engine::Dma));
  std::swap(inst.src0, inst.dst);
  EXPECT_TRUE(rejects(inst, "dst is in PSUM, which DMA cannot read or write", Engine::Dma));
  inst.dst.space = MemSpace::Sbuf;
  EXPECT_EQ(verifyInstruction(inst, Engine::Dma, nullptr), "");
}

TEST(DmaTranspose, IsADmaTransferWithNoEngineCycles) {
  Instruction inst = make(Opcode::DmaTranspose);
  inst.src0 = dense(MemSpace::Hbm, DType::BF16, 0, 128, 0, 64);
  inst.src0.tensor = 0;
  inst.src0.partitionStride = 64;
  inst.dst = dense(MemSpace::Sbuf, DType::BF16, 0, 64, 0, 128);
  for (const Target &target : neuronCoreTargets())
    EXPECT_EQ(engineCycles(inst, Engine::Dma, target), 0u) << target.name;
  EXPECT_EQ(hbmBytes(inst), 128u * 64 * 2);
  EXPECT_EQ(flops(inst), 0u);
  const InstructionDef &def = definition(Opcode::DmaTranspose);
  EXPECT_TRUE(def.engines.contains(Engine::Dma) && !def.engines.contains(Engine::Vector));
  EXPECT_NE(def.cost.find("fixed_latency_ns"), std::string_view::npos);
  EXPECT_EQ(def.since, "v3");
}

} // namespace
} // namespace tessera::isa
