/// \file
/// The TPU TensorCore's instructions: mxu_matmul, vpu_binary, vpu_unary, vpu_reduce, vpu_convert, vpu_fill, dma and
/// grid_step. Numerics against plain C++ references on VMEM buffers laid out as the TPU lowering lays them out
/// (rows at a pitch padded to 128 lanes), with edge values; verify's rules with their messages; the family checks
/// in both directions; and engineCycles against the TPU cost formulas recomputed from the test target's
/// coefficients (TpuTestTarget.h).

#include "InstructionTestSupport.h"
#include "TpuTestTarget.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/FreePattern.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/NumberFormats.h"
#include "tessera/isa/Semantics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tessera::isa {
namespace {

using testing::closeTo;
using testing::sameFloat;
using testing::TestMemory;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

const Target &tpu() {
  static const Target t = testing::tpuTestTarget();
  return t;
}

const Target &trn2() {
  static const Target t = Target::find("trn2");
  return t;
}

// ---- VMEM buffers -------------------------------------------------------------------------------------------

/// Places VMEM buffers one after the other, each at a multiple of the target's VMEM alignment, with rows at a
/// pitch of the row width rounded up to the lanes (or `pitch` when given), as the TPU lowering does.
struct VmemLayout {
  int64_t next = 0;

  AccessPattern buffer(DType dtype, uint32_t rows, int64_t cols, int64_t pitch = 0) {
    const int64_t lanes = tpu().tpu.lanes, alignment = static_cast<int64_t>(tpu().tpu.vmemAlignment);
    if (pitch == 0)
      pitch = (cols + lanes - 1) / lanes * lanes;
    AccessPattern ap = AccessPattern::dense(MemSpace::Vmem, dtype, 0, rows, next, cols);
    ap.partitionStride = pitch;
    const int64_t bytes = int64_t{rows} * pitch * byteSize(dtype);
    next += (bytes + alignment - 1) / alignment * alignment;
    return ap;
  }
};

/// Every VMEM byte that is not an element of `dst` is the same in `before` and `after`: the padding between rows
/// and the other buffers were not written.
::testing::AssertionResult onlyWrote(const std::vector<std::byte> &before, const TestMemory &after,
                                     const AccessPattern &dst) {
  std::vector<bool> written(before.size());
  const int64_t size = byteSize(dst.dtype);
  for (int64_t p = 0; p < dst.partitions; ++p)
    for (int64_t i = 0; i < dst.freeElements(); ++i)
      for (int64_t b = 0; b < size; ++b)
        written[dst.offset + (p * dst.partitionStride + i) * size + b] = true;
  for (size_t k = 0; k < before.size(); ++k)
    if (!written[k] && before[k] != after.vmem[k])
      return ::testing::AssertionFailure() << "VMEM byte " << k << " outside dst changed";
  return ::testing::AssertionSuccess();
}

/// Fills the whole VMEM with a byte pattern, so that a write to padding or to another buffer shows.
void poisonVmem(TestMemory &mem) {
  for (size_t k = 0; k < mem.vmem.size(); ++k)
    mem.vmem[k] = std::byte(0xA5 ^ (k * 7));
}

/// verifyInstruction's answer is `expected` ("" when the instruction is valid).
void expectVerify(const Instruction &inst, std::optional<Engine> engine, const Target *target,
                  const std::string &expected) {
  EXPECT_EQ(verifyInstruction(inst, engine, target), expected);
}

uint64_t ceilDiv(uint64_t n, uint64_t d) { return (n + d - 1) / d; }

/// An instruction of `op` on these operands (absent ones stay empty).
Instruction instructionOf(Opcode op, const AccessPattern &dst, const AccessPattern &src0 = {},
                          const AccessPattern &src1 = {}) {
  Instruction inst;
  inst.op = op;
  inst.dst = dst;
  inst.src0 = src0;
  inst.src1 = src1;
  return inst;
}

/// The VPU formula of the common context, recomputed: vregs x max(loads / load slots, ops, eup x eup cycles,
/// stores / store slots), rounded up, + latency.
uint64_t expectedVpuCycles(uint64_t vregs, uint64_t loads, uint64_t ops, uint64_t eup, uint64_t stores,
                           const Target &target = tpu()) {
  const TpuCostModel &c = target.tpuCost;
  const double busy = std::max({double(vregs * loads) / c.vpuLoadSlots, double(vregs * ops),
                                double(vregs * eup * c.eupCyclesPerVreg), double(vregs * stores) / c.vpuStoreSlots});
  return static_cast<uint64_t>(std::ceil(busy)) + c.vpuLatencyCycles;
}

/// Vregs of a [rows, cols] operand: ceil(rows / 8) x ceil(cols / 128) on the test target.
uint64_t vregs(uint64_t rows, uint64_t cols, const Target &target = tpu()) {
  return ceilDiv(rows, target.tpu.sublanes) * ceilDiv(cols, target.tpu.lanes);
}

// ---- mxu_matmul ---------------------------------------------------------------------------------------------

Instruction matmulOf(const AccessPattern &dst, const AccessPattern &lhsT, const AccessPattern &rhs, bool accumulate) {
  Instruction inst = instructionOf(Opcode::MxuMatmul, dst, lhsT, rhs);
  inst.accumulate = accumulate;
  return inst;
}

/// acc[m, n] = (accumulate ? acc[m, n] : 0) + sum over k, ascending, of lhsT[k, m] * rhs[k, n], in FP32.
std::vector<float> referenceMatmul(const std::vector<float> &lhsT, const std::vector<float> &rhs,
                                   const std::vector<float> &initial, int64_t k, int64_t m, int64_t n,
                                   bool accumulate) {
  std::vector<float> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = accumulate ? initial[i * n + j] : 0.0f;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += lhsT[kk * m + i] * rhs[kk * n + j];
      out[i * n + j] = acc;
    }
  return out;
}

void checkMatmul(DType inputType, int64_t k, int64_t m, int64_t n, bool accumulate, bool edgeValues) {
  SCOPED_TRACE(::testing::Message() << name(inputType) << " K=" << k << " M=" << m << " N=" << n
                                    << (accumulate ? " accumulate" : " overwrite"));
  VmemLayout layout;
  const AccessPattern lhsT = layout.buffer(inputType, k, m), rhs = layout.buffer(inputType, k, n),
                      acc = layout.buffer(DType::F32, m, n);
  const Instruction inst = matmulOf(acc, lhsT, rhs, accumulate);
  ASSERT_EQ(verifyInstruction(inst, Engine::Mxu, &tpu()), "");
  TestMemory mem;
  poisonVmem(mem);
  std::vector<float> a = mem.fillRandom(lhsT, 11), b = mem.fillRandom(rhs, 12), c = mem.fillRandom(acc, 13);
  if (edgeValues) {
    // A NaN weight poisons its output column; an infinite LHS value its output row (inf * 0 = NaN included).
    a = mem.write(lhsT, [&] { a[1 * m + 2] = kInf; return a; }());
    b = mem.write(rhs, [&] { b[3 * n + 5] = kNaN; return b; }());
  }
  const std::vector<std::byte> before = mem.vmem;
  execute(inst, mem.memories());
  const std::vector<float> expected = referenceMatmul(a, b, c, k, m, n, accumulate);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_TRUE(closeTo(expected[i * n + j], mem.read(acc, i, j), 0)) << "acc[" << i << ", " << j << "]";
  EXPECT_TRUE(onlyWrote(before, mem, acc));
  if (edgeValues) {
    EXPECT_TRUE(std::isnan(mem.read(acc, 0, 5)));
    EXPECT_TRUE(std::isinf(mem.read(acc, 2, 0)) || std::isnan(mem.read(acc, 2, 0)));
  }
}

