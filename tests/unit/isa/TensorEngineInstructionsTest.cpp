/// \file
/// The tensor engine's instructions beyond a plain matmul: nc_transpose on the tensor and the vector engine,
/// nc_matmul's FP8 double row mode and row tiling, its LoadStationary, and its PSUM banks. Numerics against plain
/// C++ references that address every element through the access-pattern formula (TensorTestSupport.h),
/// verify's rules with their messages, and costs recomputed from each target's coefficients.

#include "TensorTestSupport.h"

#include <map>

#include "tessera/isa/Cost.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/Modes.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

namespace tessera::isa {
namespace {

using tensortest::pattern;
using tensortest::sameValue;
using tensortest::TestMemory;
using tensortest::tile;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

const Target &trn1() {
  static const Target t = Target::find("trn1");
  return t;
}
const Target &trn2() {
  static const Target t = Target::find("trn2");
  return t;
}

/// "" must be "", else the message must contain `part`.
::testing::AssertionResult mentions(const std::string &message, const std::string &part) {
  if (part.empty() ? message.empty() : message.find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message \"" << message << "\" does not contain \"" << part << "\"";
}

// ---- nc_transpose -------------------------------------------------------------------------------------------

Instruction transposeOf(const AccessPattern &data, const AccessPattern &dst, TransposeForm form) {
  Instruction inst;
  inst.op = Opcode::Transpose;
  inst.mode = static_cast<uint8_t>(form);
  inst.src0 = data;
  inst.dst = dst;
  return inst;
}

Engine engineOf(TransposeForm form) { return form == TransposeForm::Tensor ? Engine::Tensor : Engine::Vector; }

/// Fills data with `input` (or random values), runs the transpose, and checks dst[f, p] = data[p, f] for every
/// element, encoded into dst's dtype.
void checkTranspose(const Instruction &inst, const Target &target, std::vector<float> input = {}) {
  ASSERT_EQ(verifyInstruction(inst, engineOf(TransposeForm(inst.mode)), &target), "");
  TestMemory mem(target);
  if (input.empty())
    input = mem.fillRandom(inst.src0, 7);
  else
    mem.fill(inst.src0, input);
  execute(inst, mem.memories());
  const int64_t p = inst.src0.partitions, f = inst.src0.freeElements();
  for (int64_t row = 0; row < p; ++row)
    for (int64_t col = 0; col < f; ++col) {
      const float expected = roundTo(inst.dst.dtype, input[row * f + col]);
      const float actual = mem.read(inst.dst, col, row);
      ASSERT_TRUE(sameValue(actual, expected)) << "data[" << row << ", " << col << "] = " << input[row * f + col]
                                               << " became " << actual << " at dst[" << col << ", " << row << "]";
    }
}

TEST(Transpose, TensorEngineMovesEveryElement) {
  struct Shape {
    uint32_t p;
    int64_t f;
  };
  for (const Target *target : {&trn1(), &trn2()})
    for (Shape s : {Shape{128, 128}, Shape{100, 37}, Shape{1, 128}, Shape{128, 1}, Shape{64, 96}})
      for (auto [in, out] : {std::pair{DType::BF16, DType::BF16}, {DType::F32, DType::F32}, {DType::BF16, DType::F32},
                             {DType::F8E4M3, DType::F8E4M3}}) {
        SCOPED_TRACE(::testing::Message() << target->name << " [" << s.p << ", " << s.f << "] " << name(in) << " -> "
                                          << name(out));
        checkTranspose(transposeOf(tile(MemSpace::Sbuf, in, 0, s.p, 64, s.f),
                                   tile(MemSpace::Psum, out, 0, uint32_t(s.f), 0, s.p), TransposeForm::Tensor),
                       *target);
      }
}

TEST(Transpose, FlattensStridedFreeDimensions) {
  // data [16, 4 x 8] walked with a row stride of 16 elements: the flattened free index is 8 * i0 + i1.
  const AccessPattern data = pattern(MemSpace::Sbuf, DType::F32, 16, 16, 128, {4, 8}, {16, 1});
  checkTranspose(transposeOf(data, tile(MemSpace::Psum, DType::F32, 32, 32, 1024, 16), TransposeForm::Tensor),
                 trn2());
  checkTranspose(transposeOf(data, tile(MemSpace::Sbuf, DType::F32, 0, 32, 4096, 16), TransposeForm::Vector), trn2());
}

TEST(Transpose, KeepsNaNInfAndSignedZeroExactly) {
  // NKI: bit-accurate from NeuronCore-v3 (v2's matmul-style NaN/Inf behaviour is not modelled).
  std::vector<float> input = {kNaN, kInf, -kInf, -0.0f, 0.0f, 1e-40f, -3.5f, 65504.0f};
  for (TransposeForm form : {TransposeForm::Tensor, TransposeForm::Vector}) {
    const MemSpace out = form == TransposeForm::Tensor ? MemSpace::Psum : MemSpace::Sbuf;
    checkTranspose(transposeOf(tile(MemSpace::Sbuf, DType::F32, 0, 2, 0, 4), tile(out, DType::F32, 0, 4, 2048, 2),
                               form),
                   trn2(), input);
  }
}

TEST(Transpose, VectorEngineBlockUpTo32x32) {
  for (const Target *target : {&trn1(), &trn2()}) {
    const uint32_t block = target->vectorTransposeBlock;
    ASSERT_EQ(block, 32u);
    // From PSUM to SBUF, the full block.
    checkTranspose(transposeOf(tile(MemSpace::Psum, DType::F32, 0, block, 0, block),
                               tile(MemSpace::Sbuf, DType::F32, 32, block, 0, block), TransposeForm::Vector),
                   *target);
    // Smaller and non-square, SBUF to PSUM, BF16 and FP8.
    checkTranspose(transposeOf(tile(MemSpace::Sbuf, DType::BF16, 64, 7, 0, 19),
                               tile(MemSpace::Psum, DType::BF16, 0, 19, 512, 7), TransposeForm::Vector),
                   *target);
    checkTranspose(transposeOf(tile(MemSpace::Sbuf, DType::F8E5M2, 0, 1, 0, 1),
                               tile(MemSpace::Sbuf, DType::F8E5M2, 5, 1, 100, 1), TransposeForm::Vector),
                   *target);
  }
}

TEST(Transpose, IntegerDtypesStayExact) {
  // Integers up to 2^24 pass through the FP32 datapath unchanged.
  std::vector<float> ints;
  for (int i = 0; i < 12; ++i)
    ints.push_back(float((1 << 24) - 977 * i));
  checkTranspose(transposeOf(tile(MemSpace::Sbuf, DType::I32, 0, 3, 0, 4), tile(MemSpace::Sbuf, DType::I32, 0, 4, 64, 3),
                             TransposeForm::Vector),
                 trn2(), ints);
  std::vector<float> bytes = {0, 1, 127, 128, 254, 255};
  checkTranspose(transposeOf(tile(MemSpace::Sbuf, DType::U8, 0, 2, 0, 3), tile(MemSpace::Psum, DType::U8, 0, 3, 0, 2),
                             TransposeForm::Tensor),
                 trn1(), bytes);
}

TEST(Transpose, VerifyRules) {
  const AccessPattern data = tile(MemSpace::Sbuf, DType::BF16, 0, 64, 0, 32);
  const AccessPattern psumOut = tile(MemSpace::Psum, DType::BF16, 0, 32, 0, 64);
  const Instruction good = transposeOf(data, psumOut, TransposeForm::Tensor);
  EXPECT_TRUE(mentions(verifyInstruction(good, Engine::Tensor, &trn2()), ""));

  struct Case {
    std::string label;
    Instruction inst;
    Engine engine;
    const Target *target;
    std::string expected;
  };
  std::vector<Case> cases;
  auto with = [&](std::string label, auto change, Engine engine, const Target *target, std::string expected) {
    Instruction inst = good;
    change(inst);
    cases.push_back({std::move(label), inst, engine, target, std::move(expected)});
  };
  with("not transposed", [](Instruction &i) { i.dst = tile(MemSpace::Psum, DType::BF16, 0, 64, 0, 32); },
       Engine::Tensor, &trn2(), "dst must be data's transpose [32, 64], not [64, 32]");
  with("tensor dst in SBUF", [](Instruction &i) { i.dst.space = MemSpace::Sbuf; }, Engine::Tensor, &trn2(),
       "on the tensor engine data must be in SBUF and dst in PSUM");
  with("tensor data in PSUM", [](Instruction &i) { i.src0.space = MemSpace::Psum; }, Engine::Tensor, &trn2(),
       "on the tensor engine data must be in SBUF");
  with("tensor dst fp8", [](Instruction &i) { i.dst.dtype = DType::F8E4M3; }, Engine::Tensor, &trn2(),
       "dst is f8e4m3 but data is bf16: on the tensor engine dst must be bf16 or f32");
  with("vector changes dtype",
       [](Instruction &i) {
         i.mode = 1;
         i.src0 = tile(MemSpace::Sbuf, DType::BF16, 0, 8, 0, 8);
         i.dst = tile(MemSpace::Sbuf, DType::F32, 0, 8, 0, 8);
       },
       Engine::Vector, &trn2(), "the vector engine's transpose keeps the dtype");
  with("vector too many partitions",
       [](Instruction &i) {
         i.mode = 1;
         i.src0 = tile(MemSpace::Sbuf, DType::BF16, 0, 33, 0, 8);
         i.dst = tile(MemSpace::Sbuf, DType::BF16, 0, 8, 0, 33);
       },
       Engine::Vector, &trn1(), "data [33, 8] exceeds the vector engine's [32, 32] on trn1");
  with("vector too wide",
       [](Instruction &i) {
         i.mode = 1;
         i.src0 = tile(MemSpace::Sbuf, DType::BF16, 0, 4, 0, 33);
         i.dst = tile(MemSpace::Sbuf, DType::BF16, 0, 33, 0, 4);
       },
       Engine::Vector, &trn2(), "data [4, 33] exceeds the vector engine's [32, 32] on trn2");
  with("tensor too wide",
       [](Instruction &i) {
         i.src0 = tile(MemSpace::Sbuf, DType::BF16, 0, 4, 0, 129);
         i.dst = tile(MemSpace::Psum, DType::BF16, 0, 129, 0, 4);
       },
       Engine::Tensor, &trn2(), "data [4, 129] exceeds the tensor engine's [128, 128] on trn2");
  with("crosses a PSUM bank", [](Instruction &i) { i.dst.offset = 2048 - 64; }, Engine::Tensor, &trn2(),
       "dst bytes [1984, 2112) of each partition cross the PSUM bank boundary at byte 2048");
  with("unknown form", [](Instruction &i) { i.mode = 2; }, Engine::Tensor, &trn2(),
       "mode 2 is not an nc_transpose form");
  with("tensor form on the vector engine", [](Instruction &) {}, Engine::Vector, &trn2(),
       "mode 0 is the tensor engine's form, but the instruction is on the vector engine");
  with("vector form on the tensor engine",
       [](Instruction &i) {
         i.mode = 1;
         i.src0 = tile(MemSpace::Sbuf, DType::BF16, 0, 8, 0, 8);
         i.dst = tile(MemSpace::Psum, DType::BF16, 0, 8, 0, 8);
       },
       Engine::Tensor, &trn2(), "mode 1 is the vector engine's form, but the instruction is on the tensor engine");
  with("on GpSimd", [](Instruction &) {}, Engine::GpSimd, &trn2(), "cannot run on the gpsimd engine");
  for (const Case &c : cases)
    EXPECT_TRUE(mentions(verifyInstruction(c.inst, c.engine, c.target), c.expected)) << c.label;
  // Without a target only the target-free rules apply.
  Instruction wide = good;
  wide.src0 = tile(MemSpace::Sbuf, DType::BF16, 0, 4, 0, 129);
  wide.dst = tile(MemSpace::Psum, DType::BF16, 0, 129, 0, 4);
  EXPECT_EQ(verifyInstruction(wide, Engine::Tensor, nullptr), "");
}

class OnEachTarget : public ::testing::TestWithParam<std::string> {
protected:
  const Target &target() const {
    static const std::map<std::string, Target> targets = {
        {"trn1", Target::find("trn1")}, {"trn2", Target::find("trn2")}, {"trn3", Target::find("trn3")}};
    return targets.at(GetParam());
  }
};

TEST_P(OnEachTarget, TransposeCost) {
  const Target &t = target();
  struct Shape {
    uint32_t p;
    int64_t f;
  };
  for (Shape s : {Shape{128, 128}, Shape{32, 128}, Shape{32, 16}, Shape{16, 32}, Shape{1, 1}, Shape{100, 37}}) {
    const Instruction onTensor = transposeOf(tile(MemSpace::Sbuf, DType::BF16, 0, s.p, 0, s.f),
                                             tile(MemSpace::Psum, DType::BF16, 0, uint32_t(s.f), 0, s.p),
                                             TransposeForm::Tensor);
    const uint64_t expected = std::max<uint64_t>(s.p, std::min<uint64_t>(t.cost.transposeMinCycles, s.f));
    EXPECT_EQ(engineCycles(onTensor, Engine::Tensor, t), expected) << s.p << "x" << s.f;
  }
  EXPECT_EQ(t.cost.transposeMinCycles, 64u);
  for (int64_t f : {1, 17, 32}) {
    const Instruction onVector = transposeOf(tile(MemSpace::Sbuf, DType::F32, 0, 32, 0, f),
                                             tile(MemSpace::Sbuf, DType::F32, 0, uint32_t(f), 0, 32),
                                             TransposeForm::Vector);
    EXPECT_EQ(engineCycles(onVector, Engine::Vector, t),
              t.cost.accessOverheadCycles + std::max<uint64_t>(t.cost.minInitiationCycles, f));
    EXPECT_EQ(flops(onVector), 0u);
  }
}

// ---- nc_matmul: FP8 double row ------------------------------------------------------------------------------

/// dst[M, N] (+)= stationary[K, 2, M] . moving[K, 2, N] over the 2K rows (k, j), in FP8 double row mode.
Instruction doubleRow(uint32_t k, int64_t m, int64_t n, DType stationary = DType::F8E4M3,
                      DType moving = DType::F8E5M2) {
  Instruction inst;
  inst.op = Opcode::Matmul;
  inst.mode = MatmulMode{.doubleRow = true}.encode();
  inst.src0 = pattern(MemSpace::Sbuf, stationary, 0, k, 0, {2, m}, {m, 1});
  inst.src1 = pattern(MemSpace::Sbuf, moving, 0, k, 4096, {2, n}, {n, 1});
  inst.dst = tile(MemSpace::Psum, DType::F32, 0, uint32_t(m), 0, n);
  return inst;
}

/// The reference: out[m, n] = start + sum over k, then j, of s[k, j, m] * v[k, j, n], in FP32.
std::vector<float> doubleRowReference(const std::vector<float> &s, const std::vector<float> &v, int64_t k, int64_t m,
                                      int64_t n, const std::vector<float> &start) {
  std::vector<float> out(m * n);
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < n; ++col) {
      float sum = start.empty() ? 0.0f : start[row * n + col];
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < 2; ++j)
          sum += s[kk * 2 * m + j * m + row] * v[kk * 2 * n + j * n + col];
      out[row * n + col] = sum;
    }
  return out;
}

void expectPsum(TestMemory &mem, const AccessPattern &dst, const std::vector<float> &expected) {
  for (int64_t p = 0; p < dst.partitions; ++p)
    for (int64_t i = 0; i < dst.freeElements(); ++i)
      ASSERT_TRUE(sameValue(mem.read(dst, p, i), expected[p * dst.freeElements() + i]))
          << "dst[" << p << ", " << i << "] = " << mem.read(dst, p, i) << ", expected "
          << expected[p * dst.freeElements() + i];
}

TEST(MatmulDoubleRow, ContractsOverBothRowsOfEachPartition) {
  for (auto [k, m, n] : {std::tuple{128u, int64_t{128}, int64_t{512}}, {3u, 5, 7}, {64u, 1, 300}}) {
    SCOPED_TRACE(::testing::Message() << "K = " << k << ", M = " << m << ", N = " << n);
    Instruction inst = doubleRow(k, m, n);
    ASSERT_EQ(verifyInstruction(inst, Engine::Tensor, &trn2()), "");
    TestMemory mem(trn2());
    const std::vector<float> s = mem.fillRandom(inst.src0, 1), v = mem.fillRandom(inst.src1, 2);
    execute(inst, mem.memories());
    const std::vector<float> first = doubleRowReference(s, v, k, m, n, {});
    expectPsum(mem, inst.dst, first);
    // The next matmul of the accumulation group adds.
    inst.accumulate = true;
    const std::vector<float> s2 = mem.fillRandom(inst.src0, 3), v2 = mem.fillRandom(inst.src1, 4);
    execute(inst, mem.memories());
    expectPsum(mem, inst.dst, doubleRowReference(s2, v2, k, m, n, first));
  }
}

TEST(MatmulDoubleRow, NaNAndInfinityPropagate) {
  const uint32_t k = 4;
  const int64_t m = 6, n = 8;
  Instruction inst = doubleRow(k, m, n);
  TestMemory mem(trn2());
  std::vector<float> s = mem.fillRandom(inst.src0, 5), v = mem.fillRandom(inst.src1, 6);
  s[3 * 2 * m + 1 * m + 5] = kNaN; // stationary (k=3, j=1, m=5): dst row 5 is NaN
  v[2 * 2 * n + 0 * n + 7] = kInf; // moving (k=2, j=0, n=7): dst column 7 is +-Inf (or NaN with a zero weight)
  s[2 * 2 * m + 0 * m + 0] = 0.0f; // ... and NaN in row 0, where the weight is zero
  mem.fill(inst.src0, s);
  mem.fill(inst.src1, v);
  execute(inst, mem.memories());
  expectPsum(mem, inst.dst, doubleRowReference(s, v, k, m, n, {}));
  for (int64_t col = 0; col < n; ++col)
    EXPECT_TRUE(std::isnan(mem.read(inst.dst, 5, col)));
  EXPECT_TRUE(std::isnan(mem.read(inst.dst, 0, 7)));
  EXPECT_TRUE(std::isinf(mem.read(inst.dst, 1, 7)) || std::isnan(mem.read(inst.dst, 1, 7)));
  EXPECT_TRUE(std::isfinite(mem.read(inst.dst, 1, 6)));
}

TEST(MatmulDoubleRow, VerifyRules) {
  EXPECT_TRUE(mentions(verifyInstruction(doubleRow(128, 128, 512), Engine::Tensor, &trn2()), ""));
  EXPECT_TRUE(mentions(verifyInstruction(doubleRow(128, 128, 512), Engine::Tensor, &trn1()),
                       "FP8 double row mode does not exist on trn1 (NeuronCore-v2)"));
  EXPECT_TRUE(mentions(verifyInstruction(doubleRow(16, 8, 8, DType::BF16, DType::F8E4M3), Engine::Tensor, &trn2()),
                       "FP8 double row mode needs f8e4m3 or f8e5m2 stationary and moving, not bf16 and f8e4m3"));
  Instruction odd = doubleRow(16, 8, 8);
  odd.src1 = tile(MemSpace::Sbuf, DType::F8E5M2, 0, 16, 4096, 15);
  EXPECT_TRUE(mentions(verifyInstruction(odd, Engine::Tensor, &trn2()), "needs moving as [K, 2, X]"));
  Instruction four = doubleRow(16, 8, 8);
  four.src0 = pattern(MemSpace::Sbuf, DType::F8E4M3, 0, 16, 0, {4, 4}, {4, 1});
  EXPECT_TRUE(mentions(verifyInstruction(four, Engine::Tensor, &trn2()), "with first free size 4"));
  // A dense [K, 2M] operand is the same bytes as [K, 2, M]: accepted.
  Instruction flat = doubleRow(16, 8, 8);
  flat.src0 = tile(MemSpace::Sbuf, DType::F8E4M3, 0, 16, 0, 16);
  EXPECT_TRUE(mentions(verifyInstruction(flat, Engine::Tensor, &trn2()), ""));
  Instruction wrongDst = doubleRow(16, 8, 8);
  wrongDst.dst = tile(MemSpace::Psum, DType::F32, 0, 16, 0, 16);
  EXPECT_TRUE(mentions(verifyInstruction(wrongDst, Engine::Tensor, &trn2()),
                       "dst must be [stationary free, moving free] = [8, 8], not [16, 16]"));
  Instruction wide = doubleRow(16, 8, 513);
  EXPECT_TRUE(mentions(verifyInstruction(wide, Engine::Tensor, &trn2()), "moving free size N = 513 exceeds 512"));
}

TEST_P(OnEachTarget, MatmulDoubleRowCostIsTheSpeedupOnTheMovingElements) {
  const Target &t = target();
  const unsigned speedup = t.tensor.fp8DoubleRowSpeedup;
  if (speedup == 0) {
    EXPECT_EQ(t.name, "trn1"); // v2 has no double row mode
    return;
  }
  for (int64_t n : {512, 100, 40, 1}) {
    const uint64_t moving = 2 * uint64_t(n);
    const uint64_t expected = std::max<uint64_t>((moving + speedup - 1) / speedup, t.cost.matmulMinCycles);
    EXPECT_EQ(engineCycles(doubleRow(128, 128, n), Engine::Tensor, t), expected) << n;
  }
  // 2K x M x N in the cycles of a K x M x N FP8 matmul: twice the BF16 peak (trn2: 158 vs 79 TFLOPS).
  const Instruction full = doubleRow(128, 128, 512);
  EXPECT_EQ(flops(full), 2u * 256 * 128 * 512);
  const double seconds = double(engineCycles(full, Engine::Tensor, t)) / (t.tensor.clockGhz * 1e9);
  EXPECT_NEAR(double(flops(full)) / seconds / 1e12, speedup * t.tensor.peakBf16Tflops,
              0.02 * speedup * t.tensor.peakBf16Tflops);
}

// ---- nc_matmul: row tiling ----------------------------------------------------------------------------------

Instruction matmulOf(uint32_t k, int64_t m, int64_t n, uint8_t mode = 0, DType dtype = DType::BF16) {
  Instruction inst;
  inst.op = Opcode::Matmul;
  inst.mode = mode;
  inst.src0 = tile(MemSpace::Sbuf, dtype, 0, k, 0, m);
  inst.src1 = tile(MemSpace::Sbuf, dtype, 0, k, 2048, n);
  inst.dst = tile(MemSpace::Psum, DType::F32, 0, uint32_t(m), 0, n);
  return inst;
}

uint8_t rowTiled(uint8_t tilesLog2, uint8_t tileIndex) {
  return MatmulMode{.rowTilesLog2 = tilesLog2, .rowTile = tileIndex}.encode();
}

TEST(Matmul, IntegerInputsAreRefusedNamingTheRule) {
  for (DType dtype : {DType::BF16, DType::F16, DType::F32, DType::F8E4M3, DType::F8E5M2})
    EXPECT_TRUE(mentions(verifyInstruction(matmulOf(128, 128, 512, 0, dtype), Engine::Tensor, &trn2()), ""))
        << name(dtype);
  for (DType dtype : {DType::U8, DType::I32, DType::U32})
    EXPECT_TRUE(mentions(verifyInstruction(matmulOf(128, 128, 512, 0, dtype), Engine::Tensor, &trn2()),
                         fmt::format("nc_matmul takes float8_e4m3, float8_e5m2, bfloat16, float16 or float32 inputs, "
                                     "not {} stationary: convert it to bf16 first (tensor_copy) [rule "
                                     "matmul.input-dtypes",
                                     name(dtype))))
        << name(dtype);
}

TEST(MatmulRowTiling, ModeByteRoundTrips) {
  for (uint8_t log2 = 0; log2 < 3; ++log2)
    for (uint8_t index = 0; index < 4; ++index)
      for (bool doubleRow : {false, true}) {
        const MatmulMode mode{.rowTilesLog2 = log2, .rowTile = index, .doubleRow = doubleRow};
        const MatmulMode back = MatmulMode::decode(mode.encode());
        EXPECT_EQ(back.rowTilesLog2, log2);
        EXPECT_EQ(back.rowTile, index);
        EXPECT_EQ(back.doubleRow, doubleRow);
        EXPECT_FALSE(MatmulMode::hasUnknownBits(mode.encode()));
      }
  EXPECT_EQ(MatmulMode::decode(0).rowTiles(), 1u);
  EXPECT_TRUE(MatmulMode::hasUnknownBits(0x20));
}

TEST(MatmulRowTiling, VerifyRules) {
  EXPECT_EQ(trn1().tensor.maxRowTiles, 2u);
  EXPECT_EQ(trn2().tensor.maxRowTiles, 4u);
  EXPECT_TRUE(mentions(verifyInstruction(matmulOf(64, 128, 512, rowTiled(1, 1)), Engine::Tensor, &trn1()), ""));
  EXPECT_TRUE(mentions(verifyInstruction(matmulOf(65, 128, 512, rowTiled(1, 0)), Engine::Tensor, &trn1()),
                       "contraction K = 65 exceeds the 64-row tile of 2x64 row tiling on trn1"));
  EXPECT_TRUE(mentions(verifyInstruction(matmulOf(32, 128, 512, rowTiled(2, 3)), Engine::Tensor, &trn1()),
                       "row tiling into 4 tiles does not exist on trn1 (NeuronCore-v2 splits the PE rows into at "
                       "most 2)"));
  EXPECT_TRUE(mentions(verifyInstruction(matmulOf(32, 128, 512, rowTiled(2, 3)), Engine::Tensor, &trn2()), ""));
  EXPECT_TRUE(mentions(verifyInstruction(matmulOf(33, 128, 512, rowTiled(2, 0)), Engine::Tensor, &trn2()),
                       "contraction K = 33 exceeds the 32-row tile of 4x32 row tiling on trn2"));
  EXPECT_TRUE(mentions(verifyInstruction(matmulOf(32, 128, 512, rowTiled(1, 2)), Engine::Tensor, &trn2()),
                       "row tile 2 does not exist when the PE rows split into 2 tiles"));
  EXPECT_TRUE(mentions(verifyInstruction(matmulOf(32, 128, 512, 0x20), Engine::Tensor, &trn2()),
                       "mode 32 is not an nc_matmul mode"));
  EXPECT_TRUE(mentions(verifyInstruction(matmulOf(32, 128, 512, 0x3), Engine::Tensor, &trn2()),
                       "mode 3 is not an nc_matmul mode"));
  // Double row and row tiling combine (NKI forbids only column tiling with double row).
  Instruction both = doubleRow(32, 64, 64);
  both.mode = MatmulMode{.rowTilesLog2 = 2, .rowTile = 1, .doubleRow = true}.encode();
  EXPECT_TRUE(mentions(verifyInstruction(both, Engine::Tensor, &trn2()), ""));
}

TEST(MatmulRowTiling, ComputesTheSameProduct) {
  const Instruction untiled = matmulOf(32, 20, 50);
  TestMemory a(trn2()), b(trn2());
  a.fillRandom(untiled.src0, 11);
  a.fillRandom(untiled.src1, 12);
  b.sbuf = a.sbuf;
  execute(untiled, a.memories());
  Instruction tiled = untiled;
  tiled.mode = rowTiled(2, 2);
  execute(tiled, b.memories());
  EXPECT_EQ(a.psum, b.psum);
}

TEST_P(OnEachTarget, RowTilingKeepsOneMatmulsInterval) {
  // The overlap of matmuls in different tiles is the simulator's (TensorEngineTiming); one matmul alone costs the
  // same tiled or not.
  const Target &t = target();
  for (int64_t n : {512, 64, 8})
    EXPECT_EQ(engineCycles(matmulOf(64, 128, n, rowTiled(1, 1)), Engine::Tensor, t),
              engineCycles(matmulOf(64, 128, n), Engine::Tensor, t));
}

// ---- LoadStationary -----------------------------------------------------------------------------------------

TEST_P(OnEachTarget, LoadStationaryIsTheStationaryColumnsAtTheLoadFactor) {
  const Target &t = target();
  const uint64_t factor = t.cost.loadStationaryFactor;
  EXPECT_EQ(factor, 4u);
  auto ceilDiv = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
  EXPECT_EQ(loadStationaryCycles(matmulOf(128, 128, 512), t), ceilDiv(128, factor));
  EXPECT_EQ(loadStationaryCycles(matmulOf(128, 5, 512), t), ceilDiv(5, factor));
  EXPECT_EQ(loadStationaryCycles(matmulOf(128, 128, 512, 0, DType::F32), t),
            ceilDiv(128, factor) * t.cost.matmulFp32Factor);
  EXPECT_EQ(loadStationaryCycles(doubleRow(128, 64, 512), t), ceilDiv(64, factor));
  const Instruction onTensor = transposeOf(tile(MemSpace::Sbuf, DType::BF16, 0, 16, 0, 100),
                                           tile(MemSpace::Psum, DType::BF16, 0, 100, 0, 16), TransposeForm::Tensor);
  EXPECT_EQ(loadStationaryCycles(onTensor, t), ceilDiv(100, factor));
  Instruction onVector = onTensor;
  onVector.mode = static_cast<uint8_t>(TransposeForm::Vector);
  EXPECT_EQ(loadStationaryCycles(onVector, t), 0u);
  Instruction copy;
  copy.op = Opcode::TensorCopy;
  copy.src0 = copy.dst = tile(MemSpace::Sbuf, DType::F32, 0, 128, 0, 64);
  EXPECT_EQ(loadStationaryCycles(copy, t), 0u);
  // Never more than the shortest multiply it hides behind (docs/targets.md: up to 4x faster than
  // MultiplyMoving).
  EXPECT_LE(loadStationaryCycles(matmulOf(128, t.tensor.maxStationaryFree, 1), t), t.cost.matmulMinCycles);
}

// ---- PSUM banks ---------------------------------------------------------------------------------------------

TEST_P(OnEachTarget, MatmulIntoEveryPsumBankAndNotAcrossTwo) {
  const Target &t = target();
  const int64_t bank = int64_t(t.psumBankBytes()), n = t.tensor.maxMovingFree;
  ASSERT_EQ(t.psumBanks, 8u);
  for (int64_t b = 0; b < t.psumBanks; ++b) {
    Instruction inst = matmulOf(64, 32, n);
    inst.dst.offset = b * bank;
    EXPECT_EQ(verifyInstruction(inst, Engine::Tensor, &t), "") << "bank " << b;
    inst.dst.offset = b * bank + 4; // one FP32 element into the bank: the last crosses into the next
    EXPECT_TRUE(mentions(verifyInstruction(inst, Engine::Tensor, &t),
                         "cross the PSUM bank boundary at byte " + std::to_string((b + 1) * bank)))
        << "bank " << b;
  }
  Instruction tail = matmulOf(64, 32, 2);
  tail.dst.offset = bank - 8; // the last two elements of bank 0
  EXPECT_EQ(verifyInstruction(tail, Engine::Tensor, &t), "");
  tail.dst.offset = bank - 4;
  EXPECT_TRUE(mentions(verifyInstruction(tail, Engine::Tensor, &t),
                       "dst bytes [" + std::to_string(bank - 4) + ", " + std::to_string(bank + 4) +
                           ") of each partition cross the PSUM bank boundary at byte " + std::to_string(bank)));
}

TEST(Matmul, AccumulationGroupsInAllEightBanksStayApart) {
  // One group per bank: each overwrites, then accumulates, in its own 2 KiB; the other banks keep their values.
  const Target &t = trn2();
  const int64_t bank = int64_t(t.psumBankBytes()), n = t.tensor.maxMovingFree;
  const uint32_t k = 64;
  const int64_t m = 32;
  TestMemory mem(t);
  std::vector<std::vector<float>> expected(t.psumBanks);
  for (unsigned b = 0; b < t.psumBanks; ++b)
    for (int step = 0; step < 2; ++step) {
      Instruction inst = matmulOf(k, m, n);
      inst.dst.offset = int64_t(b) * bank;
      inst.accumulate = step > 0;
      const std::vector<float> s = mem.fillRandom(inst.src0, 100 + 2 * b + step);
      const std::vector<float> v = mem.fillRandom(inst.src1, 200 + 2 * b + step);
      std::vector<float> out(m * n);
      for (int64_t row = 0; row < m; ++row)
        for (int64_t col = 0; col < n; ++col) {
          float sum = step > 0 ? expected[b][row * n + col] : 0.0f;
          for (uint32_t kk = 0; kk < k; ++kk)
            sum += s[kk * m + row] * v[kk * n + col];
          out[row * n + col] = sum;
        }
      expected[b] = out;
      ASSERT_EQ(verifyInstruction(inst, Engine::Tensor, &t), "");
      execute(inst, mem.memories());
    }
  for (unsigned b = 0; b < t.psumBanks; ++b) {
    SCOPED_TRACE(::testing::Message() << "bank " << b);
    expectPsum(mem, tile(MemSpace::Psum, DType::F32, 0, uint32_t(m), int64_t(b) * bank, n), expected[b]);
  }
}

INSTANTIATE_TEST_SUITE_P(Builtin, OnEachTarget, ::testing::Values("trn1", "trn2", "trn3"));

// ---- the peak a matmul is measured against ---------------------------------------------------------------------

// The moving operand's dtype picks a matmul's published peak: FP8 (158 on trn2), FP32 (20), BF16 (79) otherwise;
// an elementwise op on FP32 is measured against the BF16 peak; a dtype whose peak a target does not publish falls
// back to BF16's.
TEST(PeakTflops, FollowsTheMatmulsMovingOperand) {
  Instruction matmul;
  matmul.op = Opcode::Matmul;
  matmul.src0 = tile(MemSpace::Sbuf, DType::BF16, 0, 128, 0, 128);
  matmul.src1 = tile(MemSpace::Sbuf, DType::BF16, 0, 128, 256, 512);
  EXPECT_EQ(peakDtypeOf(matmul), PeakDtype::Bf16);
  matmul.src1.dtype = DType::F8E4M3;
  EXPECT_EQ(peakDtypeOf(matmul), PeakDtype::Fp8);
  EXPECT_DOUBLE_EQ(peakTflops(PeakDtype::Fp8, trn2()), trn2().tensor.peakFp8Tflops);
  matmul.src1.dtype = DType::F32;
  EXPECT_EQ(peakDtypeOf(matmul), PeakDtype::Fp32);
  EXPECT_DOUBLE_EQ(peakTflops(PeakDtype::Fp32, trn2()), trn2().tensor.peakFp32Tflops);
  Target noFp32 = trn2();
  noFp32.tensor.peakFp32Tflops = 0;
  EXPECT_DOUBLE_EQ(peakTflops(PeakDtype::Fp32, noFp32), noFp32.tensor.peakBf16Tflops);
  Instruction add = matmul;
  add.op = Opcode::TensorTensor;
  EXPECT_EQ(peakDtypeOf(add), PeakDtype::Bf16);
}

} // namespace
} // namespace tessera::isa
