/// \file
/// The elementwise instructions (isa/lib/instructions/Elementwise.cpp): tensor_scalar, scalar_tensor_tensor,
/// reciprocal, iota, affine_select, range_select. Each runs through isa::execute on random and edge inputs and is
/// compared with a plain C++ reference written here; its verify rules and its cycles, recomputed from each
/// target's [cost] coefficients, are checked on every NeuronCore generation that has it.

#include "ElementwiseTestSupport.h"

#include "tessera/isa/Cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tessera::isa {
namespace {

using namespace elementwise_testing;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

/// `a <op> b` in FP32, written out for the operations these tests use (max/min propagate NaN, as numpy does;
/// comparisons give 1 or 0).
float reference(AluOp op, float a, float b) {
  switch (op) {
  case AluOp::Add: return a + b;
  case AluOp::Subtract: return a - b;
  case AluOp::Multiply: return a * b;
  case AluOp::Divide: return a / b;
  case AluOp::Max: return std::isnan(a) || std::isnan(b) ? kNaN : (a > b ? a : b);
  case AluOp::Min: return std::isnan(a) || std::isnan(b) ? kNaN : (a < b ? a : b);
  case AluOp::IsEqual: return a == b ? 1.0f : 0.0f;
  case AluOp::NotEqual: return a != b ? 1.0f : 0.0f;
  case AluOp::IsGt: return a > b ? 1.0f : 0.0f;
  case AluOp::IsGe: return a >= b ? 1.0f : 0.0f;
  case AluOp::IsLt: return a < b ? 1.0f : 0.0f;
  case AluOp::IsLe: return a <= b ? 1.0f : 0.0f;
  default: ADD_FAILURE() << "no reference for " << name(op); return kNaN;
  }
}

/// One stage of tensor_scalar / scalar_tensor_tensor: x <op> s, or s <op> x reversed.
float stage(AluOp op, bool reverse, float x, float s) { return reverse ? reference(op, s, x) : reference(op, x, s); }

/// The reference value converted to `dtype` on the way out: BF16 and integers written out here, F32 unchanged,
/// the fp8 formats by isa::roundTo (checked bit for bit against ml_dtypes in NumberFormatsTest).
float converted(DType dtype, float v) {
  switch (dtype) {
  case DType::F32: return v;
  case DType::BF16: return bf16Reference(v);
  case DType::I32: return static_cast<float>(integerReference<int32_t>(v));
  case DType::U32: return static_cast<float>(integerReference<uint32_t>(v));
  case DType::U8: return static_cast<float>(integerReference<uint8_t>(v));
  default: return roundTo(dtype, v);
  }
}

Instruction make(Opcode op) {
  Instruction inst;
  inst.op = op;
  return inst;
}

/// A [128 x n] SBUF tile, for cost checks.
AccessPattern wide(DType dtype, int64_t n, MemSpace space = MemSpace::Sbuf) { return dense(space, dtype, 0, 128, 0, n); }

/// `verifyInstruction`'s answer contains `text`.
::testing::AssertionResult rejects(const Instruction &inst, const std::string &text,
                                   std::optional<Engine> engine = std::nullopt, const Target *target = nullptr) {
  const std::string problem = verifyInstruction(inst, engine, target);
  if (problem.find(text) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected a problem containing \"" << text << "\", got \"" << problem << "\"";
}

// ---- tensor_scalar ----------------------------------------------------------------------------------------

struct TensorScalarCase {
  AluOp op0;
  bool reverse0;
  AluOp op1;
  bool reverse1;
  bool tile0, tile1; ///< operand from a [P, 1] tile (else the immediate)
  DType dataType, dstType;
};

class TensorScalarRandom : public ::testing::TestWithParam<TensorScalarCase> {};

TEST_P(TensorScalarRandom, MatchesTheReference) {
  const TensorScalarCase c = GetParam();
  TestMemory mem;
  Instruction inst = make(Opcode::TensorScalar);
  inst.alu = c.op0;
  inst.reverse0 = c.reverse0;
  inst.alu1 = c.op1;
  inst.reverse1 = c.reverse1;
  inst.operand0 = 0.625f;
  inst.operand1 = -1.5f;
  const uint32_t rows = 6;
  inst.src0 = strided(MemSpace::Sbuf, c.dataType, 5, rows, 256, {3, 20}, {32, 1}); // 3 runs of 20, 32 apart
  inst.dst = dense(MemSpace::Sbuf, c.dstType, 64, rows, 4096, 60);
  if (c.tile0)
    inst.src1 = dense(MemSpace::Psum, DType::F32, 5, rows, 64, 1);
  if (c.tile1)
    inst.src2 = dense(MemSpace::Sbuf, DType::BF16, 5, rows, 7000, 1);
  ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");

  const std::vector<float> data = mem.fillRandom(inst.src0, 11);
  const std::vector<float> operand0 = c.tile0 ? mem.fillRandom(inst.src1, 12, 0.5f, 2.0f) : std::vector<float>{};
  const std::vector<float> operand1 = c.tile1 ? mem.fillRandom(inst.src2, 13, -2.0f, 2.0f) : std::vector<float>{};
  execute(inst, mem.memories());

  std::vector<float> expected;
  for (uint32_t p = 0; p < rows; ++p)
    for (int64_t i = 0; i < 60; ++i) {
      float t = stage(c.op0, c.reverse0, data[p * 60 + i], c.tile0 ? operand0[p] : inst.operand0);
      if (c.op1 != AluOp::Bypass)
        t = stage(c.op1, c.reverse1, t, c.tile1 ? operand1[p] : inst.operand1);
      expected.push_back(converted(c.dstType, t));
    }
  EXPECT_TRUE(sameValues(expected, mem.readAll(inst.dst)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TensorScalarRandom,
    ::testing::Values(
        TensorScalarCase{AluOp::Subtract, true, AluOp::Multiply, false, true, false, DType::F32, DType::BF16},
        TensorScalarCase{AluOp::Min, false, AluOp::Add, true, false, true, DType::BF16, DType::F32},
        TensorScalarCase{AluOp::Subtract, true, AluOp::Subtract, true, true, true, DType::F32, DType::F32},
        TensorScalarCase{AluOp::Max, false, AluOp::Bypass, false, false, false, DType::F16, DType::F32},
        TensorScalarCase{AluOp::IsGe, false, AluOp::Multiply, false, true, true, DType::F32, DType::F32},
        TensorScalarCase{AluOp::Min, true, AluOp::Subtract, false, true, false, DType::BF16, DType::F8E4M3},
        TensorScalarCase{AluOp::Multiply, false, AluOp::Add, false, false, false, DType::F32, DType::I32}));

/// data (one row) through tensor_scalar with immediates into `dstType`; returns dst's values.
std::vector<float> tensorScalarRow(const std::vector<float> &data, AluOp op0, float operand0, AluOp op1,
                                   float operand1, DType dstType, DType dataType = DType::F32) {
  TestMemory mem;
  Instruction inst = make(Opcode::TensorScalar);
  inst.alu = op0;
  inst.operand0 = operand0;
  inst.alu1 = op1;
  inst.operand1 = operand1;
  const auto n = static_cast<int64_t>(data.size());
  inst.src0 = dense(MemSpace::Sbuf, dataType, 0, 1, 0, n);
  inst.dst = dense(MemSpace::Sbuf, dstType, 0, 1, 4096, n);
  mem.write(inst.src0, data);
  execute(inst, mem.memories());
  return mem.readAll(inst.dst);
}

TEST(TensorScalar, NaNInfinitiesAndZeros) {
  const std::vector<float> data = {kNaN, kInf, -kInf, -0.0f, 0.0f, 3.0e38f, -3.0e38f, 1.0f, -1.0f};
  // (x * 2) max 0: overflow to inf, max propagates NaN and clamps -inf and negatives to 0.
  std::vector<float> expected;
  for (float x : data)
    expected.push_back(reference(AluOp::Max, x * 2.0f, 0.0f));
  EXPECT_TRUE(sameValues(expected, tensorScalarRow(data, AluOp::Multiply, 2.0f, AluOp::Max, 0.0f, DType::F32)));
  EXPECT_TRUE(sameFloat(tensorScalarRow(data, AluOp::Multiply, 2.0f, AluOp::Max, 0.0f, DType::F32)[1], kInf));
  // Reversed subtract of -0: 0 - (-0) = +0.
  TestMemory mem;
  Instruction inst = make(Opcode::TensorScalar);
  inst.alu = AluOp::Subtract;
  inst.reverse0 = true;
  inst.operand0 = 0.0f;
  inst.alu1 = AluOp::Bypass;
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 0, 2);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 1, 64, 2);
  mem.write(inst.src0, {-0.0f, 1.0f});
  execute(inst, mem.memories());
  EXPECT_TRUE(sameValues({0.0f, -1.0f}, mem.readAll(inst.dst)));
}

TEST(TensorScalar, RoundsToBf16TiesToEven) {
  // 1 + 2^-8 lies halfway between BF16 1 and 1 + 2^-7: ties to the even 1. 1 + 3 * 2^-8 lies halfway between
  // 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  const float tieDown = 1.0f + std::ldexp(1.0f, -8), tieUp = 1.0f + 3.0f * std::ldexp(1.0f, -8);
  const float above = 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20);
  const std::vector<float> out =
      tensorScalarRow({tieDown, tieUp, above, -tieUp}, AluOp::Add, 0.0f, AluOp::Bypass, 0.0f, DType::BF16);
  EXPECT_TRUE(sameValues({1.0f, 1.0f + std::ldexp(1.0f, -6), 1.0f + std::ldexp(1.0f, -7),
                          -(1.0f + std::ldexp(1.0f, -6))},
                         out));
}

TEST(TensorScalar, Fp8OutputSaturatesToNaNAndRounds) {
  // f8e4m3 (no infinities): 448 is the largest finite value; beyond it is NaN; 0.3 rounds to 0.3125.
  const std::vector<float> out =
      tensorScalarRow({448.0f, 500.0f, 0.3f, -0.3f}, AluOp::Multiply, 1.0f, AluOp::Bypass, 0.0f, DType::F8E4M3);
  EXPECT_EQ(out[0], 448.0f);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], 0.3125f);
  EXPECT_EQ(out[3], -0.3125f);
}

