/// \file
/// Instruction costs: each documented formula on each built-in target, with the expectation computed from the
/// target's own coefficients, plus a made-up target proving no coefficient is hard-coded.

#include "tessera/isa/Cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace tessera::isa {
namespace {

/// A [partitions x n] pattern walked with the given innermost stride.
AccessPattern tile(MemSpace space, DType dtype, uint32_t partitions, int64_t n, int64_t stride = 1) {
  AccessPattern pattern;
  pattern.space = space;
  pattern.dtype = dtype;
  pattern.partitions = partitions;
  pattern.freeRank = 1;
  pattern.sizes[0] = n;
  pattern.strides[0] = stride;
  if (space == MemSpace::Hbm) {
    pattern.tensor = 0;
    pattern.partitionStride = n * stride;
  }
  return pattern;
}

AccessPattern sbuf(DType dtype, int64_t n, int64_t stride = 1) { return tile(MemSpace::Sbuf, dtype, 128, n, stride); }
AccessPattern psum(DType dtype, int64_t n) { return tile(MemSpace::Psum, dtype, 128, n); }

Instruction matmul(DType stationary, DType moving, int64_t stationaryFree, int64_t movingFree) {
  Instruction inst;
  inst.op = Opcode::Matmul;
  inst.src0 = sbuf(stationary, stationaryFree);
  inst.src1 = sbuf(moving, movingFree);
  inst.dst = tile(MemSpace::Psum, DType::F32, uint32_t(stationaryFree), movingFree);
  return inst;
}

Instruction tensorTensor(AccessPattern a, AccessPattern b, AluOp alu) {
  Instruction inst;
  inst.op = Opcode::TensorTensor;
  inst.alu = alu;
  inst.src0 = a;
  inst.src1 = b;
  inst.dst = sbuf(a.dtype, a.freeElements());
  return inst;
}

Instruction unary(Opcode op, AccessPattern in, AluOp alu = AluOp::Add) {
  Instruction inst;
  inst.op = op;
  inst.alu = alu;
  inst.src0 = in;
  inst.dst = op == Opcode::TensorReduce ? sbuf(DType::F32, 1) : sbuf(in.dtype, in.freeElements());
  return inst;
}

Instruction memset(DType dtype, int64_t n, float value) {
  Instruction inst;
  inst.op = Opcode::Memset;
  inst.value = value;
  inst.dst = sbuf(dtype, n);
  return inst;
}

class CostOnTarget : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override { target_ = Target::find(GetParam()); }

  /// Vector/Scalar/GpSimd cost of `streaming` cycles: the access overhead plus the initiation-interval floor.
  uint64_t vectorCost(uint64_t streaming) const {
    return target_.cost.accessOverheadCycles + std::max<uint64_t>(target_.cost.minInitiationCycles, streaming);
  }

  Target target_;
};

TEST_P(CostOnTarget, MatmulIsTheMovingFreeSize) {
  const uint64_t n = 512;
  ASSERT_GT(n, target_.cost.matmulMinCycles);
  EXPECT_EQ(engineCycles(matmul(DType::BF16, DType::BF16, 128, n), Engine::Tensor, target_), n);
  // The stationary size does not matter: LoadStationary hides behind the previous multiply.
  EXPECT_EQ(engineCycles(matmul(DType::BF16, DType::BF16, 16, n), Engine::Tensor, target_), n);
}

TEST_P(CostOnTarget, MatmulHasAnInitiationFloor) {
  const uint64_t floor = target_.cost.matmulMinCycles;
  EXPECT_EQ(engineCycles(matmul(DType::BF16, DType::BF16, 128, 8), Engine::Tensor, target_), floor);
  EXPECT_EQ(engineCycles(matmul(DType::BF16, DType::BF16, 128, floor), Engine::Tensor, target_), floor);
  EXPECT_EQ(engineCycles(matmul(DType::BF16, DType::BF16, 128, floor + 1), Engine::Tensor, target_), floor + 1);
}

TEST_P(CostOnTarget, MatmulFp32IsSlowerByTheFp32Factor) {
  const uint64_t factor = target_.cost.matmulFp32Factor;
  EXPECT_EQ(engineCycles(matmul(DType::F32, DType::F32, 128, 512), Engine::Tensor, target_), 512 * factor);
  EXPECT_EQ(engineCycles(matmul(DType::F32, DType::BF16, 128, 512), Engine::Tensor, target_), 512 * factor);
  EXPECT_EQ(engineCycles(matmul(DType::BF16, DType::F32, 128, 512), Engine::Tensor, target_), 512 * factor);
  EXPECT_EQ(engineCycles(matmul(DType::F32, DType::F32, 128, 4), Engine::Tensor, target_),
            target_.cost.matmulMinCycles * factor);
  EXPECT_EQ(engineCycles(matmul(DType::F8E4M3, DType::F8E4M3, 128, 512), Engine::Tensor, target_), 512u);
}