TEST(TpuMxuMatmul, MatchesTheReference) {
  checkMatmul(DType::BF16, 40, 24, 136, false, false);
  checkMatmul(DType::BF16, 40, 24, 136, true, false);
  checkMatmul(DType::BF16, 9, 13, 7, false, true);
  checkMatmul(DType::F32, 130, 8, 200, true, true);
}

TEST(TpuMxuMatmul, Verify) {
  VmemLayout layout;
  const AccessPattern lhsT = layout.buffer(DType::BF16, 32, 16), rhs = layout.buffer(DType::BF16, 32, 64),
                      acc = layout.buffer(DType::F32, 16, 64);
  const Instruction good = matmulOf(acc, lhsT, rhs, false);
  expectVerify(good, Engine::Mxu, &tpu(), "");
  expectVerify(good, Engine::Vpu, &tpu(), "cannot run on the vpu engine");

  Instruction bf16Acc = good;
  bf16Acc.dst.dtype = DType::BF16;
  expectVerify(bf16Acc, Engine::Mxu, &tpu(), "acc must be an f32 accumulator, not bf16");
  Instruction otherK = good;
  otherK.src1.partitions = 31;
  expectVerify(otherK, Engine::Mxu, &tpu(),
               "lhs^T [K, M] and rhs [K, N] must share the contraction K (rows), not 32 and 31");
  Instruction wrongAcc = good;
  wrongAcc.dst.partitions = 17;
  expectVerify(wrongAcc, Engine::Mxu, &tpu(), "acc must be [lhs^T free, rhs free] = [16, 64], not [17, 64]");
  Instruction f16 = good;
  f16.src0.dtype = DType::F16;
  expectVerify(f16, Engine::Mxu, &tpu(), "lhs^T is f16; the MXU takes bf16 or f32 (fp8 where the target has it)");
  Instruction fp8 = good;
  fp8.src1.dtype = DType::F8E4M3;
  expectVerify(fp8, Engine::Mxu, &tpu(), "rhs is f8e4m3, but the MXU of test-v5e (TPU v5e) has no FP8: use bf16");
  Target withFp8 = tpu();
  withFp8.tensor.peakFp8Tflops = 4614;
  expectVerify(fp8, Engine::Mxu, &withFp8, "");
  Instruction moded = good;
  moded.mode = 1;
  expectVerify(moded, Engine::Mxu, &tpu(), "mode 1 means nothing to mxu_matmul: it has no modes (0)");
  Instruction inSbuf = good;
  inSbuf.src0 = AccessPattern::dense(MemSpace::Sbuf, DType::BF16, 0, 32, 0, 16);
  expectVerify(inSbuf, Engine::Mxu, &tpu(), "operand src0 is in SBUF; the TensorCore's compute units reach only VMEM");
  Instruction beyond = good;
  beyond.dst.offset = static_cast<int64_t>(tpu().tpu.vmemBytes) - 4096;
  expectVerify(beyond, Engine::Mxu, &tpu(),
               "dst covers VMEM bytes [134213632, 134221568), outside the 134217728 bytes of VMEM on test-v5e");
  Instruction missing = good;
  missing.src1 = {};
  expectVerify(missing, Engine::Mxu, &tpu(), "needs operand src1");
}

/// The MXU formula of the common context, recomputed from the target's figures: the MXU's occupancy, without the
/// pipeline fill (weight load + mxu_latency_cycles) that the simulator adds after idling.
uint64_t expectedMatmulCycles(const Target &t, uint64_t k, uint64_t m, uint64_t n, bool fp32) {
  const uint64_t tiles = ceilDiv(k, t.tensor.rows) * ceilDiv(n, t.tensor.cols);
  const uint64_t rows = ceilDiv(m, t.tpu.sublanes) * t.tpu.sublanes;
  const uint64_t perTile = std::max<uint64_t>(ceilDiv(rows, t.tpuCost.mxuRowsPerCycle), t.tpuCost.mxuWeightLoadCycles);
  const uint64_t stream = ceilDiv(tiles * perTile * (fp32 ? t.tpuCost.mxuFp32Passes : 1), t.tpu.mxus);
  const uint64_t popped = ceilDiv(m, t.tpu.sublanes) * ceilDiv(n, t.tpu.lanes);
  return std::max(stream, popped);
}

TEST(TpuMxuMatmul, Cycles) {
  struct Case {
    int64_t k, m, n;
    DType type;
    uint64_t cycles; // worked out by hand for the test target, as a check on the recomputed formula too
  };
  // 2 x 3 tiles of max(24 rows, 96 weight load) over 4 MXUs; 1 tile of 512 rows x 3 FP32 passes over 4 MXUs; 8
  // tiles of 1000 rows over 4 MXUs. No mxu_latency_cycles (37): back-to-back matmuls pipeline it.
  for (const Case &c : {Case{256, 20, 384, DType::BF16, 6 * 96 / 4}, Case{128, 512, 128, DType::F32, 512 * 3 / 4},
                        Case{8, 1000, 1024, DType::BF16, 8 * 1000 / 4}}) {
    VmemLayout layout;
    const Instruction inst = matmulOf(layout.buffer(DType::F32, c.m, c.n), layout.buffer(c.type, c.k, c.m),
                                      layout.buffer(c.type, c.k, c.n), false);
    EXPECT_EQ(engineCycles(inst, Engine::Mxu, tpu()), c.cycles) << c.k << " " << c.m << " " << c.n;
    EXPECT_EQ(engineCycles(inst, Engine::Mxu, tpu()), expectedMatmulCycles(tpu(), c.k, c.m, c.n, c.type == DType::F32));
    EXPECT_EQ(flops(inst), uint64_t(2 * c.k * c.m * c.n));
  }
  // With 16 MXUs and no weight-load floor, popping 32 accumulator vregs outlasts 32 tiles of 8 rows over 16 MXUs.
  Target wide = tpu();
  wide.tpu.mxus = 16;
  wide.tpuCost.mxuWeightLoadCycles = 0;
  VmemLayout layout;
  const Instruction popBound = matmulOf(layout.buffer(DType::F32, 8, 4096), layout.buffer(DType::BF16, 8, 8),
                                        layout.buffer(DType::BF16, 8, 4096), false);
  EXPECT_EQ(engineCycles(popBound, Engine::Mxu, wide), 32u);
  EXPECT_EQ(engineCycles(popBound, Engine::Mxu, wide), expectedMatmulCycles(wide, 8, 8, 4096, false));
}

// ---- vpu_binary ---------------------------------------------------------------------------------------------

Instruction binaryOf(AluOp alu, const AccessPattern &dst, const AccessPattern &lhs, const AccessPattern &rhs) {
  Instruction inst = instructionOf(Opcode::VpuBinary, dst, lhs, rhs);
  inst.alu = alu;
  return inst;
}

/// numpy's maximum: NaN wins, then the larger (the right operand on a tie, as isa::apply picks it).
float numpyMax(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) ? a : b;
  return a > b ? a : b;
}