TEST(TensorScalar, IntegerOutputsRoundToEvenAndSaturate) {
  const std::vector<float> data = {0.5f, 1.5f, 2.5f, -2.5f, -0.5f, 1e10f, -1e10f, kNaN, 255.5f, 256.0f, -3.0f};
  std::vector<float> asI32, asU8;
  for (float x : data) {
    asI32.push_back(static_cast<float>(integerReference<int32_t>(x + 0.0f)));
    asU8.push_back(static_cast<float>(integerReference<uint8_t>(x + 0.0f)));
  }
  EXPECT_TRUE(sameValues(asI32, tensorScalarRow(data, AluOp::Add, 0.0f, AluOp::Bypass, 0.0f, DType::I32)));
  EXPECT_TRUE(sameValues(asU8, tensorScalarRow(data, AluOp::Add, 0.0f, AluOp::Bypass, 0.0f, DType::U8)));
  // Spelled out: ties to even, saturation, NaN to 0.
  EXPECT_TRUE(sameValues({0, 2, 2, -2, 0, 2147483647.0f, -2147483648.0f, 0, 256, 256, -3}, asI32));
  // Integer inputs decode exactly (up to 2^24) and compute in FP32: 7 * 3 - 1.
  EXPECT_TRUE(sameValues({20.0f, -22.0f}, tensorScalarRow({7.0f, -7.0f}, AluOp::Multiply, 3.0f, AluOp::Subtract,
                                                          1.0f, DType::I32, DType::I32)));
}

