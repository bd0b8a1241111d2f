/// isa::execute, one opcode at a time, against a plain C++ reference that addresses every element on its own
/// (the address formula of Semantics.h, written out), on random inputs, with strided, reversed and mixed-dtype
/// operands.

#include "../isa/InstructionTestSupport.h"
#include "ProgramBuilder.h"

#include "tessera/isa/NumberFormats.h"
#include "tessera/isa/Semantics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tessera::isa {
namespace {

/// The instruction tests' memories (tests/unit/isa/InstructionTestSupport.h).
using testing::TestMemory;

AccessPattern sbuf(DType t, uint32_t p0, uint32_t rows, int64_t offset, std::vector<int64_t> sizes,
                   std::vector<int64_t> strides) {
  AccessPattern ap;
  ap.space = MemSpace::Sbuf;
  ap.dtype = t;
  ap.partitionStart = p0;
  ap.partitions = rows;
  ap.offset = offset;
  ap.freeRank = static_cast<uint8_t>(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    ap.sizes[d] = sizes[d];
    ap.strides[d] = strides[d];
  }
  return ap;
}

AccessPattern dense(MemSpace space, DType t, uint32_t p0, uint32_t rows, int64_t offset, int64_t n) {
  return AccessPattern::dense(space, t, p0, rows, offset, n);
}

std::vector<float> rounded(DType t, std::vector<float> values) {
  for (float &v : values)
    v = roundTo(t, v);
  return values;
}

TEST(Semantics, TensorCopyWalksStridesAndConvertsToBf16) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::TensorCopy;
  inst.src0 = sbuf(DType::F32, 3, 5, 256, {4, 8}, {16, 2}); // every other element of 4 rows 16 apart
  inst.dst = dense(MemSpace::Sbuf, DType::BF16, 40, 5, 4096, 32);
  const std::vector<float> input = mem.fillRandom(inst.src0, 1);
  // FP32 inputs that BF16 cannot hold, so the conversion rounds.
  std::vector<float> wide = input;
  for (size_t j = 0; j < wide.size(); ++j) {
    wide[j] += 1e-3f * static_cast<float>(j % 7);
    encode(DType::F32, &wide[j], mem.element(inst.src0, j / 32, j % 32), 1);
  }
  execute(inst, mem.memories());
  EXPECT_EQ(mem.readAll(inst.dst), rounded(DType::BF16, wide));
}

TEST(Semantics, TensorCopyReversedFourDimensional) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::TensorCopy;
  // 2x3x2x4 elements of F16, innermost reversed, starting at the end.
  inst.src0 = sbuf(DType::F16, 0, 3, 1024, {2, 3, 2, 4}, {48, 16, 8, -1});
  inst.dst = sbuf(DType::F32, 64, 3, 0, {6, 8}, {8, 1});
  const std::vector<float> input = mem.fillRandom(inst.src0, 2);
  execute(inst, mem.memories());
  EXPECT_EQ(mem.readAll(inst.dst), input);
}

TEST(Semantics, DmaCopyLoadsAnHbmTileAndStoresWithConversion) {
  TestMemory mem;
  const int64_t rowLength = 96;
  const int32_t x = mem.addTensor(64 * rowLength * 2), y = mem.addTensor(64 * rowLength);
  Instruction load;
  load.op = Opcode::DmaCopy;
  load.src0 = sim::testing::hbmTile(x, DType::BF16, rowLength, 8, 32, 16, 48); // rows 8..39, columns 16..63
  load.dst = dense(MemSpace::Sbuf, DType::F32, 0, 32, 512, 48);
  const std::vector<float> input = mem.fillRandom(load.src0, 3);
  execute(load, mem.memories());
  EXPECT_EQ(mem.readAll(load.dst), input);

  // Scale the tile so some values overflow fp8 e4m3 (max 448) and others fall below its normal range.
  std::vector<float> wide = input;
  for (size_t j = 0; j < wide.size(); ++j) {
    wide[j] *= (j % 3 == 0) ? 400.0f : (j % 3 == 1 ? 1e-3f : 3.0f);
    encode(DType::F32, &wide[j], mem.element(load.dst, j / 48, j % 48), 1);
  }
  Instruction store;
  store.op = Opcode::DmaCopy;
  store.src0 = load.dst;
  store.dst = sim::testing::hbmTile(y, DType::F8E4M3, rowLength, 0, 32, 0, 48);
  execute(store, mem.memories());
  const std::vector<float> stored = mem.readAll(store.dst), expected = rounded(DType::F8E4M3, wide);
  ASSERT_EQ(stored.size(), expected.size());
  for (size_t j = 0; j < stored.size(); ++j) {
    if (std::isnan(expected[j]))
      EXPECT_TRUE(std::isnan(stored[j])) << j;
    else
      EXPECT_EQ(stored[j], expected[j]) << j;
  }
  // Elements outside the tile stay untouched.
  EXPECT_EQ(mem.hbm[y][48], std::byte{0});
}