struct BinaryCase {
  AluOp alu;
  std::function<float(float, float)> reference;
  DType lhsType, rhsType, outType;
  bool lhsBroadcast = false, rhsBroadcast = false;
};

/// Runs `c` on [rows, cols] operands at padded pitches, with infinities, NaN and zeros among the inputs, and
/// checks every element of out against the reference rounded to out's dtype, and that no padding was written.
void checkBinary(const BinaryCase &c, uint32_t rows, int64_t cols) {
  SCOPED_TRACE(::testing::Message() << name(c.alu) << " " << name(c.lhsType) << " " << name(c.rhsType) << " -> "
                                    << name(c.outType) << (c.lhsBroadcast ? " lhs [R, 1]" : "")
                                    << (c.rhsBroadcast ? " rhs [R, 1]" : ""));
  VmemLayout layout;
  const AccessPattern lhs = layout.buffer(c.lhsType, rows, c.lhsBroadcast ? 1 : cols),
                      rhs = layout.buffer(c.rhsType, rows, c.rhsBroadcast ? 1 : cols),
                      out = layout.buffer(c.outType, rows, cols);
  const Instruction inst = binaryOf(c.alu, out, lhs, rhs);
  ASSERT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()), "");
  TestMemory mem;
  poisonVmem(mem);
  std::vector<float> a = mem.fillRandom(lhs, 21), b = mem.fillRandom(rhs, 22);
  const std::vector<float> edges = {kInf, -kInf, kNaN, 0.0f, -0.0f};
  for (size_t e = 0; e < std::min({edges.size(), a.size(), b.size()}); ++e) {
    a[a.size() - 1 - e] = edges[e];
    b[e] = edges[edges.size() - 1 - e];
  }
  a = mem.write(lhs, a);
  b = mem.write(rhs, b);
  const std::vector<std::byte> before = mem.vmem;
  execute(inst, mem.memories());
  for (int64_t p = 0; p < rows; ++p)
    for (int64_t i = 0; i < cols; ++i) {
      const float x = c.lhsBroadcast ? a[p] : a[p * cols + i], y = c.rhsBroadcast ? b[p] : b[p * cols + i];
      const float expected = roundTo(c.outType, c.reference(x, y));
      ASSERT_TRUE(sameFloat(expected, mem.read(out, p, i)))
          << "out[" << p << ", " << i << "] = " << mem.read(out, p, i) << " for " << x << " and " << y
          << ", expected " << expected;
    }
  EXPECT_TRUE(onlyWrote(before, mem, out));
}

TEST(TpuVpuBinary, MatchesTheReference) {
  const auto add = [](float x, float y) { return x + y; };
  const auto subtract = [](float x, float y) { return x - y; };
  const auto multiply = [](float x, float y) { return x * y; };
  const auto divide = [](float x, float y) { return x / y; };
  const auto isGe = [](float x, float y) { return x >= y ? 1.0f : 0.0f; };
  const std::vector<BinaryCase> cases = {
      {AluOp::Add, add, DType::F32, DType::F32, DType::F32},
      {AluOp::Add, add, DType::F32, DType::F32, DType::BF16}, // output rounding
      {AluOp::Multiply, multiply, DType::BF16, DType::F32, DType::F32, false, true},
      {AluOp::Subtract, subtract, DType::F32, DType::BF16, DType::BF16, true, false}, // the broadcast on the left
      {AluOp::Max, numpyMax, DType::BF16, DType::BF16, DType::BF16},
      {AluOp::Divide, divide, DType::F32, DType::F32, DType::F32},
      {AluOp::IsGe, isGe, DType::F32, DType::F32, DType::I32},
  };
  for (const BinaryCase &c : cases) {
    checkBinary(c, 10, 150);
    checkBinary(c, 3, 128);
  }
}

TEST(TpuVpuBinary, ZeroStrideBroadcast) {
  // The tensor_tensor form of a row broadcast: rhs walks [R, F] with stride 0 over one column.
  VmemLayout layout;
  const AccessPattern lhs = layout.buffer(DType::F32, 9, 140), column = layout.buffer(DType::F32, 9, 1),
                      out = layout.buffer(DType::F32, 9, 140);
  AccessPattern rhs = column;
  rhs.sizes[0] = 140;
  rhs.strides[0] = 0;
  const Instruction inst = binaryOf(AluOp::Multiply, out, lhs, rhs);
  ASSERT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()), "");
  TestMemory mem;
  const std::vector<float> a = mem.fillRandom(lhs, 31), b = mem.fillRandom(column, 32);
  execute(inst, mem.memories());
  for (int64_t p = 0; p < 9; ++p)
    for (int64_t i = 0; i < 140; ++i)
      ASSERT_TRUE(sameFloat(a[p * 140 + i] * b[p], mem.read(out, p, i))) << p << ", " << i;
  // A zero-stride source is loaded once per row group, like the [R, 1] form: one load per vreg, not two.
  EXPECT_EQ(engineCycles(inst, Engine::Vpu, tpu()), expectedVpuCycles(vregs(9, 140), 1, 1, 0, 1));
}

TEST(TpuVpuBinary, ANumberInPlaceOfRhs) {
  // No rhs: lhs <op> operand0, or operand0 <op> lhs with reverse0; the number needs no vreg load.
  VmemLayout layout;
  const AccessPattern lhs = layout.buffer(DType::F32, 9, 140), out = layout.buffer(DType::F32, 9, 140);
  Instruction inst = binaryOf(AluOp::Subtract, out, lhs, AccessPattern{});
  inst.operand0 = 1.5f;
  inst.reverse0 = true;
  ASSERT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()), "");
  TestMemory mem;
  const std::vector<float> a = mem.fillRandom(lhs, 33);
  execute(inst, mem.memories());
  for (int64_t p = 0; p < 9; ++p)
    for (int64_t i = 0; i < 140; ++i)
      ASSERT_TRUE(sameFloat(1.5f - a[p * 140 + i], mem.read(out, p, i))) << p << ", " << i;
  EXPECT_EQ(engineCycles(inst, Engine::Vpu, tpu()), expectedVpuCycles(vregs(9, 140), 1, 1, 0, 1));
  // A second stage is tensor_scalar's, not vpu_binary's.
  inst.alu1 = AluOp::Add;
  EXPECT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()),
            "a second stage (op1) needs tensor_scalar; vpu_binary with a number has one operation");
}

TEST(TpuVpuBinary, Verify) {
  VmemLayout layout;
  const AccessPattern a = layout.buffer(DType::F32, 16, 200), b = layout.buffer(DType::BF16, 16, 200),
                      out = layout.buffer(DType::BF16, 16, 200), twoColumns = layout.buffer(DType::F32, 16, 2);
  expectVerify(binaryOf(AluOp::Add, out, a, b), Engine::Vpu, &tpu(), "");
  expectVerify(binaryOf(AluOp::Add, out, a, twoColumns), Engine::Vpu, &tpu(),
               "rhs is [16, 2] but out is [16, 200]; it must be [16, 200] or [16, 1] (broadcast along the row)");
  AccessPattern fewerRows = a;
  fewerRows.partitions = 8;
  expectVerify(binaryOf(AluOp::Add, out, fewerRows, b), Engine::Vpu, &tpu(),
               "lhs is [8, 200] but out is [16, 200]; it must be [16, 200] or [16, 1] (broadcast along the row)");
  AccessPattern f16 = a;
  f16.dtype = DType::F16;
  expectVerify(binaryOf(AluOp::Add, out, f16, b), Engine::Vpu, &tpu(),
               "lhs is f16; VPU arithmetic takes f32, bf16, i32 or u32: convert it with vpu_convert first");
  AccessPattern fp8Out = out;
  fp8Out.dtype = DType::F8E5M2;
  expectVerify(binaryOf(AluOp::Add, fp8Out, a, b), Engine::Vpu, &tpu(),
               "out is f8e5m2; VPU arithmetic takes f32, bf16, i32 or u32: convert it with vpu_convert first");
  AccessPattern inHbm = a;
  inHbm.space = MemSpace::Hbm;
  inHbm.tensor = 0;
  expectVerify(binaryOf(AluOp::Add, out, inHbm, b), Engine::Vpu, &tpu(),
               "operand src0 is in HBM; the TensorCore's compute units reach only VMEM");
}