TEST(TensorScalar, VerifyRules) {
  Instruction inst = make(Opcode::TensorScalar);
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 0, 32);
  inst.dst = dense(MemSpace::Psum, DType::F32, 0, 8, 0, 32);
  EXPECT_EQ(verifyInstruction(inst, Engine::Scalar, nullptr), "");
  Instruction wrongDst = inst;
  wrongDst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 8, 0, 16);
  EXPECT_TRUE(rejects(wrongDst, "dst is [8, 16] but data is [8, 32]"));
  Instruction wrongOperand = inst;
  wrongOperand.src1 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 0, 2);
  EXPECT_TRUE(rejects(wrongOperand, "operand0 must be a [8, 1] tile (one value per partition), not [8, 2]"));
  Instruction bypassWithTile = inst;
  bypassWithTile.alu1 = AluOp::Bypass;
  bypassWithTile.src2 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 64, 1);
  EXPECT_TRUE(rejects(bypassWithTile, "operand1 is a tile but op1 is bypass"));
  EXPECT_TRUE(rejects(inst, "cannot run on the tensor engine", Engine::Tensor));
  // NKI allows GpSimd only for rsqrt, which Tessera has no ALU operation for.
  EXPECT_TRUE(rejects(inst, "cannot run on the gpsimd engine", Engine::GpSimd));
  const OperandUse use = operandUse(wrongOperand);
  EXPECT_TRUE(use.src0 && use.src1 && !use.src2 && !use.readsDst && use.writesDst);
}

TEST(TensorScalar, CostsNOnEveryEngineWithOneOrTwoOperators) {
  for (const Target &target : neuronCoreTargets())
    for (Engine engine : {Engine::Vector, Engine::Scalar, Engine::GpSimd})
      for (int64_t n : {1, 64, 65, 512, 2048}) {
        Instruction inst = make(Opcode::TensorScalar);
        inst.src0 = wide(DType::BF16, n);
        inst.dst = wide(DType::BF16, n);
        inst.alu1 = AluOp::Bypass;
        const uint64_t expected = expectedStreamingCycles(target, engine, uint64_t(n));
        EXPECT_EQ(engineCycles(inst, engine, target), expected) << target.name << " " << name(engine) << " " << n;
        inst.alu1 = AluOp::Add;
        inst.src1 = wide(DType::F32, 1);
        EXPECT_EQ(engineCycles(inst, engine, target), expected) << target.name << " two operators";
      }
}

// ---- scalar_tensor_tensor ---------------------------------------------------------------------------------

struct SttCase {
  AluOp op0;
  bool reverse0;
  AluOp op1;
  bool reverse1;
  bool tile0;
  DType dstType;
};

class ScalarTensorTensorRandom : public ::testing::TestWithParam<SttCase> {};

TEST_P(ScalarTensorTensorRandom, MatchesTheReference) {
  const SttCase c = GetParam();
  TestMemory mem;
  Instruction inst = make(Opcode::ScalarTensorTensor);
  inst.alu = c.op0;
  inst.reverse0 = c.reverse0;
  inst.alu1 = c.op1;
  inst.reverse1 = c.reverse1;
  inst.operand0 = 1.25f;
  const uint32_t rows = 9;
  inst.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, rows, 128, 48);
  inst.src2 = strided(MemSpace::Psum, DType::F32, 32, rows, 0, {2, 24}, {-24, 1}); // halves swapped
  inst.src2.offset = 24 * 4;
  if (c.tile0)
    inst.src1 = dense(MemSpace::Sbuf, DType::F32, 0, rows, 2048, 1);
  inst.dst = dense(MemSpace::Sbuf, c.dstType, 100, rows, 0, 48);
  ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");

  const std::vector<float> data = mem.fillRandom(inst.src0, 21);
  const std::vector<float> other = mem.fillRandom(inst.src2, 22, 0.25f, 3.0f);
  const std::vector<float> operand0 = c.tile0 ? mem.fillRandom(inst.src1, 23) : std::vector<float>{};
  execute(inst, mem.memories());
  std::vector<float> expected;
  for (uint32_t p = 0; p < rows; ++p)
    for (int64_t i = 0; i < 48; ++i) {
      const float t = stage(c.op0, c.reverse0, data[p * 48 + i], c.tile0 ? operand0[p] : inst.operand0);
      expected.push_back(converted(c.dstType, stage(c.op1, c.reverse1, t, other[p * 48 + i])));
    }
  EXPECT_TRUE(sameValues(expected, mem.readAll(inst.dst)));
}

INSTANTIATE_TEST_SUITE_P(Cases, ScalarTensorTensorRandom,
                         ::testing::Values(SttCase{AluOp::Subtract, false, AluOp::Multiply, false, true, DType::BF16},
                                           SttCase{AluOp::Subtract, true, AluOp::Min, true, false, DType::F32},
                                           SttCase{AluOp::Max, false, AluOp::Add, false, true, DType::F32},
                                           SttCase{AluOp::Multiply, false, AluOp::Max, false, false, DType::F16},
                                           SttCase{AluOp::IsLt, false, AluOp::Multiply, true, true, DType::F32}));

TEST(ScalarTensorTensor, NaNAndInfinities) {
  TestMemory mem;
  Instruction inst = make(Opcode::ScalarTensorTensor);
  inst.alu = AluOp::Multiply;
  inst.operand0 = 0.0f;
  inst.alu1 = AluOp::Add;
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 0, 5);
  inst.src2 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 64, 5);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 1, 128, 5);
  mem.write(inst.src0, {kInf, kNaN, 2.0f, -3.0f, 1.0f});
  mem.write(inst.src2, {1.0f, 1.0f, kNaN, -kInf, -0.0f});
  execute(inst, mem.memories());
  // inf * 0 = NaN; NaN * 0 = NaN; 0 + NaN = NaN; -0 + -inf = -inf; 0 + -0 = +0.
  EXPECT_TRUE(sameValues({kNaN, kNaN, kNaN, -kInf, 0.0f}, mem.readAll(inst.dst)));
}