TEST_P(CostOnTarget, TensorTensorTwoSbufInputsCostTwoInputFactor) {
  const uint64_t n = 512;
  const uint64_t slow = n * target_.cost.twoInputFactor;
  EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::F32, n), sbuf(DType::F32, n), AluOp::Add), Engine::Vector, target_),
            vectorCost(slow));
  // BF16 max/min are not on the fast path.
  EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::BF16, n), sbuf(DType::BF16, n), AluOp::Max), Engine::Vector,
                         target_),
            vectorCost(slow));
  // Mixed BF16/F32 is not either.
  EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::BF16, n), sbuf(DType::F32, n), AluOp::Add), Engine::Vector,
                         target_),
            vectorCost(slow));
  // Nor strided BF16.
  EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::BF16, n, 2), sbuf(DType::BF16, n), AluOp::Add), Engine::Vector,
                         target_),
            vectorCost(slow));
}

TEST_P(CostOnTarget, TensorTensorFastPathsCostN) {
  const uint64_t n = 512;
  for (AluOp alu : {AluOp::Add, AluOp::Subtract, AluOp::Multiply})
    EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::BF16, n), sbuf(DType::BF16, n), alu), Engine::Vector, target_),
              vectorCost(n));
  // One operand in PSUM and the other in SBUF, any type and op.
  EXPECT_EQ(engineCycles(tensorTensor(psum(DType::F32, n), sbuf(DType::F32, n), AluOp::Max), Engine::Vector,
                         target_),
            vectorCost(n));
  EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::F32, n), psum(DType::F32, n), AluOp::Add), Engine::Vector,
                         target_),
            vectorCost(n));
  // Both in PSUM is the slow path.
  EXPECT_EQ(engineCycles(tensorTensor(psum(DType::F32, n), psum(DType::F32, n), AluOp::Add), Engine::Vector,
                         target_),
            vectorCost(n * target_.cost.twoInputFactor));
}

TEST_P(CostOnTarget, TensorTensorHasAnInitiationFloor) {
  const uint64_t n = 8;
  ASSERT_LT(n * target_.cost.twoInputFactor, target_.cost.minInitiationCycles);
  EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::F32, n), sbuf(DType::F32, n), AluOp::Add), Engine::Vector, target_),
            target_.cost.accessOverheadCycles + target_.cost.minInitiationCycles);
}

TEST_P(CostOnTarget, ActivationCostsN) {
  EXPECT_EQ(engineCycles(unary(Opcode::Activation, sbuf(DType::F32, 1000)), Engine::Scalar, target_),
            vectorCost(1000));
  EXPECT_EQ(engineCycles(unary(Opcode::Activation, psum(DType::F32, 512)), Engine::Scalar, target_), vectorCost(512));
  EXPECT_EQ(engineCycles(unary(Opcode::Activation, sbuf(DType::BF16, 4)), Engine::Scalar, target_),
            target_.cost.accessOverheadCycles + target_.cost.minInitiationCycles);
}

TEST_P(CostOnTarget, TensorReduceHalvesForBf16AddAndMax) {
  const uint64_t n = 512;
  EXPECT_EQ(engineCycles(unary(Opcode::TensorReduce, sbuf(DType::BF16, n), AluOp::Add), Engine::Vector, target_),
            vectorCost(n / 2));
  EXPECT_EQ(engineCycles(unary(Opcode::TensorReduce, sbuf(DType::BF16, n), AluOp::Max), Engine::Vector, target_),
            vectorCost(n / 2));
  EXPECT_EQ(engineCycles(unary(Opcode::TensorReduce, sbuf(DType::BF16, n), AluOp::Min), Engine::Vector, target_),
            vectorCost(n));
  EXPECT_EQ(engineCycles(unary(Opcode::TensorReduce, sbuf(DType::F32, n), AluOp::Add), Engine::Vector, target_),
            vectorCost(n));
  // Odd sizes round up; small ones hit the initiation floor.
  EXPECT_EQ(engineCycles(unary(Opcode::TensorReduce, sbuf(DType::BF16, 301), AluOp::Add), Engine::Vector, target_),
            vectorCost(151));
  EXPECT_EQ(engineCycles(unary(Opcode::TensorReduce, sbuf(DType::BF16, 100), AluOp::Add), Engine::Vector, target_),
            target_.cost.accessOverheadCycles + target_.cost.minInitiationCycles);
}