TEST(TpuVpuBinary, Cycles) {
  // Per destination vreg: loads (sources not broadcast), VALU ops and EUP pushes per op, one store.
  struct Case {
    AluOp alu;
    uint64_t ops, eup;
  };
  VmemLayout layout;
  const AccessPattern a = layout.buffer(DType::F32, 20, 300), b = layout.buffer(DType::F32, 20, 300),
                      column = layout.buffer(DType::F32, 20, 1), out = layout.buffer(DType::BF16, 20, 300);
  const uint64_t v = vregs(20, 300);
  ASSERT_EQ(v, 9u);
  for (const Case &c : {Case{AluOp::Add, 1, 0}, Case{AluOp::Max, 1, 0}, Case{AluOp::Divide, 3, 1},
                        Case{AluOp::Power, 1, 2}, Case{AluOp::IsGe, 2, 0}, Case{AluOp::LogicalAnd, 4, 0},
                        Case{AluOp::AbsMax, 3, 0}, Case{AluOp::Bypass, 0, 0}}) {
    SCOPED_TRACE(std::string(name(c.alu)));
    EXPECT_EQ(engineCycles(binaryOf(c.alu, out, a, b), Engine::Vpu, tpu()), expectedVpuCycles(v, 2, c.ops, c.eup, 1));
    EXPECT_EQ(engineCycles(binaryOf(c.alu, out, a, column), Engine::Vpu, tpu()),
              expectedVpuCycles(v, 1, c.ops, c.eup, 1));
  }
  // By hand: add is VALU-bound, 9 vregs x 1 op + 5; divide EUP-bound, 9 x 4 + 5; bypass load-bound, 18 / 3 + 5.
  EXPECT_EQ(engineCycles(binaryOf(AluOp::Add, out, a, b), Engine::Vpu, tpu()), 9u + 5);
  EXPECT_EQ(engineCycles(binaryOf(AluOp::Divide, out, a, b), Engine::Vpu, tpu()), 36u + 5);
  EXPECT_EQ(engineCycles(binaryOf(AluOp::Bypass, out, a, b), Engine::Vpu, tpu()), 6u + 5);
  // One flop per output element, also when a source is broadcast.
  EXPECT_EQ(flops(binaryOf(AluOp::Add, out, column, b)), 20u * 300);
}

// ---- vpu_unary ----------------------------------------------------------------------------------------------

Instruction unaryOf(ActFunc func, float scale, const AccessPattern &dst, const AccessPattern &src) {
  Instruction inst = instructionOf(Opcode::VpuUnary, dst, src);
  inst.func = func;
  inst.scale = scale;
  return inst;
}

float sigmoidOf(float x) { return 1.0f / (1.0f + std::exp(-x)); }

TEST(TpuVpuUnary, MatchesTheReference) {
  struct Case {
    ActFunc func;
    float scale;
    std::function<float(float)> reference;
    DType outType;
  };
  const std::vector<Case> cases = {
      {ActFunc::Exp, 1.0f, [](float x) { return std::exp(x); }, DType::F32},
      {ActFunc::Exp, 0.5f, [](float x) { return std::exp(x * 0.5f); }, DType::BF16},
      {ActFunc::Tanh, 1.0f, [](float x) { return std::tanh(x); }, DType::BF16},
      {ActFunc::Sigmoid, 1.0f, sigmoidOf, DType::F32},
      {ActFunc::Silu, 2.0f, [](float x) { return x * 2.0f * sigmoidOf(x * 2.0f); }, DType::F32},
      {ActFunc::Relu, 1.0f, [](float x) { return std::isnan(x) || x > 0.0f ? x : 0.0f; }, DType::BF16},
      {ActFunc::Rsqrt, 1.0f, [](float x) { return 1.0f / std::sqrt(x); }, DType::F32},
      {ActFunc::Square, -3.0f, [](float x) { return (x * -3.0f) * (x * -3.0f); }, DType::F32},
      {ActFunc::Identity, 1.0f, [](float x) { return x; }, DType::F32},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(::testing::Message() << name(c.func) << " scale " << c.scale << " -> " << name(c.outType));
    VmemLayout layout;
    const AccessPattern x = layout.buffer(DType::F32, 11, 133), out = layout.buffer(c.outType, 11, 133);
    const Instruction inst = unaryOf(c.func, c.scale, out, x);
    ASSERT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()), "");
    TestMemory mem;
    poisonVmem(mem);
    std::vector<float> in = mem.fillRandom(x, 41, -4.0f, 4.0f);
    const std::vector<float> edges = {kInf, -kInf, kNaN, 0.0f, -0.0f, 88.0f, -100.0f};
    std::copy(edges.begin(), edges.end(), in.begin());
    in = mem.write(x, in);
    const std::vector<std::byte> before = mem.vmem;
    execute(inst, mem.memories());
    for (int64_t p = 0; p < 11; ++p)
      for (int64_t i = 0; i < 133; ++i) {
        const float expected = c.reference(in[p * 133 + i]), actual = mem.read(out, p, i);
        if (c.outType == DType::F32)
          ASSERT_TRUE(closeTo(expected, actual, 2)) << "x = " << in[p * 133 + i];
        else
          ASSERT_TRUE(testing::roundsTo(c.outType, expected, actual, 2)) << "x = " << in[p * 133 + i];
      }
    EXPECT_TRUE(onlyWrote(before, mem, out));
  }
}

TEST(TpuVpuUnary, KeepsTheSignOfZero) {
  // func(x * scale) adds no bias: identity keeps -0 (activation's x * scale + 0 would give +0).
  VmemLayout layout;
  const AccessPattern x = layout.buffer(DType::F32, 1, 2), out = layout.buffer(DType::F32, 1, 2);
  TestMemory mem;
  mem.write(x, std::vector<float>{-0.0f, 0.0f});
  execute(unaryOf(ActFunc::Identity, 1.0f, out, x), mem.memories());
  EXPECT_TRUE(sameFloat(mem.read(out, 0, 0), -0.0f));
  EXPECT_TRUE(sameFloat(mem.read(out, 0, 1), 0.0f));
}