TEST(ScalarTensorTensor, VerifyRules) {
  Instruction inst = make(Opcode::ScalarTensorTensor);
  inst.alu = AluOp::Subtract;
  inst.alu1 = AluOp::Multiply;
  inst.src0 = dense(MemSpace::Psum, DType::F32, 0, 4, 0, 16);
  inst.src2 = dense(MemSpace::Sbuf, DType::F32, 0, 4, 0, 16);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 4, 64, 16);
  EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  EXPECT_TRUE(rejects(inst, "cannot run on the gpsimd engine", Engine::GpSimd));
  Instruction bothPsum = inst;
  bothPsum.src2.space = MemSpace::Psum;
  EXPECT_TRUE(rejects(bothPsum, "data and operand1 cannot both be in PSUM"));
  Instruction bypass = inst;
  bypass.alu1 = AluOp::Bypass;
  EXPECT_TRUE(rejects(bypass, "op1 must be an arithmetic operation"));
  Instruction noOperand1 = inst;
  noOperand1.src2 = {};
  EXPECT_TRUE(rejects(noOperand1, "needs operand src2"));
  Instruction wrongShape = inst;
  wrongShape.src2 = dense(MemSpace::Sbuf, DType::F32, 0, 4, 0, 8);
  EXPECT_TRUE(rejects(wrongShape, "operand1 is [4, 8] but data is [4, 16]"));
}

TEST(ScalarTensorTensor, CostsNOnlyOnTheBf16SubtractMultiplyPath) {
  for (const Target &target : neuronCoreTargets())
    for (int64_t n : {16, 64, 100, 511, 512, 1024}) {
      Instruction inst = make(Opcode::ScalarTensorTensor);
      inst.alu = AluOp::Subtract;
      inst.alu1 = AluOp::Multiply;
      inst.src0 = wide(DType::BF16, n);
      inst.src2 = wide(DType::BF16, n);
      inst.dst = wide(DType::BF16, n);
      const uint64_t slow = uint64_t(n) * target.cost.twoInputFactor;
      const uint64_t fast = n % 2 == 0 ? uint64_t(n) : slow;
      EXPECT_EQ(engineCycles(inst, Engine::Vector, target), expectedStreamingCycles(target, Engine::Vector, fast))
          << target.name << " " << n;
      Instruction fp32 = inst;
      fp32.src2.dtype = DType::F32;
      EXPECT_EQ(engineCycles(fp32, Engine::Vector, target), expectedStreamingCycles(target, Engine::Vector, slow));
      Instruction otherOps = inst;
      otherOps.alu = AluOp::Add;
      EXPECT_EQ(engineCycles(otherOps, Engine::Vector, target),
                expectedStreamingCycles(target, Engine::Vector, slow));
    }
}

// ---- reciprocal -------------------------------------------------------------------------------------------

TEST(Reciprocal, RandomInputsToFp32AndBf16) {
  TestMemory mem;
  Instruction inst = make(Opcode::Reciprocal);
  inst.src0 = strided(MemSpace::Psum, DType::F32, 0, 16, 0, {4, 25}, {25, 1});
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 16, 16, 0, 100);
  const std::vector<float> data = mem.fillRandom(inst.src0, 31, -4.0f, 4.0f);
  execute(inst, mem.memories());
  std::vector<float> expected, expectedBf16;
  for (float x : data) {
    expected.push_back(1.0f / x);
    expectedBf16.push_back(bf16Reference(1.0f / x));
  }
  EXPECT_TRUE(sameValues(expected, mem.readAll(inst.dst)));
  inst.dst.dtype = DType::BF16;
  execute(inst, mem.memories());
  EXPECT_TRUE(sameValues(expectedBf16, mem.readAll(inst.dst)));
}

TEST(Reciprocal, EdgeInputs) {
  TestMemory mem;
  Instruction inst = make(Opcode::Reciprocal);
  const std::vector<float> data = {0.0f, -0.0f, kInf, -kInf, kNaN, 1e-40f, 1e38f, 3.0f, 0.4f};
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 0, int64_t(data.size()));
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 1, 256, int64_t(data.size()));
  mem.write(inst.src0, data);
  execute(inst, mem.memories());
  const std::vector<float> out = mem.readAll(inst.dst);
  EXPECT_TRUE(sameValues({kInf, -kInf, 0.0f, -0.0f, kNaN, kInf, 1.0f / 1e38f, 1.0f / 3.0f, 1.0f / 0.4f}, out));
  EXPECT_GT(out[6], 0.0f); // a subnormal result is kept, not flushed
  EXPECT_LT(out[6], std::numeric_limits<float>::min());
  // Into i32: 1 / 0.4 = 2.5 rounds to the even 2; 1/0 saturates.
  inst.dst.dtype = DType::I32;
  execute(inst, mem.memories());
  const std::vector<float> ints = mem.readAll(inst.dst);
  EXPECT_EQ(ints[8], 2.0f);
  EXPECT_EQ(ints[0], 2147483647.0f);
  EXPECT_EQ(ints[4], 0.0f); // NaN
}

TEST(Reciprocal, VerifyRules) {
  Instruction inst = make(Opcode::Reciprocal);
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 0, 32);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 8, 256, 32);
  EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  EXPECT_TRUE(rejects(inst, "cannot run on the scalar engine", Engine::Scalar));
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 4, 256, 32);
  EXPECT_TRUE(rejects(inst, "dst is [4, 32] but data is [8, 32]"));
}