TEST_P(CostOnTarget, TensorCopyCostsN) {
  EXPECT_EQ(engineCycles(unary(Opcode::TensorCopy, psum(DType::F32, 512)), Engine::Vector, target_), vectorCost(512));
  EXPECT_EQ(engineCycles(unary(Opcode::TensorCopy, sbuf(DType::BF16, 2048)), Engine::Scalar, target_),
            vectorCost(2048));
  EXPECT_EQ(engineCycles(unary(Opcode::TensorCopy, sbuf(DType::BF16, 1)), Engine::Vector, target_),
            target_.cost.accessOverheadCycles + target_.cost.minInitiationCycles);
}

TEST_P(CostOnTarget, MemsetOfZeroIntoBf16Halves) {
  EXPECT_EQ(engineCycles(memset(DType::BF16, 1024, 0.0f), Engine::Vector, target_), vectorCost(512));
  EXPECT_EQ(engineCycles(memset(DType::BF16, 1024, 1.0f), Engine::Vector, target_), vectorCost(1024));
  EXPECT_EQ(engineCycles(memset(DType::F32, 1024, 0.0f), Engine::Vector, target_), vectorCost(1024));
}

TEST_P(CostOnTarget, GpSimdAddsStartup) {
  const uint64_t startup = target_.cost.gpsimdStartupCycles;
  const Instruction add = tensorTensor(sbuf(DType::F32, 512), sbuf(DType::F32, 512), AluOp::Add);
  EXPECT_EQ(engineCycles(add, Engine::GpSimd, target_), engineCycles(add, Engine::Vector, target_) + startup);
  EXPECT_EQ(engineCycles(memset(DType::F32, 8, 0.0f), Engine::GpSimd, target_),
            startup + target_.cost.accessOverheadCycles + target_.cost.minInitiationCycles);
  const Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::BF16, 700));
  EXPECT_EQ(engineCycles(copy, Engine::GpSimd, target_), startup + vectorCost(700));
}

TEST_P(CostOnTarget, DmaHasNoEngineCycles) {
  Instruction load;
  load.op = Opcode::DmaCopy;
  load.src0 = tile(MemSpace::Hbm, DType::BF16, 128, 2048);
  load.dst = sbuf(DType::BF16, 2048);
  EXPECT_EQ(engineCycles(load, Engine::Dma, target_), 0u);
}

// A device print is a debugging aid: free on every engine (even GpSimd's start-up), no FLOPs, no HBM bytes.
TEST_P(CostOnTarget, PrintCostsNothing) {
  Instruction print;
  print.op = Opcode::Print;
  print.src0 = psum(DType::F32, 512);
  for (Engine e : {Engine::Vector, Engine::Scalar, Engine::GpSimd})
    EXPECT_EQ(engineCycles(print, e, target_), 0u) << name(e);
  EXPECT_EQ(flops(print), 0u);
  EXPECT_EQ(hbmBytes(print), 0u);
}

TEST_P(CostOnTarget, ClocksComeFromTheTarget) {
  EXPECT_DOUBLE_EQ(clockGhz(Engine::Tensor, target_), target_.tensor.clockGhz);
  EXPECT_DOUBLE_EQ(clockGhz(Engine::Vector, target_), target_.vector.clockGhz);
  EXPECT_DOUBLE_EQ(clockGhz(Engine::Scalar, target_), target_.scalar.clockGhz);
  EXPECT_DOUBLE_EQ(clockGhz(Engine::GpSimd, target_), target_.gpsimd.clockGhz);
  EXPECT_DOUBLE_EQ(clockGhz(Engine::Dma, target_), 1.0);
}

TEST_P(CostOnTarget, FullMatmulsReachThePublishedPeak) {
  // Back-to-back 128x128x512 BF16 matmuls: FLOPs / (cycles / clock) is the array's peak.
  const Instruction inst = matmul(DType::BF16, DType::BF16, 128, 512);
  const double seconds = double(engineCycles(inst, Engine::Tensor, target_)) / (clockGhz(Engine::Tensor, target_) * 1e9);
  const double tflops = double(flops(inst)) / seconds / 1e12;
  EXPECT_NEAR(tflops, target_.tensor.peakBf16Tflops, 0.02 * target_.tensor.peakBf16Tflops);
}

INSTANTIATE_TEST_SUITE_P(Builtin, CostOnTarget, ::testing::Values("trn1", "trn2", "trn3"));