TEST(TpuVpuUnary, Verify) {
  VmemLayout layout;
  const AccessPattern x = layout.buffer(DType::BF16, 8, 128), out = layout.buffer(DType::BF16, 8, 128),
                      wider = layout.buffer(DType::BF16, 8, 256), column = layout.buffer(DType::F32, 8, 1);
  expectVerify(unaryOf(ActFunc::Exp, 1.0f, out, x), Engine::Vpu, &tpu(), "");
  expectVerify(unaryOf(ActFunc::Exp, 1.0f, wider, x), Engine::Vpu, &tpu(),
               "out is [8, 256] but x is [8, 128]; they must match");
  Instruction biased = unaryOf(ActFunc::Exp, 1.0f, out, x);
  biased.bias = 1.0f;
  expectVerify(biased, Engine::Vpu, &tpu(), "vpu_unary computes func(x * scale) and takes no bias: add one with "
                                            "vpu_binary");
  Instruction biasTile = unaryOf(ActFunc::Exp, 1.0f, out, x);
  biasTile.src1 = column;
  expectVerify(biasTile, Engine::Vpu, &tpu(),
               "vpu_unary computes func(x * scale) and takes no bias: add one with vpu_binary");
  AccessPattern u8 = x;
  u8.dtype = DType::U8;
  expectVerify(unaryOf(ActFunc::Exp, 1.0f, out, u8), Engine::Vpu, &tpu(),
               "x is u8; VPU arithmetic takes f32, bf16, i32 or u32: convert it with vpu_convert first");
}

TEST(TpuVpuUnary, Cycles) {
  struct Case {
    ActFunc func;
    uint64_t ops, eup; // the table of the definition
  };
  VmemLayout layout;
  const AccessPattern x = layout.buffer(DType::F32, 20, 300), out = layout.buffer(DType::F32, 20, 300);
  const uint64_t v = vregs(20, 300);
  for (const Case &c : {Case{ActFunc::Identity, 0, 0}, Case{ActFunc::Exp, 0, 1}, Case{ActFunc::Log, 0, 1},
                        Case{ActFunc::Tanh, 0, 1}, Case{ActFunc::Rsqrt, 0, 1}, Case{ActFunc::Sqrt, 0, 1},
                        Case{ActFunc::Reciprocal, 0, 1}, Case{ActFunc::Sigmoid, 2, 2}, Case{ActFunc::Silu, 3, 2},
                        Case{ActFunc::GeluApproxTanh, 8, 1}, Case{ActFunc::Gelu, 29, 1}, Case{ActFunc::Relu, 1, 0},
                        Case{ActFunc::Square, 1, 0}}) {
    SCOPED_TRACE(std::string(name(c.func)));
    EXPECT_EQ(engineCycles(unaryOf(c.func, 1.0f, out, x), Engine::Vpu, tpu()), expectedVpuCycles(v, 1, c.ops, c.eup, 1));
    // A scale other than 1 is one VALU op more.
    EXPECT_EQ(engineCycles(unaryOf(c.func, 0.25f, out, x), Engine::Vpu, tpu()),
              expectedVpuCycles(v, 1, c.ops + 1, c.eup, 1));
  }
  // By hand: exp is EUP-bound, 9 vregs x 4 cycles + 5; identity store-bound, ceil(9 / 2) + 5.
  EXPECT_EQ(engineCycles(unaryOf(ActFunc::Exp, 1.0f, out, x), Engine::Vpu, tpu()), 36u + 5);
  EXPECT_EQ(engineCycles(unaryOf(ActFunc::Identity, 1.0f, out, x), Engine::Vpu, tpu()), 5u + 5);
}

// ---- vpu_reduce ---------------------------------------------------------------------------------------------

Instruction reduceOf(AluOp alu, const AccessPattern &dst, const AccessPattern &src) {
  Instruction inst = instructionOf(Opcode::VpuReduce, dst, src);
  inst.alu = alu;
  return inst;
}

TEST(TpuVpuReduce, MatchesTheReference) {
  struct Case {
    AluOp alu;
    std::function<float(float, float)> fold;
    DType inType, outType;
  };
  const std::vector<Case> cases = {
      {AluOp::Add, [](float a, float b) { return a + b; }, DType::F32, DType::F32},
      {AluOp::Add, [](float a, float b) { return a + b; }, DType::BF16, DType::BF16},
      {AluOp::Max, numpyMax, DType::F32, DType::F32},
      {AluOp::Min, [](float a, float b) { return std::isnan(a) || std::isnan(b) ? kNaN : (a < b ? a : b); },
       DType::BF16, DType::F32},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(::testing::Message() << name(c.alu) << " " << name(c.inType) << " -> " << name(c.outType));
    VmemLayout layout;
    const AccessPattern x = layout.buffer(c.inType, 12, 260), out = layout.buffer(c.outType, 12, 1);
    const Instruction inst = reduceOf(c.alu, out, x);
    ASSERT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()), "");
    TestMemory mem;
    poisonVmem(mem);
    std::vector<float> in = mem.fillRandom(x, 51);
    in[1 * 260 + 7] = kNaN;  // row 1 reduces to NaN
    in[2 * 260 + 9] = kInf;  // row 2: inf for add and max
    in[3 * 260 + 0] = -kInf; // row 3: -inf for add and min
    in = mem.write(x, in);
    const std::vector<std::byte> before = mem.vmem;
    execute(inst, mem.memories());
    for (int64_t p = 0; p < 12; ++p) {
      float acc = in[p * 260];
      for (int64_t i = 1; i < 260; ++i)
        acc = c.fold(acc, in[p * 260 + i]);
      ASSERT_TRUE(sameFloat(roundTo(c.outType, acc), mem.read(out, p, 0)))
          << "row " << p << ": " << mem.read(out, p, 0) << ", expected " << acc;
    }
    EXPECT_TRUE(std::isnan(mem.read(out, 1, 0)));
    EXPECT_TRUE(onlyWrote(before, mem, out));
  }
}

TEST(TpuVpuReduce, Verify) {
  VmemLayout layout;
  const AccessPattern x = layout.buffer(DType::F32, 16, 256), out = layout.buffer(DType::F32, 16, 1),
                      two = layout.buffer(DType::F32, 16, 2);
  expectVerify(reduceOf(AluOp::Max, out, x), Engine::Vpu, &tpu(), "");
  expectVerify(reduceOf(AluOp::Multiply, out, x), Engine::Vpu, &tpu(),
               "reduction multiply is not one the VPU does: use add, max or min");
  // Two groups of 128 consecutive elements; three do not divide 256.
  expectVerify(reduceOf(AluOp::Add, two, x), Engine::Vpu, &tpu(), "");
  expectVerify(reduceOf(AluOp::Add, layout.buffer(DType::F32, 16, 3), x), Engine::Vpu, &tpu(),
               "out is [16, 3]: it reduces x [16, 256] to [16, 1], or to [16, G] groups of consecutive elements, G "
               "dividing 256");
  expectVerify(reduceOf(AluOp::Add, layout.buffer(DType::F32, 8, 2), x), Engine::Vpu, &tpu(),
               "out is [8, 2]: it reduces x [16, 256] to [16, 1], or to [16, G] groups of consecutive elements, G "
               "dividing 256");
  Instruction negated = reduceOf(AluOp::Add, out, x);
  negated.negate = true;
  expectVerify(negated, Engine::Vpu, &tpu(),
               "vpu_reduce does not negate its result: negate it with vpu_binary or vpu_unary's scale");
}