std::vector<float> referenceMatmul(const std::vector<float> &stationary, const std::vector<float> &moving,
                                   std::vector<float> acc, int64_t k, int64_t m, int64_t n) {
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        acc[i * n + j] += stationary[kk * m + i] * moving[kk * n + j];
  return acc;
}

TEST(Semantics, MatmulOverwritesThenAccumulatesInFp32) {
  TestMemory mem;
  const int64_t k = 96, m = 40, n = 200;
  Instruction mm;
  mm.op = Opcode::Matmul;
  mm.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, k, 0, m);
  mm.src1 = sbuf(DType::BF16, 0, k, 1024, {2, 100}, {128, 1}); // two runs of 100 elements
  mm.dst = dense(MemSpace::Psum, DType::F32, 8, m, 64, n);
  const std::vector<float> a0 = mem.fillRandom(mm.src0, 4), b0 = mem.fillRandom(mm.src1, 5);
  mem.fillRandom(mm.dst, 6, 1e6f, 2e6f); // garbage the first matmul must overwrite
  execute(mm, mem.memories());
  std::vector<float> expected = referenceMatmul(a0, b0, std::vector<float>(m * n, 0.0f), k, m, n);
  EXPECT_EQ(mem.readAll(mm.dst), expected);

  const std::vector<float> a1 = mem.fillRandom(mm.src0, 7), b1 = mem.fillRandom(mm.src1, 8);
  mm.accumulate = true;
  execute(mm, mem.memories());
  expected = referenceMatmul(a1, b1, expected, k, m, n);
  EXPECT_EQ(mem.readAll(mm.dst), expected);
}

float referenceAlu(AluOp op, float a, float b) {
  switch (op) {
  case AluOp::Add: return a + b;
  case AluOp::Subtract: return a - b;
  case AluOp::Multiply: return a * b;
  case AluOp::Max: return a > b ? a : b;
  case AluOp::Min: return a < b ? a : b;
  case AluOp::Divide: return a / b;
  default: return NAN; // the operations the six-op tests below use; InstructionsTest covers the rest
  }
}

class EveryAluOp : public ::testing::TestWithParam<AluOp> {};

TEST_P(EveryAluOp, TensorTensorWithMixedDtypes) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::TensorTensor;
  inst.alu = GetParam();
  inst.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, 100, 0, 70);
  inst.src1 = dense(MemSpace::Psum, DType::F32, 10, 100, 0, 70);
  inst.dst = sbuf(DType::F16, 20, 100, 2048, {7, 10}, {20, 1});
  const std::vector<float> a = mem.fillRandom(inst.src0, 9), b = mem.fillRandom(inst.src1, 10);
  execute(inst, mem.memories());
  std::vector<float> expected(a.size());
  for (size_t j = 0; j < a.size(); ++j)
    expected[j] = roundTo(DType::F16, referenceAlu(inst.alu, a[j], b[j]));
  EXPECT_EQ(mem.readAll(inst.dst), expected);
}

TEST_P(EveryAluOp, TensorReduceOverAllFreeDimensions) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::TensorReduce;
  inst.alu = GetParam();
  inst.src0 = sbuf(DType::F32, 0, 128, 0, {3, 50}, {64, 1});
  inst.dst = dense(MemSpace::Sbuf, DType::BF16, 0, 128, 4096, 1);
  const std::vector<float> x = mem.fillRandom(inst.src0, 11, 0.5f, 1.5f);
  execute(inst, mem.memories());
  std::vector<float> expected(128);
  for (int64_t p = 0; p < 128; ++p) {
    float acc = x[p * 150];
    for (int64_t i = 1; i < 150; ++i)
      acc = referenceAlu(inst.alu, acc, x[p * 150 + i]);
    expected[p] = roundTo(DType::BF16, acc);
  }
  EXPECT_EQ(mem.readAll(inst.dst), expected);
}

INSTANTIATE_TEST_SUITE_P(Semantics, EveryAluOp,
                         ::testing::Values(AluOp::Add, AluOp::Subtract, AluOp::Multiply, AluOp::Max, AluOp::Min),
                         [](const auto &info) { return std::string(name(info.param)); });