TEST(Reciprocal, CostsEightTimesNOnTheVectorEngine) {
  for (const Target &target : neuronCoreTargets()) {
    EXPECT_GT(target.cost.reciprocalCyclesPerElement, 1u) << target.name;
    for (int64_t n : {1, 7, 8, 9, 100, 512}) {
      Instruction inst = make(Opcode::Reciprocal);
      inst.src0 = wide(DType::F32, n);
      inst.dst = wide(DType::F32, n);
      EXPECT_EQ(engineCycles(inst, Engine::Vector, target),
                expectedStreamingCycles(target, Engine::Vector, uint64_t(n) * target.cost.reciprocalCyclesPerElement))
          << target.name << " " << n;
    }
  }
  // The coefficient is read from the target, not written in code.
  Target t = Target::find("trn2");
  t.cost.reciprocalCyclesPerElement = 3;
  t.cost.minInitiationCycles = 1;
  Instruction inst = make(Opcode::Reciprocal);
  inst.src0 = wide(DType::F32, 100);
  inst.dst = wide(DType::F32, 100);
  EXPECT_EQ(engineCycles(inst, Engine::Vector, t), t.cost.accessOverheadCycles + 300u);
}

// ---- iota -------------------------------------------------------------------------------------------------

/// The pattern's value at (p, free index (i0, i1...)), in int64 (the tests keep it inside int32).
int64_t patternValue(const AffinePattern &pattern, int64_t p, const std::vector<int64_t> &index) {
  int64_t v = pattern.base + pattern.partitionStep * p;
  for (size_t d = 0; d < index.size(); ++d)
    v += pattern.steps[d] * index[d];
  return v;
}

TEST(Iota, TwoDimensionalPatternIntoI32) {
  TestMemory mem;
  Instruction inst = make(Opcode::Iota);
  inst.pattern = {.base = -7, .partitionStep = 100, .steps = {10, 1}};
  // dst [5, 3 x 4], the outer dimension walked backwards in memory: values follow the index, not the address.
  inst.dst = strided(MemSpace::Sbuf, DType::I32, 3, 5, 2 * 16 * 4, {3, 4}, {-16, 1});
  ASSERT_EQ(verifyInstruction(inst, Engine::GpSimd, nullptr), "");
  execute(inst, mem.memories());
  std::vector<float> expected;
  for (int64_t p = 0; p < 5; ++p)
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t b = 0; b < 4; ++b)
        expected.push_back(static_cast<float>(patternValue(inst.pattern, p, {a, b})));
  EXPECT_TRUE(sameValues(expected, mem.readAll(inst.dst)));
}

/// One partition of iota into `dtype` with values base, base + step...; returns the raw int32 values (i32, u32)
/// or the decoded ones.
std::vector<int64_t> iotaRow(int64_t base, int64_t step, int64_t n, DType dtype) {
  TestMemory mem;
  Instruction inst = make(Opcode::Iota);
  inst.pattern = {.base = base, .partitionStep = 0, .steps = {step}};
  inst.dst = dense(MemSpace::Sbuf, dtype, 0, 1, 0, n);
  execute(inst, mem.memories());
  std::vector<int64_t> values;
  for (int64_t i = 0; i < n; ++i) {
    std::byte *e = mem.element(inst.dst, 0, i);
    if (dtype == DType::I32) {
      int32_t v;
      std::memcpy(&v, e, 4);
      values.push_back(v);
    } else if (dtype == DType::U32) {
      uint32_t v;
      std::memcpy(&v, e, 4);
      values.push_back(v);
    } else {
      values.push_back(static_cast<int64_t>(mem.read(inst.dst, 0, i)));
    }
  }
  return values;
}