TEST(TpuVpuReduce, Cycles) {
  VmemLayout layout;
  const AccessPattern x = layout.buffer(DType::F32, 20, 300), out = layout.buffer(DType::F32, 20, 1);
  // 9 source vregs, one load and one VALU op each; 3 row groups stored and reduced across lanes on the XLU.
  const TpuCostModel &c = tpu().tpuCost;
  const uint64_t sourceVregs = vregs(20, 300), rowGroups = ceilDiv(20, tpu().tpu.sublanes);
  const double streaming = std::max({double(sourceVregs) / c.vpuLoadSlots, double(sourceVregs),
                                     double(rowGroups) / c.vpuStoreSlots});
  const uint64_t expected =
      static_cast<uint64_t>(std::ceil(streaming)) + rowGroups * c.xluReduceCycles + c.vpuLatencyCycles;
  EXPECT_EQ(engineCycles(reduceOf(AluOp::Add, out, x), Engine::Vpu, tpu()), expected);
  EXPECT_EQ(expected, 9u + 3 * 11 + 5);
}

TEST(TpuVpuReduce, GroupsOfConsecutiveElements) {
  VmemLayout layout;
  const AccessPattern x = layout.buffer(DType::F32, 16, 96), out = layout.buffer(DType::F32, 16, 12);
  const Instruction inst = reduceOf(AluOp::Max, out, x);
  ASSERT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()), "");
  TestMemory mem;
  poisonVmem(mem);
  const std::vector<float> in = mem.write(x, mem.fillRandom(x, 7));
  execute(inst, mem.memories());
  for (int64_t p = 0; p < 16; ++p)
    for (int64_t g = 0; g < 12; ++g)
      ASSERT_EQ(mem.read(out, p, g), *std::max_element(&in[p * 96 + g * 8], &in[p * 96 + g * 8 + 8]));
  // The reduction of [16, 1] plus x reshaped to [16, 12, 8] first: 16 x ceil(12 / 8) x ceil(8 / 128) = 32 vregs
  // materialised at xlu_relayout_cycles_per_vreg.
  const TpuCostModel &c = tpu().tpuCost;
  const uint64_t sourceVregs = vregs(16, 96), rowGroups = vregs(16, 12);
  const double streaming = std::max({double(sourceVregs) / c.vpuLoadSlots, double(sourceVregs),
                                     double(rowGroups) / c.vpuStoreSlots});
  EXPECT_EQ(engineCycles(inst, Engine::Vpu, tpu()),
            static_cast<uint64_t>(std::ceil(streaming)) + rowGroups * c.xluReduceCycles + c.vpuLatencyCycles +
                static_cast<uint64_t>(std::ceil(32 * c.xluRelayoutCyclesPerVreg)));
}

// ---- vpu_convert --------------------------------------------------------------------------------------------

/// f32 -> bf16 by the bits: round to nearest even on the upper 16 bits, NaN kept quiet.
float referenceBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    bits = (bits | 0x00400000u) & 0xffff0000u;
  else
    bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

Instruction convertOf(const AccessPattern &dst, const AccessPattern &src) {
  return instructionOf(Opcode::VpuConvert, dst, src);
}

TEST(TpuVpuConvert, RoundsToBf16) {
  VmemLayout layout;
  const AccessPattern x = layout.buffer(DType::F32, 9, 131), out = layout.buffer(DType::BF16, 9, 131);
  const Instruction inst = convertOf(out, x);
  ASSERT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()), "");
  TestMemory mem;
  poisonVmem(mem);
  std::vector<float> in = mem.fillRandom(x, 61, -1000.0f, 1000.0f);
  // Ties go to even (1 + 2^-8 -> 1, 1 + 3 * 2^-8 -> 1 + 2^-6), the largest float overflows to inf.
  const std::vector<float> edges = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, std::numeric_limits<float>::max(),
                                    kInf, -kInf, kNaN, -0.0f, 0x1p-130f};
  std::copy(edges.begin(), edges.end(), in.begin());
  in = mem.write(x, in);
  const std::vector<std::byte> before = mem.vmem;
  execute(inst, mem.memories());
  for (int64_t p = 0; p < 9; ++p)
    for (int64_t i = 0; i < 131; ++i)
      ASSERT_TRUE(sameFloat(referenceBf16(in[p * 131 + i]), mem.read(out, p, i))) << "x = " << in[p * 131 + i];
  EXPECT_EQ(mem.read(out, 0, 0), 1.0f);
  EXPECT_EQ(mem.read(out, 0, 1), 1.0f + 0x1p-6f);
  EXPECT_EQ(mem.read(out, 0, 2), kInf);
  EXPECT_TRUE(onlyWrote(before, mem, out));

  // And back: bf16 -> f32 is exact.
  const AccessPattern back = layout.buffer(DType::F32, 9, 131);
  execute(convertOf(back, out), mem.memories());
  for (int64_t p = 0; p < 9; ++p)
    for (int64_t i = 0; i < 131; ++i)
      ASSERT_TRUE(sameFloat(mem.read(out, p, i), mem.read(back, p, i)));
}

TEST(TpuVpuConvert, VerifyAndCycles) {
  VmemLayout layout;
  const AccessPattern x = layout.buffer(DType::F32, 20, 300), bf16 = layout.buffer(DType::BF16, 20, 300),
                      f32 = layout.buffer(DType::F32, 20, 300), shorter = layout.buffer(DType::BF16, 20, 299);
  expectVerify(convertOf(bf16, x), Engine::Vpu, &tpu(), "");
  expectVerify(convertOf(shorter, x), Engine::Vpu, &tpu(), "out is [20, 299] but x is [20, 300]; they must match");
  AccessPattern fp8 = bf16;
  fp8.dtype = DType::F8E4M3;
  expectVerify(convertOf(fp8, x), Engine::Vpu, &tpu(), "");
  // A conversion is one VALU op per vreg; a same-dtype copy none.
  EXPECT_EQ(engineCycles(convertOf(bf16, x), Engine::Vpu, tpu()), expectedVpuCycles(vregs(20, 300), 1, 1, 0, 1));
  EXPECT_EQ(engineCycles(convertOf(f32, x), Engine::Vpu, tpu()), expectedVpuCycles(vregs(20, 300), 1, 0, 0, 1));
}

TEST(TpuVpuConvert, AnAccessPatternIsARelayout) {
  // Each row's [8, 12] matrix read transposed (Tile::ap {1, 8}, {8, 12}): the row reshaped to [20, 12, 8] and
  // transposed to [20, 8, 12], 20 x 2 x 1 + 20 x 1 x 1 = 60 vregs materialised; written so, the same again.
  VmemLayout layout;
  AccessPattern x = layout.buffer(DType::F32, 20, 96), out = layout.buffer(DType::F32, 20, 96);
  const AccessPattern plainX = x, plainOut = out;
  setFreePattern(x, std::vector<int64_t>{1, 8, 8, 12});
  const uint64_t copy = engineCycles(convertOf(plainOut, plainX), Engine::Vpu, tpu());
  const uint64_t relayout = static_cast<uint64_t>(std::ceil(60 * tpu().tpuCost.xluRelayoutCyclesPerVreg));
  EXPECT_EQ(engineCycles(convertOf(plainOut, x), Engine::Vpu, tpu()), copy + relayout);
  setFreePattern(out, std::vector<int64_t>{1, 8, 8, 12});
  EXPECT_EQ(engineCycles(convertOf(out, plainX), Engine::Vpu, tpu()), copy + relayout);
  // Every other element: [20, 48, 2] materialised (20 x 6 x 1 vregs), indexed; a contiguous pattern is free.
  AccessPattern odd = plainX, half = layout.buffer(DType::F32, 20, 48);
  setFreePattern(odd, std::vector<int64_t>{2, 48});
  EXPECT_EQ(engineCycles(convertOf(half, odd), Engine::Vpu, tpu()),
            engineCycles(convertOf(half, layout.buffer(DType::F32, 20, 48)), Engine::Vpu, tpu()) +
                static_cast<uint64_t>(std::ceil(120 * tpu().tpuCost.xluRelayoutCyclesPerVreg)));
  AccessPattern rows = plainX;
  setFreePattern(rows, std::vector<int64_t>{12, 8, 1, 12});
  EXPECT_EQ(engineCycles(convertOf(plainOut, rows), Engine::Vpu, tpu()), copy);
}