TEST(Cost, CoefficientsComeFromTheTarget) {
  // A machine that does not exist: every coefficient changed, every formula must follow.
  Target t = Target::find("trn2");
  t.cost = CostModel{.matmulMinCycles = 32,
                     .matmulFp32Factor = 3,
                     .accessOverheadCycles = 7,
                     .minInitiationCycles = 5,
                     .twoInputFactor = 3,
                     .gpsimdStartupCycles = 11,
                     .stridedAccessBytes = 8,
                     .stridedAccessFactor = 5};
  EXPECT_EQ(engineCycles(matmul(DType::BF16, DType::BF16, 64, 16), Engine::Tensor, t), 32u);
  EXPECT_EQ(engineCycles(matmul(DType::F32, DType::F32, 64, 100), Engine::Tensor, t), 300u);
  EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::F32, 100), sbuf(DType::F32, 100), AluOp::Add), Engine::Vector, t),
            7u + 300u);
  EXPECT_EQ(engineCycles(tensorTensor(sbuf(DType::F32, 1), sbuf(DType::F32, 1), AluOp::Add), Engine::Vector, t),
            7u + 5u);
  EXPECT_EQ(engineCycles(unary(Opcode::Activation, sbuf(DType::F32, 100)), Engine::GpSimd, t), 11u + 7u + 100u);
  // A 12-byte minor stride is over this machine's 8 bytes: streaming x 5.
  EXPECT_EQ(engineCycles(unary(Opcode::Activation, sbuf(DType::F32, 100, 3)), Engine::Scalar, t), 7u + 5u * 100u);
}

TEST(Cost, Flops) {
  EXPECT_EQ(flops(matmul(DType::BF16, DType::BF16, 128, 512)), 2u * 128 * 128 * 512);
  EXPECT_EQ(flops(matmul(DType::BF16, DType::BF16, 64, 100)), 2u * 128 * 64 * 100);
  EXPECT_EQ(flops(tensorTensor(sbuf(DType::F32, 512), sbuf(DType::F32, 512), AluOp::Add)), 128u * 512);
  EXPECT_EQ(flops(unary(Opcode::Activation, sbuf(DType::F32, 300))), 128u * 300);
  EXPECT_EQ(flops(unary(Opcode::TensorReduce, sbuf(DType::BF16, 64), AluOp::Max)), 128u * 64);
  EXPECT_EQ(flops(unary(Opcode::TensorCopy, sbuf(DType::F32, 512))), 0u);
  EXPECT_EQ(flops(memset(DType::F32, 512, 0.0f)), 0u);
}

// One transcendental per destination element of an activation that applies one (exp, rsqrt, silu...), on either
// family; none for identity, relu or square, nor for instructions that apply no function.
TEST(Cost, Transcendentals) {
  Instruction act = unary(Opcode::Activation, sbuf(DType::F32, 300));
  EXPECT_EQ(transcendentals(act), 0u); // identity
  for (ActFunc f : {ActFunc::Exp, ActFunc::Rsqrt, ActFunc::Silu, ActFunc::Gelu}) {
    act.func = f;
    EXPECT_EQ(transcendentals(act), 128u * 300) << name(f);
  }
  for (ActFunc f : {ActFunc::Relu, ActFunc::Square}) {
    act.func = f;
    EXPECT_EQ(transcendentals(act), 0u) << name(f);
  }
  Instruction vpu = unary(Opcode::VpuUnary, sbuf(DType::F32, 64));
  vpu.func = ActFunc::Tanh;
  EXPECT_EQ(transcendentals(vpu), 128u * 64);
  Instruction add = tensorTensor(sbuf(DType::F32, 512), sbuf(DType::F32, 512), AluOp::Add);
  add.func = ActFunc::Exp; // not a setting tensor_tensor reads
  EXPECT_EQ(transcendentals(add), 0u);
}

TEST(Cost, HbmBytes) {
  Instruction load;
  load.op = Opcode::DmaCopy;
  load.src0 = tile(MemSpace::Hbm, DType::BF16, 128, 2048);
  load.dst = sbuf(DType::BF16, 2048);
  EXPECT_EQ(hbmBytes(load), 128u * 2048 * 2);

  Instruction store;
  store.op = Opcode::DmaCopy;
  store.src0 = psum(DType::F32, 512);
  store.dst = tile(MemSpace::Hbm, DType::BF16, 128, 512); // converted on the way: HBM holds BF16
  EXPECT_EQ(hbmBytes(store), 128u * 512 * 2);

  Instruction onChip;
  onChip.op = Opcode::DmaCopy;
  onChip.src0 = sbuf(DType::F32, 64);
  onChip.dst = sbuf(DType::F32, 64);
  EXPECT_EQ(hbmBytes(onChip), 0u);

  EXPECT_EQ(hbmBytes(unary(Opcode::TensorCopy, sbuf(DType::F32, 512))), 0u);
  EXPECT_EQ(hbmBytes(matmul(DType::BF16, DType::BF16, 128, 512)), 0u);
}

} // namespace
} // namespace tessera::isa