TEST(Iota, Int32ValuesAreExactAndWrap) {
  // Above 2^24 FP32 cannot hold every integer; the int32 destination still gets each one exactly.
  EXPECT_EQ(iotaRow((1 << 24) + 1, 2, 3, DType::I32), (std::vector<int64_t>{16777217, 16777219, 16777221}));
  // int32 arithmetic wraps around.
  EXPECT_EQ(iotaRow(2147483646, 1, 3, DType::I32), (std::vector<int64_t>{2147483646, 2147483647, -2147483648LL}));
  // u32 takes non-negative values exactly and saturates negative ones to 0.
  EXPECT_EQ(iotaRow(-1, 1, 3, DType::U32), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(iotaRow((1 << 30) + 3, 1, 2, DType::U32), (std::vector<int64_t>{1073741827, 1073741828}));
}

TEST(Iota, ConvertsToNarrowTypes) {
  // BF16 holds 8 significant bits: 257 is a tie between 256 and 258 and goes to the even 256; 259 to 260.
  EXPECT_EQ(iotaRow(255, 1, 5, DType::BF16), (std::vector<int64_t>{255, 256, 256, 258, 260}));
  EXPECT_EQ(iotaRow(254, 1, 5, DType::U8), (std::vector<int64_t>{254, 255, 255, 255, 255}));
  EXPECT_EQ(iotaRow(-2, 1, 3, DType::U8), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(iotaRow(-3, 2, 4, DType::F32), (std::vector<int64_t>{-3, -1, 1, 3}));
}

TEST(Iota, VerifyRules) {
  Instruction inst = make(Opcode::Iota);
  inst.dst = dense(MemSpace::Sbuf, DType::I32, 0, 128, 0, 64);
  inst.pattern.steps = {1};
  EXPECT_EQ(verifyInstruction(inst, Engine::GpSimd, nullptr), "");
  EXPECT_TRUE(rejects(inst, "cannot run on the vector engine", Engine::Vector));
  Instruction psum = inst;
  psum.dst.space = MemSpace::Psum;
  EXPECT_TRUE(rejects(psum, "dst must be in SBUF, not PSUM"));
  Instruction extraStep = inst;
  extraStep.pattern.steps = {1, 4};
  EXPECT_TRUE(rejects(extraStep, "the pattern steps along free dimension 1, but dst has only 1"));
  const OperandUse use = operandUse(inst);
  EXPECT_TRUE(!use.src0 && !use.src1 && !use.src2 && !use.readsDst && use.writesDst);
}

TEST(Iota, CostsStartupPlusN) {
  for (const Target &target : neuronCoreTargets())
    for (int64_t n : {1, 64, 512, 4096}) {
      Instruction inst = make(Opcode::Iota);
      inst.dst = wide(DType::I32, n);
      // NKI: 150 + N GpSimd cycles, with the SBUF access overhead every instruction pays.
      const uint64_t expected = target.cost.gpsimdStartupCycles + target.cost.accessOverheadCycles +
                                std::max<uint64_t>(target.cost.minInitiationCycles, uint64_t(n));
      EXPECT_EQ(engineCycles(inst, Engine::GpSimd, target), expected) << target.name << " " << n;
    }
}

// ---- affine_select ----------------------------------------------------------------------------------------

TEST(AffineSelect, CausalMask) {
  TestMemory mem;
  Instruction inst = make(Opcode::AffineSelect);
  const int64_t n = 24;
  const uint32_t rows = 16, p0 = 32;
  // Keep (p, i) where p + 4 - i >= 0: a causal mask with the queries offset by 4.
  inst.pattern = {.base = 4, .partitionStep = 1, .steps = {-1}};
  inst.alu = AluOp::IsGe;
  inst.onFalse = -3.0e38f;
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, p0, rows, 0, n);
  inst.dst = dense(MemSpace::Sbuf, DType::BF16, p0, rows, 1024, n);
  ASSERT_EQ(verifyInstruction(inst, Engine::GpSimd, nullptr), "");
  const std::vector<float> scores = mem.fillRandom(inst.src0, 41);
  execute(inst, mem.memories());
  std::vector<float> expected;
  for (int64_t p = 0; p < rows; ++p)
    for (int64_t i = 0; i < n; ++i)
      expected.push_back(bf16Reference(p + 4 - i >= 0 ? scores[p * n + i] : inst.onFalse));
  EXPECT_TRUE(sameValues(expected, mem.readAll(inst.dst)));
  // -3e38 rounds to BF16's largest finite magnitude, not to -inf.
  EXPECT_TRUE(std::isfinite(mem.read(inst.dst, 0, n - 1)));
}

TEST(AffineSelect, EveryComparisonOnAMultiDimensionalPattern) {
  for (AluOp cmp : {AluOp::IsEqual, AluOp::NotEqual, AluOp::IsGt, AluOp::IsGe, AluOp::IsLt, AluOp::IsLe}) {
    TestMemory mem;
    Instruction inst = make(Opcode::AffineSelect);
    inst.pattern = {.base = -5, .partitionStep = 2, .steps = {3, -1}};
    inst.alu = cmp;
    inst.onFalse = kNaN; // a NaN fill is a value like any other
    inst.src0 = strided(MemSpace::Sbuf, DType::BF16, 0, 6, 0, {2, 8}, {8, 1});
    inst.dst = strided(MemSpace::Sbuf, DType::F32, 64, 6, 512, {2, 8}, {16, 2}); // every other element
    std::vector<float> data = mem.fillRandom(inst.src0, 42);
    data[3] = kNaN; // a NaN in the selected data is kept where selected
    mem.write(inst.src0, data);
    execute(inst, mem.memories());
    std::vector<float> expected;
    for (int64_t p = 0; p < 6; ++p)
      for (int64_t a = 0; a < 2; ++a)
        for (int64_t b = 0; b < 8; ++b) {
          const auto v = static_cast<float>(patternValue(inst.pattern, p, {a, b}));
          expected.push_back(reference(cmp, v, 0.0f) != 0.0f ? data[p * 16 + a * 8 + b] : kNaN);
        }
    EXPECT_TRUE(sameValues(expected, mem.readAll(inst.dst))) << name(cmp);
  }
}

TEST(AffineSelect, ComparesTheInt32PatternExactly) {
  // Values around 2^24 + 1, where FP32 rounding of the pattern would make "== 0" wrong.
  TestMemory mem;
  Instruction inst = make(Opcode::AffineSelect);
  inst.pattern = {.base = -((1 << 24) + 1), .partitionStep = 0, .steps = {1}};
  inst.alu = AluOp::IsEqual;
  inst.onFalse = 0.0f;
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 0, 1);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 1, 64, 1);
  mem.write(inst.src0, {5.0f});
  execute(inst, mem.memories());
  EXPECT_EQ(mem.read(inst.dst, 0, 0), 0.0f); // value -(2^24 + 1) != 0
}

TEST(AffineSelect, VerifyRules) {
  Instruction inst = make(Opcode::AffineSelect);
  inst.alu = AluOp::IsGe;
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 0, 32);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 8, 256, 32);
  EXPECT_EQ(verifyInstruction(inst, Engine::GpSimd, nullptr), "");
  Instruction notComparison = inst;
  notComparison.alu = AluOp::Add;
  EXPECT_TRUE(rejects(notComparison, "cmp_op must be a comparison"));
  Instruction psum = inst;
  psum.src0.space = MemSpace::Psum;
  EXPECT_TRUE(rejects(psum, "on_true_tile must be in SBUF, not PSUM"));
  Instruction shape = inst;
  shape.dst = dense(MemSpace::Sbuf, DType::F32, 0, 8, 256, 16);
  EXPECT_TRUE(rejects(shape, "dst is [8, 16] but on_true_tile is [8, 32]"));
  EXPECT_TRUE(rejects(inst, "cannot run on the vector engine", Engine::Vector));
}