// ---- vpu_fill -----------------------------------------------------------------------------------------------

Instruction fillOf(const AccessPattern &dst, float value) {
  Instruction inst = instructionOf(Opcode::VpuFill, dst);
  inst.value = value;
  return inst;
}

TEST(TpuVpuFill, FillsAndCosts) {
  for (const float value : {0.0f, -0.0f, 3.14159f, -kInf, kNaN}) {
    VmemLayout layout;
    layout.buffer(DType::F32, 8, 128); // another buffer before it, which must stay untouched
    const AccessPattern out = layout.buffer(DType::BF16, 17, 129);
    const Instruction inst = fillOf(out, value);
    ASSERT_EQ(verifyInstruction(inst, Engine::Vpu, &tpu()), "");
    TestMemory mem;
    poisonVmem(mem);
    const std::vector<std::byte> before = mem.vmem;
    execute(inst, mem.memories());
    for (int64_t p = 0; p < 17; ++p)
      for (int64_t i = 0; i < 129; ++i)
        ASSERT_TRUE(sameFloat(referenceBf16(value), mem.read(out, p, i))) << value;
    EXPECT_TRUE(onlyWrote(before, mem, out));
  }
  VmemLayout layout;
  const AccessPattern out = layout.buffer(DType::F32, 20, 300);
  EXPECT_EQ(engineCycles(fillOf(out, 1.0f), Engine::Vpu, tpu()), expectedVpuCycles(vregs(20, 300), 0, 0, 0, 1));
  EXPECT_EQ(engineCycles(fillOf(out, 1.0f), Engine::Vpu, tpu()), 5u + 5);
  AccessPattern inHbm = out;
  inHbm.space = MemSpace::Hbm;
  inHbm.tensor = 0;
  expectVerify(fillOf(inHbm, 1.0f), Engine::Vpu, &tpu(),
               "operand dst is in HBM; the TensorCore's compute units reach only VMEM");
}

// ---- dma ----------------------------------------------------------------------------------------------------

Instruction dmaOf(const AccessPattern &dst, const AccessPattern &src) {
  return instructionOf(Opcode::TpuDma, dst, src);
}

/// Rows [row0, row0 + rows) and columns [col0, col0 + cols) of a [*, width] HBM tensor.
AccessPattern hbmBlock(int32_t tensor, DType dtype, int64_t width, int64_t row0, int64_t col0, uint32_t rows,
                       int64_t cols) {
  AccessPattern ap = AccessPattern::dense(MemSpace::Hbm, dtype, 0, rows, row0 * width + col0, cols);
  ap.tensor = tensor;
  ap.partitionStride = width;
  return ap;
}

TEST(TpuDma, MovesBytesUnchanged) {
  for (const DType dtype : {DType::BF16, DType::I32, DType::F32}) {
    SCOPED_TRACE(std::string(name(dtype)));
    TestMemory mem;
    poisonVmem(mem);
    const int64_t width = 300;
    const int32_t tensor = mem.addTensor(static_cast<size_t>(60 * width * byteSize(dtype)));
    // Every HBM byte distinct; in bf16 that includes NaN payloads and in i32 integers beyond 2^24, which a
    // conversion through FP32 would not keep.
    for (size_t k = 0; k < mem.hbm[tensor].size(); ++k)
      mem.hbm[tensor][k] = std::byte((k * 131 + 7) & 0xff);
    const AccessPattern block = hbmBlock(tensor, dtype, width, 3, 17, 21, 150);
    VmemLayout layout;
    const AccessPattern buffer = layout.buffer(dtype, 21, 150);
    const Instruction load = dmaOf(buffer, block);
    ASSERT_EQ(verifyInstruction(load, Engine::Dma, &tpu()), "");
    const std::vector<std::byte> before = mem.vmem;
    execute(load, mem.memories());
    for (int64_t p = 0; p < 21; ++p)
      for (int64_t i = 0; i < 150; ++i)
        ASSERT_EQ(mem.bytesOf(buffer, p, i), mem.bytesOf(block, p, i)) << p << ", " << i;
    EXPECT_TRUE(onlyWrote(before, mem, buffer));

    // Back to another place in HBM, through a strided (every other column) VMEM read.
    AccessPattern everyOther = buffer;
    everyOther.sizes[0] = 75;
    everyOther.strides[0] = 2;
    const AccessPattern target = hbmBlock(tensor, dtype, width, 30, 0, 21, 75);
    const std::vector<std::byte> hbmBefore = mem.hbm[tensor];
    execute(dmaOf(target, everyOther), mem.memories());
    for (int64_t p = 0; p < 21; ++p)
      for (int64_t i = 0; i < 75; ++i)
        ASSERT_EQ(mem.bytesOf(target, p, i), mem.bytesOf(buffer, p, 2 * i)) << p << ", " << i;
    EXPECT_EQ(std::vector<std::byte>(mem.hbm[tensor].begin(), mem.hbm[tensor].begin() + 30 * width * byteSize(dtype)),
              std::vector<std::byte>(hbmBefore.begin(), hbmBefore.begin() + 30 * width * byteSize(dtype)))
        << "rows before the target changed";
  }
}

TEST(TpuDma, VerifyAndCycles) {
  VmemLayout layout;
  const AccessPattern block = hbmBlock(0, DType::BF16, 512, 0, 0, 16, 256), buffer = layout.buffer(DType::BF16, 16, 256),
                      other = layout.buffer(DType::BF16, 16, 256);
  expectVerify(dmaOf(buffer, block), Engine::Dma, &tpu(), "");
  expectVerify(dmaOf(block, buffer), Engine::Dma, &tpu(), "");
  expectVerify(dmaOf(buffer, block), Engine::Vpu, &tpu(), "cannot run on the vpu engine");
  expectVerify(dmaOf(other, buffer), Engine::Dma, &tpu(),
               "copies between HBM and VMEM, one side each; src_ref is in vmem and dst_ref in vmem");
  expectVerify(dmaOf(block, block), Engine::Dma, &tpu(),
               "copies between HBM and VMEM, one side each; src_ref is in hbm and dst_ref in hbm");
  AccessPattern f32 = buffer;
  f32.dtype = DType::F32;
  expectVerify(dmaOf(f32, block), Engine::Dma, &tpu(),
               "src_ref is bf16 but dst_ref is f32; a DMA moves bytes and keeps the dtype (convert in VMEM with "
               "vpu_convert)");
  AccessPattern shorter = buffer;
  shorter.sizes[0] = 255;
  expectVerify(dmaOf(shorter, block), Engine::Dma, &tpu(), "dst_ref is [16, 255] but src_ref is [16, 256]; they must match");
  AccessPattern noTensor = block;
  noTensor.tensor = -1;
  expectVerify(dmaOf(buffer, noTensor), Engine::Dma, &tpu(), "the HBM side names no tensor (AccessPattern::tensor)");
  AccessPattern sbuf = buffer;
  sbuf.space = MemSpace::Sbuf;
  expectVerify(dmaOf(sbuf, block), Engine::Dma, &tpu(),
               "copies between HBM and VMEM, one side each; src_ref is in hbm and dst_ref in sbuf");
  // The simulator times transfers: no engine cycles; the HBM side is the traffic.
  EXPECT_EQ(definition(Opcode::TpuDma).cycles(dmaOf(buffer, block), Engine::Dma, tpu()), 0u);
  EXPECT_EQ(hbmBytes(dmaOf(buffer, block)), 16u * 256 * 2);
  EXPECT_EQ(flops(dmaOf(buffer, block)), 0u);
}