TEST(Semantics, TensorTensorInPlace) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::TensorTensor;
  inst.alu = AluOp::Multiply;
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 16, 0, 64);
  inst.src1 = dense(MemSpace::Sbuf, DType::F32, 0, 16, 256, 64);
  inst.dst = inst.src0;
  const std::vector<float> a = mem.fillRandom(inst.src0, 12), b = mem.fillRandom(inst.src1, 13);
  execute(inst, mem.memories());
  std::vector<float> expected(a.size());
  for (size_t j = 0; j < a.size(); ++j)
    expected[j] = a[j] * b[j];
  EXPECT_EQ(mem.readAll(inst.dst), expected);
}

TEST(Semantics, MaxAndMinPropagateNaN) {
  TestMemory mem;
  for (AluOp op : {AluOp::Max, AluOp::Min}) {
    Instruction inst;
    inst.op = Opcode::TensorTensor;
    inst.alu = op;
    inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 0, 2);
    inst.src1 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 64, 2);
    inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 1, 128, 2);
    const float a[2] = {NAN, 1.0f}, b[2] = {1.0f, NAN};
    encode(DType::F32, a, mem.element(inst.src0, 0, 0), 2);
    encode(DType::F32, b, mem.element(inst.src1, 0, 0), 2);
    execute(inst, mem.memories());
    EXPECT_TRUE(std::isnan(mem.read(inst.dst, 0, 0)));
    EXPECT_TRUE(std::isnan(mem.read(inst.dst, 0, 1)));
  }
}

TEST(Semantics, ActivationScalesAddsBiasAndApplies) {
  for (ActFunc func : {ActFunc::Identity, ActFunc::Exp}) {
    TestMemory mem;
    Instruction inst;
    inst.op = Opcode::Activation;
    inst.func = func;
    inst.scale = 0.75f;
    inst.bias = -0.25f;
    inst.src0 = dense(MemSpace::Psum, DType::F32, 0, 128, 0, 300);
    inst.dst = dense(MemSpace::Sbuf, DType::BF16, 0, 128, 0, 300);
    const std::vector<float> x = mem.fillRandom(inst.src0, 14);
    execute(inst, mem.memories());
    std::vector<float> expected(x.size());
    for (size_t j = 0; j < x.size(); ++j) {
      const float affine = x[j] * inst.scale + inst.bias;
      expected[j] = roundTo(DType::BF16, func == ActFunc::Exp ? std::exp(affine) : affine);
    }
    EXPECT_EQ(mem.readAll(inst.dst), expected) << name(func);
  }
}

TEST(Semantics, ActivationTakesItsBiasFromATileWhenGiven) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::Activation;
  inst.func = ActFunc::Exp;
  inst.scale = -1.0f;
  inst.bias = 100.0f; // ignored: the tile gives the bias
  inst.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, 64, 0, 40);
  inst.src1 = dense(MemSpace::Sbuf, DType::F32, 0, 64, 1024, 1);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 64, 2048, 40);
  const std::vector<float> x = mem.fillRandom(inst.src0, 15), bias = mem.fillRandom(inst.src1, 16);
  execute(inst, mem.memories());
  std::vector<float> expected(x.size());
  for (size_t j = 0; j < x.size(); ++j)
    expected[j] = std::exp(x[j] * inst.scale + bias[j / 40]);
  EXPECT_EQ(mem.readAll(inst.dst), expected);
}

TEST(Semantics, MemsetRoundsTheValueToTheDestination) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::Memset;
  inst.value = 1.0f / 3.0f;
  inst.dst = sbuf(DType::BF16, 32, 32, 100, {5, 3}, {4, 1});
  execute(inst, mem.memories());
  EXPECT_EQ(mem.readAll(inst.dst), std::vector<float>(32 * 15, roundTo(DType::BF16, 1.0f / 3.0f)));
  // The gaps between the rows of the pattern stay zero.
  EXPECT_EQ(mem.read(sbuf(DType::BF16, 32, 1, 100, {8}, {1}), 0, 3), 0.0f);
}

TEST(Semantics, RepeatedCallsReuseScratchAcrossSizes) {
  TestMemory mem;
  for (int64_t n : {512, 8, 300, 1}) {
    Instruction inst;
    inst.op = Opcode::TensorCopy;
    inst.src0 = dense(MemSpace::Sbuf, DType::F8E5M2, 0, 128, 0, n);
    inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 128, 2048, n);
    const std::vector<float> x = mem.fillRandom(inst.src0, static_cast<uint32_t>(n));
    execute(inst, mem.memories());
    EXPECT_EQ(mem.readAll(inst.dst), x) << n;
  }
}

} // namespace
} // namespace tessera::isa