TEST(AffineSelect, CostsStartupPlusN) {
  for (const Target &target : neuronCoreTargets())
    for (int64_t n : {1, 128, 512}) {
      Instruction inst = make(Opcode::AffineSelect);
      inst.alu = AluOp::IsGe;
      inst.src0 = wide(DType::F32, n);
      inst.dst = wide(DType::F32, n);
      EXPECT_EQ(engineCycles(inst, Engine::GpSimd, target), expectedStreamingCycles(target, Engine::GpSimd, n))
          << target.name;
    }
}

// ---- range_select -----------------------------------------------------------------------------------------

struct RangeSelectRun {
  std::vector<float> data, bound0, bound1;
  std::vector<float> dst, maxima;
};

/// range_select over [rows x n] random data with random bounds, into `dstType`, with reduce_res.
RangeSelectRun runRangeSelect(AluOp cmp0, AluOp cmp1, int64_t rangeStart, float fill, DType dstType, uint32_t seed) {
  TestMemory mem;
  Instruction inst = make(Opcode::RangeSelect);
  const uint32_t rows = 8;
  const int64_t n = 40;
  inst.alu = cmp0;
  inst.alu1 = cmp1;
  inst.pattern.base = rangeStart;
  inst.onFalse = fill;
  inst.src0 = dense(MemSpace::Psum, DType::F32, 0, rows, 0, n);
  inst.src1 = dense(MemSpace::Sbuf, DType::F32, 0, rows, 0, 1);
  inst.src2 = dense(MemSpace::Sbuf, DType::F32, 0, rows, 4, 1);
  inst.dst = dense(MemSpace::Sbuf, dstType, 0, rows, 64, n);
  inst.dst2 = dense(MemSpace::Sbuf, DType::F32, 16, rows, 0, 1);
  // The hardware fills with FP32's lowest value only (NKI); the semantics are tested with others too.
  if (fill == std::numeric_limits<float>::lowest())
    EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  else
    EXPECT_TRUE(rejects(inst, "on_false_value must be FP32's lowest value, -3.4028235e+38 (a hardware "
                              "constraint), not "));
  RangeSelectRun run;
  run.data = mem.fillRandom(inst.src0, seed);
  run.bound0 = mem.fillRandom(inst.src1, seed + 1, -5.0f, 30.0f);
  run.bound1 = mem.fillRandom(inst.src2, seed + 2, 20.0f, 50.0f);
  run.bound0[2] = 45.0f; // an empty range: the whole row is the fill value
  run.bound0[3] = 7.0f;  // an integer bound: the comparison at i + start == 7 decides
  mem.write(inst.src1, run.bound0);
  execute(inst, mem.memories());
  run.dst = mem.readAll(inst.dst);
  run.maxima = mem.readAll(inst.dst2);
  return run;
}

TEST(RangeSelect, SelectsTheRangeAndReducesTheMaximum) {
  const int64_t start = 3;
  for (auto [cmp0, cmp1] : {std::pair{AluOp::IsGe, AluOp::IsLt}, std::pair{AluOp::IsGt, AluOp::IsLe},
                            std::pair{AluOp::IsEqual, AluOp::IsLe}}) {
    const float fill = -9.0f;
    const RangeSelectRun run = runRangeSelect(cmp0, cmp1, start, fill, DType::BF16, 51);
    std::vector<float> expected, expectedMax;
    for (int64_t p = 0; p < 8; ++p) {
      float rowMax = -kInf;
      for (int64_t i = 0; i < 40; ++i) {
        const auto position = static_cast<float>(i + start);
        const bool keep = reference(cmp0, position, run.bound0[p]) != 0.0f &&
                          reference(cmp1, position, run.bound1[p]) != 0.0f;
        const float v = keep ? run.data[p * 40 + i] : fill;
        rowMax = std::max(rowMax, v);
        expected.push_back(bf16Reference(v));
      }
      expectedMax.push_back(rowMax);
    }
    EXPECT_TRUE(sameValues(expected, run.dst)) << name(cmp0);
    EXPECT_TRUE(sameValues(expectedMax, run.maxima)) << name(cmp0);
    EXPECT_EQ(run.maxima[2], fill); // the empty row
  }
}

TEST(RangeSelect, Fp32MinFillBecomesMinusInfinityInBf16ButNotInTheReduction) {
  // NKI: a row of FP32-min fills reads -inf from a BF16 dst, while an f32 reduce_res keeps FP32-min, so
  // dst - reduce_res stays -inf instead of NaN.
  const float fp32Min = std::numeric_limits<float>::lowest();
  const RangeSelectRun run = runRangeSelect(AluOp::IsGe, AluOp::IsLt, 0, fp32Min, DType::BF16, 52);
  EXPECT_EQ(run.dst[2 * 40], -kInf);
  EXPECT_EQ(run.maxima[2], fp32Min);
}

TEST(RangeSelect, NaNInTheRangePropagatesToTheMaximum) {
  TestMemory mem;
  Instruction inst = make(Opcode::RangeSelect);
  inst.alu = AluOp::IsGe;
  inst.alu1 = AluOp::IsLt;
  inst.onFalse = 0.0f;
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 0, 4);
  inst.src1 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 64, 1);
  inst.src2 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 68, 1);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 1, 128, 4);
  inst.dst2 = dense(MemSpace::Sbuf, DType::F32, 0, 1, 256, 1);
  mem.write(inst.src0, {1.0f, kNaN, 5.0f, kNaN});
  mem.write(inst.src1, {0.0f});
  mem.write(inst.src2, {3.0f}); // keeps i = 0, 1, 2
  execute(inst, mem.memories());
  EXPECT_TRUE(sameValues({1.0f, kNaN, 5.0f, 0.0f}, mem.readAll(inst.dst)));
  EXPECT_TRUE(std::isnan(mem.read(inst.dst2, 0, 0)));
  // Without reduce_res only dst is written.
  inst.dst2 = {};
  EXPECT_FALSE(operandUse(inst).writesDst2);
  mem.write(inst.src0, {1.0f, 2.0f, 3.0f, 4.0f});
  execute(inst, mem.memories());
  EXPECT_TRUE(sameValues({1.0f, 2.0f, 3.0f, 0.0f}, mem.readAll(inst.dst)));
}