// ---- grid_step ----------------------------------------------------------------------------------------------

TEST(TpuGridStep, CostsTheTargetsGridStepCycles) {
  Instruction step;
  step.op = Opcode::GridStep;
  expectVerify(step, Engine::ScalarUnit, &tpu(), "");
  expectVerify(step, Engine::Vpu, &tpu(), "cannot run on the vpu engine");
  EXPECT_EQ(engineCycles(step, Engine::ScalarUnit, tpu()), tpu().tpuCost.gridStepCycles);
  Target slower = tpu();
  slower.tpuCost.gridStepCycles = 700;
  EXPECT_EQ(engineCycles(step, Engine::ScalarUnit, slower), 700u);
  const OperandUse use = operandUse(step);
  EXPECT_FALSE(use.src0 || use.src1 || use.src2 || use.readsDst || use.writesDst || use.writesDst2);
  TestMemory mem;
  poisonVmem(mem);
  const std::vector<std::byte> before = mem.vmem;
  execute(step, mem.memories());
  EXPECT_EQ(before, mem.vmem);

  VmemLayout layout;
  step.dst = layout.buffer(DType::F32, 8, 128);
  expectVerify(step, Engine::ScalarUnit, &tpu(), "grid_step takes no operands");
}

// ---- families -----------------------------------------------------------------------------------------------

TEST(TpuFamily, EachFamilyRefusesTheOthersInstructions) {
  const std::vector<Opcode> tpuOps = {Opcode::MxuMatmul, Opcode::VpuBinary, Opcode::VpuUnary, Opcode::VpuReduce,
                                      Opcode::VpuConvert, Opcode::VpuFill,   Opcode::TpuDma,   Opcode::GridStep};
  for (const Opcode op : tpuOps) {
    EXPECT_EQ(definition(op).family, "tpu");
    Instruction inst;
    inst.op = op;
    expectVerify(inst, std::nullopt, &trn2(),
                 "is an instruction of the tpu family; target trn2 is of the neuroncore family (use a tpu target)");
  }
  for (const InstructionDef &def : instructionSet()) {
    if (def.family != "neuroncore")
      continue;
    Instruction inst;
    inst.op = def.op;
    expectVerify(inst, std::nullopt, &tpu(),
                 "is an instruction of the neuroncore family; target test-v5e is of the tpu family (use a neuroncore "
                 "target)");
  }
  // A NeuronCore instruction given VMEM operands is refused without a target too.
  Instruction copy;
  copy.op = Opcode::TensorCopy;
  copy.src0 = AccessPattern::dense(MemSpace::Vmem, DType::F32, 0, 8, 0, 128);
  copy.dst = AccessPattern::dense(MemSpace::Sbuf, DType::F32, 0, 8, 0, 128);
  expectVerify(copy, Engine::Vector, nullptr, "operand src0 is in VMEM; compute engines reach only SBUF and PSUM");
}

TEST(TpuFamily, PrintRunsOnBoth) {
  Instruction print;
  print.op = Opcode::Print;
  print.src0 = AccessPattern::dense(MemSpace::Vmem, DType::F32, 0, 8, 0, 128);
  expectVerify(print, Engine::Vpu, &tpu(), "");
  expectVerify(print, Engine::Vpu, nullptr, "");
  expectVerify(print, Engine::Vector, &trn2(), "operand src0 is in VMEM; compute engines reach only SBUF and PSUM");
  print.src0 = AccessPattern::dense(MemSpace::Sbuf, DType::F32, 0, 8, 0, 128);
  expectVerify(print, Engine::Vector, &trn2(), "");
  expectVerify(print, Engine::Vpu, nullptr, "operand src0 is in SBUF; the TensorCore's compute units reach only VMEM");
  EXPECT_EQ(engineCycles(print, Engine::Vpu, tpu()), 0u);
}

TEST(TpuFamily, EveryBuiltInTpuTargetDrivesTheFormulas) {
  // The target files' coefficients reach the formulas: each built-in TPU target costs a matmul and a VPU op as
  // recomputed from its own figures, and never 0 cycles.
  unsigned found = 0;
  for (const Target &t : Target::all()) {
    if (t.family != "tpu" || t.file.parent_path() != Target::builtinDirectory())
      continue;
    SCOPED_TRACE(t.name);
    ++found;
    VmemLayout layout;
    const Instruction matmul = matmulOf(layout.buffer(DType::F32, 256, 512), layout.buffer(DType::BF16, 384, 256),
                                        layout.buffer(DType::BF16, 384, 512), true);
    EXPECT_EQ(verifyInstruction(matmul, Engine::Mxu, &t), "");
    EXPECT_EQ(engineCycles(matmul, Engine::Mxu, t), expectedMatmulCycles(t, 384, 256, 512, false));
    EXPECT_GT(engineCycles(matmul, Engine::Mxu, t), 0u);
    const AccessPattern x = layout.buffer(DType::F32, 64, 1024), out = layout.buffer(DType::BF16, 64, 1024);
    const Instruction exp = unaryOf(ActFunc::Exp, 1.0f, out, x);
    EXPECT_EQ(verifyInstruction(exp, Engine::Vpu, &t), "");
    EXPECT_EQ(engineCycles(exp, Engine::Vpu, t), expectedVpuCycles(vregs(64, 1024, t), 1, 0, 1, 1, t));
    EXPECT_GT(engineCycles(exp, Engine::Vpu, t), t.tpuCost.vpuLatencyCycles);
    Instruction step;
    step.op = Opcode::GridStep;
    EXPECT_EQ(verifyInstruction(step, Engine::ScalarUnit, &t), "");
    EXPECT_GT(engineCycles(step, Engine::ScalarUnit, t), 0u);
  }
  EXPECT_GE(found, 1u) << "no built-in TPU target";
}

TEST(TpuFamily, Generations) {
  Target ironwood = tpu();
  ironwood.generation = "7x"; // TPU7x has no "v"
  EXPECT_TRUE(generationAtLeast(ironwood, "v4"));
  EXPECT_TRUE(generationAtLeast(tpu(), "v4"));
  Target older = tpu();
  older.name = "old-tpu";
  older.generation = "v3";
  Instruction step;
  step.op = Opcode::GridStep;
  expectVerify(step, Engine::ScalarUnit, &older, "exists from TPU v4 on; target old-tpu is TPU v3");
}

} // namespace
} // namespace tessera::isa