TEST(RangeSelect, ExistsFromNeuronCoreV3) {
  Instruction inst = make(Opcode::RangeSelect);
  inst.alu = AluOp::IsGe;
  inst.alu1 = AluOp::IsLt;
  inst.onFalse = std::numeric_limits<float>::lowest();
  inst.src0 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 0, 32);
  inst.src1 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 128, 1);
  inst.src2 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 132, 1);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 8, 256, 32);
  for (const Target &target : neuronCoreTargets()) {
    if (generationAtLeast(target, "v3"))
      EXPECT_EQ(verifyInstruction(inst, Engine::Vector, &target), "") << target.name;
    else
      EXPECT_TRUE(rejects(inst, "exists from NeuronCore-v3 on", Engine::Vector, &target));
  }
  const Target trn1 = Target::find("trn1");
  EXPECT_TRUE(rejects(inst, "exists from NeuronCore-v3 on; target trn1 is NeuronCore-v2", Engine::Vector, &trn1));
}

TEST(RangeSelect, VerifyRules) {
  Instruction inst = make(Opcode::RangeSelect);
  inst.alu = AluOp::IsGe;
  inst.alu1 = AluOp::IsLt;
  inst.onFalse = std::numeric_limits<float>::lowest();
  inst.src0 = dense(MemSpace::Sbuf, DType::BF16, 0, 8, 0, 32);
  inst.src1 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 128, 1);
  inst.src2 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 132, 1);
  inst.dst = dense(MemSpace::Sbuf, DType::F32, 0, 8, 256, 32);
  EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  Instruction notEqual = inst;
  notEqual.alu1 = AluOp::NotEqual;
  EXPECT_TRUE(rejects(notEqual, "comp_op0 and comp_op1 must be is_equal, is_lt, is_le, is_gt or is_ge"));
  Instruction intData = inst;
  intData.src0.dtype = DType::I32;
  EXPECT_TRUE(rejects(intData, "on_true_tile must have a floating-point dtype, not i32"));
  Instruction bf16Bound = inst;
  bf16Bound.src2.dtype = DType::BF16;
  EXPECT_TRUE(rejects(bf16Bound, "bound0 and bound1 must be f32"));
  Instruction wideBound = inst;
  wideBound.src1 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 128, 2);
  EXPECT_TRUE(rejects(wideBound, "bound0 must be a [8, 1] tile"));
  Instruction wideMax = inst;
  wideMax.dst2 = dense(MemSpace::Sbuf, DType::F32, 0, 8, 512, 4);
  EXPECT_TRUE(rejects(wideMax, "reduce_res must be a [8, 1] tile"));
  Instruction noBound = inst;
  noBound.src2 = {};
  EXPECT_TRUE(rejects(noBound, "needs operand src2"));
  EXPECT_TRUE(rejects(inst, "cannot run on the gpsimd engine", Engine::GpSimd));
  Instruction zeroFill = inst;
  zeroFill.onFalse = 0.0f;
  EXPECT_TRUE(rejects(zeroFill, "on_false_value must be FP32's lowest value, -3.4028235e+38 (a hardware constraint), "
                                "not 0 [rule range_select.on-false-value"));
}

TEST(RangeSelect, CostsNOnTheVectorEngine) {
  for (const Target &target : neuronCoreTargets()) {
    if (!generationAtLeast(target, definition(Opcode::RangeSelect).since))
      continue;
    for (int64_t n : {1, 64, 512, 2048}) {
      Instruction inst = make(Opcode::RangeSelect);
      inst.src0 = wide(DType::F32, n);
      inst.src1 = wide(DType::F32, 1);
      inst.src2 = wide(DType::F32, 1);
      inst.dst = wide(DType::F32, n);
      EXPECT_EQ(engineCycles(inst, Engine::Vector, target), expectedStreamingCycles(target, Engine::Vector, n))
          << target.name;
    }
  }
}

// ---- the definitions themselves ---------------------------------------------------------------------------

TEST(ElementwiseDefinitions, NameEnginesAndSources) {
  struct Expected {
    Opcode op;
    std::string_view name, since;
    std::vector<Engine> engines;
  };
  for (const Expected &e :
       {Expected{Opcode::TensorScalar, "tensor_scalar", "v2", {Engine::Vector, Engine::Scalar}},
        Expected{Opcode::ScalarTensorTensor, "scalar_tensor_tensor", "v2", {Engine::Vector}},
        Expected{Opcode::Reciprocal, "reciprocal", "v2", {Engine::Vector}},
        Expected{Opcode::Iota, "iota", "v2", {Engine::GpSimd}},
        Expected{Opcode::AffineSelect, "affine_select", "v2", {Engine::GpSimd}},
        Expected{Opcode::RangeSelect, "range_select", "v3", {Engine::Vector}}}) {
    const InstructionDef &def = definition(e.op);
    EXPECT_EQ(def.name, e.name);
    EXPECT_EQ(parseOpcode(e.name), e.op);
    EXPECT_EQ(def.nki, "nki.isa." + std::string(e.name));
    EXPECT_EQ(def.since, e.since);
    for (Engine engine : {Engine::Tensor, Engine::Vector, Engine::Scalar, Engine::GpSimd, Engine::Dma})
      EXPECT_EQ(def.engines.contains(engine), std::ranges::count(e.engines, engine) == 1) << e.name;
    EXPECT_TRUE(def.engines.contains(def.preferredEngine));
    EXPECT_FALSE(def.summary.empty() || def.limits.empty() || def.cost.empty() || def.operands.empty());
  }
}

} // namespace
} // namespace tessera::isa
