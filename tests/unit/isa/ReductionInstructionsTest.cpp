/// \file
/// Reductions, scans and statistics: tensor_partition_reduce, tensor_tensor_scan, bn_stats, bn_aggr, max8,
/// nc_find_index8 and nc_match_replace8, each against a plain C++ reference written here (not isa::apply or the
/// definitions), on random and edge inputs; their shape, space, dtype and limit rules; and their costs on every
/// NeuronCore target, recomputed from the target's coefficients.

#include "InstructionTestSupport.h"

#include "tessera/isa/Cost.h"

#include <limits>
#include <numeric>

namespace tessera::isa {
namespace {

using namespace tessera::isa::testing;

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::nanf("");

/// The handful of ALU operations these tests use, from their definitions (NaN-propagating max, as numpy).
float alu(AluOp op, float a, float b) {
  switch (op) {
  case AluOp::Add: return a + b;
  case AluOp::Subtract: return a - b;
  case AluOp::Multiply: return a * b;
  case AluOp::Max: return std::isnan(a) || std::isnan(b) ? kNan : (a > b ? a : b);
  case AluOp::Min: return std::isnan(a) || std::isnan(b) ? kNan : (a < b ? a : b);
  case AluOp::Bypass: return a;
  default: ADD_FAILURE() << "no reference for " << name(op); return 0.0f;
  }
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// ---- tensor_reduce into groups ----------------------------------------------------------------------------

// data walks each partition's 48 elements as an [6, 8] access pattern with the 8 innermost 6 apart (a column-major
// 8 x 6 matrix read by columns): dst [P, 6] reduces each run of 8, in the walk's order (Tile::ap's grouped sum).
TEST(TensorReduce, ReducesTheInnermostDimensionsIntoGroups) {
  for (AluOp op : {AluOp::Add, AluOp::Max}) {
    for (bool negate : {false, true}) {
      SCOPED_TRACE(std::string(name(op)) + (negate ? " negated" : ""));
      TestMemory mem;
      Instruction inst;
      inst.op = Opcode::TensorReduce;
      inst.alu = op;
      inst.negate = negate;
      inst.src0 = strided(DType::BF16, 0, 16, 0, {6, 8}, {1, 6});
      inst.dst = sbuf(DType::F32, 0, 16, 4096, 6);
      std::vector<float> x = mem.write(inst.src0, mem.fillRandom(inst.src0, 7, -4.0f, 4.0f));
      mem.poison(inst.dst);
      ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
      execute(inst, mem.memories());
      for (int64_t p = 0; p < 16; ++p)
        for (int64_t g = 0; g < 6; ++g) {
          float acc = x[p * 48 + g * 8];
          for (int64_t j = 1; j < 8; ++j) acc = alu(op, acc, x[p * 48 + g * 8 + j]);
          EXPECT_TRUE(sameFloat(negate ? -acc : acc, mem.read(inst.dst, p, g))) << "partition " << p << " group " << g;
        }
    }
  }
}

TEST(TensorReduce, GroupsAreTheInnermostDimensions) {
  Instruction inst;
  inst.op = Opcode::TensorReduce;
  inst.alu = AluOp::Add;
  inst.src0 = strided(DType::F32, 0, 16, 0, {6, 8}, {1, 6});
  inst.dst = sbuf(DType::F32, 0, 16, 4096, 6);
  EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  inst.dst = sbuf(DType::F32, 0, 16, 4096, 1); // the whole walk
  EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  for (int64_t groups : {8, 5, 48}) { // the outer dimension's runs, no whole dimensions, no reduction at all
    inst.dst = sbuf(DType::F32, 0, 16, 4096, groups);
    EXPECT_TRUE(contains(verifyInstruction(inst, Engine::Vector, nullptr),
                         "reduce only over their innermost ones (NKI's axis: the last free dimensions)"))
        << groups << " groups";
  }
  inst.dst = sbuf(DType::F32, 0, 8, 4096, 6);
  EXPECT_TRUE(contains(verifyInstruction(inst, Engine::Vector, nullptr), "dst is [8, 6]"));
}

// ---- tensor_partition_reduce ------------------------------------------------------------------------------

TEST(TensorPartitionReduce, FoldsEachColumnAcrossPartitions) {
  for (AluOp op : {AluOp::Add, AluOp::Max}) {
    for (DType out : {DType::F32, DType::BF16}) {
      SCOPED_TRACE(std::string(name(op)) + " into " + std::string(name(out)));
      TestMemory mem;
      Instruction inst;
      inst.op = Opcode::TensorPartitionReduce;
      inst.alu = op;
      inst.src0 = strided(DType::BF16, 5, 100, 0, {3, 13}, {32, 1}); // [100, 3 x 13] with gaps between rows
      inst.dst = sbuf(out, 77, 1, 4096, 39);
      std::vector<float> x = mem.fillRandom(inst.src0, 3, -10.0f, 10.0f);
      x[2 * 39 + 4] = kNan;   // column 4 becomes NaN
      x[7 * 39 + 5] = kInf;   // column 5: +Inf
      x[9 * 39 + 6] = kInf;   // column 6: +Inf and -Inf
      x[11 * 39 + 6] = -kInf;
      x = mem.write(inst.src0, x);
      mem.poison(inst.dst);
      ASSERT_EQ(verifyInstruction(inst, Engine::GpSimd, nullptr), "");
      execute(inst, mem.memories());
      for (int64_t f = 0; f < 39; ++f) {
        float acc = x[f];
        for (int64_t p = 1; p < 100; ++p)
          acc = alu(op, acc, x[p * 39 + f]);
        EXPECT_TRUE(sameFloat(roundTo(out, acc), mem.read(inst.dst, 0, f))) << "column " << f;
      }
      EXPECT_TRUE(std::isnan(mem.read(inst.dst, 0, 4)));
      EXPECT_EQ(mem.read(inst.dst, 0, 5), kInf);
      EXPECT_EQ(std::isnan(mem.read(inst.dst, 0, 6)), op == AluOp::Add);
    }
  }
}

TEST(TensorPartitionReduce, Verify) {
  Instruction inst;
  inst.op = Opcode::TensorPartitionReduce;
  inst.alu = AluOp::Add;
  inst.src0 = sbuf(DType::F32, 0, 128, 0, 16);
  inst.dst = sbuf(DType::F32, 0, 1, 64, 16);
  const Target trn1 = Target::find("trn1");
  EXPECT_EQ(verifyInstruction(inst, Engine::GpSimd, &trn1), "");
  EXPECT_TRUE(contains(verifyInstruction(inst, Engine::Vector, &trn1), "cannot run on the vector engine"));
  Instruction inPsum = inst; // with no engine named it still runs on GpSimd, its only engine, which cannot read PSUM
  inPsum.src0.space = MemSpace::Psum;
  EXPECT_TRUE(contains(verifyInstruction(inPsum, std::nullopt, nullptr),
                       "data is in PSUM, which the GpSimd engine cannot reach: use SBUF"));
  inPsum = inst;
  inPsum.dst.space = MemSpace::Psum;
  EXPECT_TRUE(contains(verifyInstruction(inPsum, std::nullopt, nullptr), "dst is in PSUM"));
  Instruction wrong = inst;
  wrong.dst = sbuf(DType::F32, 0, 2, 64, 16);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::GpSimd, &trn1), "dst must be [1, 16]"));
  wrong = inst;
  wrong.dst = sbuf(DType::F32, 0, 1, 64, 15);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::GpSimd, &trn1), "dst must be [1, 16]"));
  wrong = inst;
  wrong.alu = AluOp::Multiply;
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::GpSimd, &trn1), "use add or max"));
  wrong = inst;
  wrong.src0.space = MemSpace::Psum;
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::GpSimd, &trn1), "PSUM, which the GpSimd engine cannot"));
}

// ---- tensor_tensor_scan -----------------------------------------------------------------------------------

struct ScanCase {
  AluOp op0, op1;
  bool reverse0, reverse1, initialTile;
};

/// NKI's recurrence, written out: out[i] = op1(op0(data0[i], prev), data1[i]), operands swapped by reverse0/1.
std::vector<float> scanReference(const ScanCase &c, const std::vector<float> &a, const std::vector<float> &b,
                                 const std::vector<float> &initial, int64_t rows, int64_t n) {
  std::vector<float> out(a.size());
  for (int64_t p = 0; p < rows; ++p) {
    float prev = initial[p];
    for (int64_t i = 0; i < n; ++i) {
      const float x = a[p * n + i], y = b[p * n + i];
      const float first = c.reverse0 ? alu(c.op0, prev, x) : alu(c.op0, x, prev);
      prev = c.reverse1 ? alu(c.op1, y, first) : alu(c.op1, first, y);
      out[p * n + i] = prev;
    }
  }
  return out;
}

class EachScan : public ::testing::TestWithParam<ScanCase> {};

TEST_P(EachScan, MatchesTheRecurrence) {
  const ScanCase c = GetParam();
  TestMemory mem;
  constexpr uint32_t kRows = 16;
  constexpr int64_t kN = 70;
  Instruction inst;
  inst.op = Opcode::TensorTensorScan;
  inst.alu = c.op0;
  inst.alu1 = c.op1;
  inst.reverse0 = c.reverse0;
  inst.reverse1 = c.reverse1;
  inst.initial = 0.5f;
  inst.src0 = sbuf(DType::F32, 0, kRows, 0, kN);
  inst.src1 = tile(MemSpace::Psum, DType::BF16, 16, kRows, 0, kN);
  inst.dst = sbuf(DType::F32, 32, kRows, 1024, kN);
  const std::vector<float> a = mem.fillRandom(inst.src0, 5, 0.5f, 1.0f);
  const std::vector<float> b = mem.fillRandom(inst.src1, 6, -1.0f, 1.0f);
  std::vector<float> initial(kRows, inst.initial);
  if (c.initialTile) {
    inst.src2 = sbuf(DType::F32, 0, kRows, 4096, 1);
    initial = mem.fillRandom(inst.src2, 8, -3.0f, 3.0f);
  }
  mem.poison(inst.dst);
  ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  execute(inst, mem.memories());
  const std::vector<float> expected = scanReference(c, a, b, initial, kRows, kN);
  const std::vector<float> got = mem.readAll(inst.dst);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(sameFloat(expected[i], got[i])) << "element " << i << ": " << expected[i] << " vs " << got[i];
}

INSTANTIATE_TEST_SUITE_P(
    Operators, EachScan,
    ::testing::Values(ScanCase{AluOp::Multiply, AluOp::Add, false, false, false}, // h = a h + b (Mamba-style)
                      ScanCase{AluOp::Multiply, AluOp::Add, false, false, true},
                      ScanCase{AluOp::Add, AluOp::Bypass, false, false, false},    // running sum of data0
                      ScanCase{AluOp::Subtract, AluOp::Subtract, true, false, false},
                      ScanCase{AluOp::Subtract, AluOp::Subtract, false, true, true},
                      ScanCase{AluOp::Max, AluOp::Multiply, false, false, true},
                      ScanCase{AluOp::Min, AluOp::Add, true, true, false}));

TEST(TensorTensorScan, CarriesFp32StateAndRoundsEachOutput) {
  // A running sum written to BF16: each output is the FP32 running sum rounded, not a sum of rounded outputs.
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::TensorTensorScan;
  inst.alu = AluOp::Add;
  inst.alu1 = AluOp::Add;
  inst.initial = 0.0f;
  inst.src0 = sbuf(DType::F32, 0, 1, 0, 300);
  inst.src1 = sbuf(DType::F32, 0, 1, 2048, 300);
  inst.dst = sbuf(DType::BF16, 0, 1, 4096, 300);
  mem.write(inst.src0, std::vector<float>(300, 1.0f));
  mem.write(inst.src1, std::vector<float>(300, 0.0f));
  execute(inst, mem.memories());
  for (int64_t i = 0; i < 300; ++i)
    EXPECT_EQ(mem.read(inst.dst, 0, i), roundTo(DType::BF16, float(i + 1))) << i;
  // 257 is not a BF16 value: it rounds to 256, yet the next sum is still 258.
  EXPECT_EQ(mem.read(inst.dst, 0, 256), 256.0f);
  EXPECT_EQ(mem.read(inst.dst, 0, 257), 258.0f);
}

TEST(TensorTensorScan, PropagatesNanAndInfinity) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::TensorTensorScan;
  inst.alu = AluOp::Multiply;
  inst.alu1 = AluOp::Add;
  inst.initial = 1.0f;
  inst.src0 = sbuf(DType::F32, 0, 2, 0, 4);
  inst.src1 = sbuf(DType::F32, 0, 2, 64, 4);
  inst.dst = sbuf(DType::F32, 0, 2, 128, 4);
  mem.write(inst.src0, {1, kNan, 1, 1, 1, kInf, 0, 1});
  mem.write(inst.src1, {1, 1, 1, 1, 1, 1, 1, -kInf});
  execute(inst, mem.memories());
  const std::vector<float> got = mem.readAll(inst.dst);
  EXPECT_EQ(got[0], 2.0f);
  EXPECT_TRUE(std::isnan(got[1]) && std::isnan(got[2]) && std::isnan(got[3]));
  EXPECT_EQ(got[4], 2.0f);
  EXPECT_EQ(got[5], kInf);
  EXPECT_TRUE(std::isnan(got[6])); // 0 x Inf
  EXPECT_TRUE(std::isnan(got[7]));
}

TEST(TensorTensorScan, Verify) {
  Instruction inst;
  inst.op = Opcode::TensorTensorScan;
  inst.alu = AluOp::Multiply;
  inst.alu1 = AluOp::Add;
  inst.src0 = sbuf(DType::F32, 0, 8, 0, 32);
  inst.src1 = tile(MemSpace::Psum, DType::F32, 0, 8, 0, 32);
  inst.dst = sbuf(DType::F32, 0, 8, 256, 32);
  EXPECT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  EXPECT_TRUE(contains(verifyInstruction(inst, Engine::GpSimd, nullptr), "cannot run on the gpsimd engine"));
  Instruction wrong = inst;
  wrong.src0.space = MemSpace::Psum;
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, nullptr), "both in PSUM"));
  wrong = inst;
  wrong.src1 = sbuf(DType::F32, 0, 8, 512, 31);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, nullptr), "data0 is [8, 32] but data1 is [8, 31]"));
  wrong = inst;
  wrong.dst = sbuf(DType::F32, 0, 4, 256, 32);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, nullptr), "dst is [4, 32] but data0 is [8, 32]"));
  wrong = inst;
  wrong.src2 = sbuf(DType::F32, 0, 8, 1024, 2);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, nullptr), "initial must be a [8, 1] tile"));
  wrong.src2 = sbuf(DType::F32, 0, 8, 1024, 1);
  EXPECT_EQ(verifyInstruction(wrong, Engine::Vector, nullptr), "");
  EXPECT_TRUE(operandUse(wrong).src2);
  EXPECT_FALSE(operandUse(inst).src2);
}

// ---- bn_stats / bn_aggr -----------------------------------------------------------------------------------

/// count, mean and M2 (sum of squared deviations) of x[first], x[first + 2], ..., in double.
std::array<double, 3> statsOfParity(const std::vector<float> &x, size_t begin, size_t n, size_t first) {
  double count = 0, sum = 0;
  for (size_t i = first; i < n; i += 2, ++count)
    sum += x[begin + i];
  const double mean = count > 0 ? sum / count : 0.0;
  double m2 = 0;
  for (size_t i = first; i < n; i += 2)
    m2 += (x[begin + i] - mean) * (x[begin + i] - mean);
  return {count, mean, m2};
}

TEST(BnStats, CountMeanAndM2OfEvenAndOddElements) {
  for (int64_t n : {1, 2, 7, 64, 511, 512}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    TestMemory mem;
    Instruction inst;
    inst.op = Opcode::BnStats;
    inst.src0 = sbuf(DType::BF16, 8, 24, 0, n);
    inst.dst = sbuf(DType::F32, 40, 24, 2048, 6);
    const std::vector<float> x = mem.fillRandom(inst.src0, uint32_t(n), -3.0f, 5.0f);
    mem.poison(inst.dst);
    ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
    execute(inst, mem.memories());
    for (uint32_t p = 0; p < 24; ++p)
      for (size_t parity : {0u, 1u}) {
        const auto expected = statsOfParity(x, p * n, n, parity);
        const float count = mem.read(inst.dst, p, 3 * parity), mean = mem.read(inst.dst, p, 3 * parity + 1),
                    m2 = mem.read(inst.dst, p, 3 * parity + 2);
        EXPECT_EQ(count, expected[0]);
        EXPECT_NEAR(mean, expected[1], 1e-5 * (1 + std::fabs(expected[1])));
        EXPECT_NEAR(m2, expected[2], 1e-5 * (1 + expected[2]));
      }
  }
}

TEST(BnStats, FlattensAStridedRowAndKeepsNanToItsParity) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::BnStats;
  inst.src0 = strided(DType::F32, 0, 2, 0, {3, 5}, {16, 3}); // 3 groups of 5, every third element
  inst.dst = sbuf(DType::F32, 0, 2, 1024, 6);
  std::vector<float> x = mem.fillRandom(inst.src0, 2);
  x[15 + 4] = kNan; // partition 1, flat index 4: an even element
  x = mem.write(inst.src0, x);
  execute(inst, mem.memories());
  for (uint32_t p = 0; p < 2; ++p)
    for (size_t parity : {0u, 1u}) {
      const auto expected = statsOfParity(x, p * 15, 15, parity);
      EXPECT_EQ(mem.read(inst.dst, p, 3 * parity), expected[0]);
      if (p == 1 && parity == 0) {
        EXPECT_TRUE(std::isnan(mem.read(inst.dst, p, 1)) && std::isnan(mem.read(inst.dst, p, 2)));
        continue;
      }
      EXPECT_NEAR(mem.read(inst.dst, p, 3 * parity + 1), expected[1], 1e-6);
      EXPECT_NEAR(mem.read(inst.dst, p, 3 * parity + 2), expected[2], 1e-5);
    }
}

TEST(BnAggr, CombinesBnStatsChunksIntoTheRowsMeanAndVariance) {
  // 1300 elements per partition: three bn_stats of 512, 512 and 276 into one [P, 18] tile, then one bn_aggr.
  // Values around 1000 with a small spread: a naive E[x^2] - E[x]^2 in FP32 would lose the variance.
  constexpr int64_t kN = 1300, kChunk = 512;
  constexpr uint32_t kRows = 32;
  TestMemory mem;
  const Target trn1 = Target::find("trn1"); // 512 elements per bn_stats
  const AccessPattern row = sbuf(DType::F32, 0, kRows, 0, kN);
  const std::vector<float> x = mem.fillRandom(row, 21, 999.0f, 1001.0f);
  const AccessPattern stats = sbuf(DType::F32, 0, kRows, 8192, 18);
  for (int64_t chunk = 0; chunk * kChunk < kN; ++chunk) {
    Instruction inst;
    inst.op = Opcode::BnStats;
    inst.src0 = sbuf(DType::F32, 0, kRows, chunk * kChunk * 4, std::min(kChunk, kN - chunk * kChunk));
    inst.dst = sbuf(DType::F32, 0, kRows, 8192 + chunk * 6 * 4, 6);
    ASSERT_EQ(verifyInstruction(inst, Engine::Vector, &trn1), "");
    execute(inst, mem.memories());
  }
  Instruction aggr;
  aggr.op = Opcode::BnAggr;
  aggr.src0 = stats;
  aggr.dst = sbuf(DType::F32, 64, kRows, 12000, 2);
  ASSERT_EQ(verifyInstruction(aggr, Engine::Vector, nullptr), "");
  execute(aggr, mem.memories());
  for (uint32_t p = 0; p < kRows; ++p) {
    double sum = 0;
    for (int64_t i = 0; i < kN; ++i)
      sum += x[p * kN + i];
    const double mean = sum / kN;
    double m2 = 0;
    for (int64_t i = 0; i < kN; ++i)
      m2 += (x[p * kN + i] - mean) * (x[p * kN + i] - mean);
    const double variance = m2 / kN; // population variance
    EXPECT_NEAR(mem.read(aggr.dst, p, 0), mean, 1e-3) << p; // FP32 sums of ~1000s: about 1e-6 relative
    EXPECT_NEAR(mem.read(aggr.dst, p, 1), variance, 2e-4 * variance) << p; // N - 1 would be 8e-4 off
  }
}

TEST(BnAggr, SkipsEmptyTriplesAndGivesNanForNoElements) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::BnAggr;
  inst.src0 = sbuf(DType::F32, 0, 3, 0, 9);
  inst.dst = sbuf(DType::BF16, 0, 3, 256, 2);
  // Partition 0: {1, 2, 3} (mean 2, M2 2) and {10} (mean 10, M2 0) around an empty triple.
  // Partition 1: a single triple. Partition 2: nothing.
  mem.write(inst.src0, {3, 2, 2, 0, 0, 0, 1, 10, 0, //
                        4, -1.5f, 5, 0, 0, 0, 0, 0, 0, //
                        0, 0, 0, 0, 0, 0, 0, 0, 0});
  execute(inst, mem.memories());
  // Elements {1, 2, 3, 10}: mean 4, population variance (9 + 4 + 1 + 36) / 4 = 12.5.
  EXPECT_EQ(mem.read(inst.dst, 0, 0), 4.0f);
  EXPECT_EQ(mem.read(inst.dst, 0, 1), 12.5f);
  EXPECT_EQ(mem.read(inst.dst, 1, 0), -1.5f);
  EXPECT_EQ(mem.read(inst.dst, 1, 1), roundTo(DType::BF16, 5.0f / 4.0f));
  EXPECT_TRUE(std::isnan(mem.read(inst.dst, 2, 0)) && std::isnan(mem.read(inst.dst, 2, 1)));
}

TEST(BnAggr, RoundsToTheOutputType) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::BnAggr;
  inst.src0 = sbuf(DType::F32, 0, 1, 0, 3);
  inst.dst = sbuf(DType::BF16, 0, 1, 64, 2);
  mem.write(inst.src0, {3, 1.0f / 3.0f, 1.0f});
  execute(inst, mem.memories());
  EXPECT_EQ(mem.read(inst.dst, 0, 0), roundTo(DType::BF16, 1.0f / 3.0f));
  EXPECT_EQ(mem.read(inst.dst, 0, 1), roundTo(DType::BF16, 1.0f / 3.0f));
}

TEST(BnStatsAndAggr, Verify) {
  const Target trn1 = Target::find("trn1");
  Instruction stats;
  stats.op = Opcode::BnStats;
  stats.src0 = sbuf(DType::F32, 0, 128, 0, 512);
  stats.dst = sbuf(DType::F32, 0, 128, 4096, 6);
  EXPECT_EQ(verifyInstruction(stats, Engine::Vector, &trn1), "");
  EXPECT_TRUE(contains(verifyInstruction(stats, Engine::Scalar, &trn1), "cannot run on the scalar engine"));
  Instruction wrong = stats;
  wrong.src0 = sbuf(DType::F32, 0, 128, 0, 513);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn1), "at most 512 (bn_stats_max_elements)"));
  EXPECT_EQ(verifyInstruction(wrong, Engine::Vector, nullptr), ""); // no target, no limit
  wrong = stats;
  wrong.dst = sbuf(DType::F32, 0, 128, 4096, 5);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn1), "dst must be [128, 6]"));

  Instruction aggr;
  aggr.op = Opcode::BnAggr;
  aggr.src0 = sbuf(DType::F32, 0, 128, 0, 12);
  aggr.dst = sbuf(DType::F32, 0, 128, 64, 2);
  EXPECT_EQ(verifyInstruction(aggr, Engine::Vector, &trn1), "");
  wrong = aggr;
  wrong.src0 = sbuf(DType::F32, 0, 128, 0, 10);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn1), "a positive multiple of 3"));
  wrong = aggr;
  wrong.dst = sbuf(DType::F32, 0, 64, 64, 2);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn1), "dst must be [128, 2]"));
}

// ---- max8 / nc_find_index8 / nc_match_replace8 ------------------------------------------------------------

/// The 8 largest of `row`, descending, NaN first, equal values in their original order.
std::vector<float> top8(std::vector<float> row) {
  std::stable_sort(row.begin(), row.end(), [](float a, float b) {
    if (std::isnan(a) != std::isnan(b))
      return std::isnan(a);
    return a > b;
  });
  row.resize(8);
  return row;
}

TEST(Max8, TheEightLargestDescending) {
  for (DType in : {DType::F32, DType::BF16}) {
    TestMemory mem;
    Instruction inst;
    inst.op = Opcode::Max8;
    inst.src0 = strided(in, 4, 6, 0, {4, 25}, {32, 1}); // [6, 4 x 25], each group of 25 padded to 32
    inst.dst = sbuf(DType::F32, 20, 6, 8192, 8);
    std::vector<float> x = mem.fillRandom(inst.src0, 9, -100.0f, 100.0f);
    // Partition 1: ties; partition 2: NaN and infinities; partition 3: signed zeros above negatives.
    for (int i = 0; i < 100; ++i)
      x[100 + i] = float(i % 5);
    x[200 + 3] = kNan;
    x[200 + 50] = kInf;
    x[200 + 51] = -kInf;
    for (int i = 0; i < 100; ++i)
      x[300 + i] = -1.0f - float(i);
    x[300 + 10] = -0.0f;
    x[300 + 20] = 0.0f;
    x = mem.write(inst.src0, x);
    mem.poison(inst.dst);
    ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
    execute(inst, mem.memories());
    for (uint32_t p = 0; p < 6; ++p) {
      const std::vector<float> expected = top8(std::vector<float>(x.begin() + p * 100, x.begin() + (p + 1) * 100));
      for (int64_t k = 0; k < 8; ++k)
        EXPECT_TRUE(sameFloat(expected[k], mem.read(inst.dst, p, k))) << "p " << p << " k " << k;
    }
    EXPECT_EQ(mem.read(inst.dst, 1, 0), 4.0f);
    EXPECT_EQ(mem.read(inst.dst, 1, 7), 4.0f);
    EXPECT_TRUE(std::isnan(mem.read(inst.dst, 2, 0)));
    EXPECT_EQ(mem.read(inst.dst, 2, 1), kInf);
    EXPECT_TRUE(std::signbit(mem.read(inst.dst, 3, 0)));  // -0 came first in the row
    EXPECT_FALSE(std::signbit(mem.read(inst.dst, 3, 1)));
    EXPECT_EQ(mem.read(inst.dst, 3, 2), -1.0f);
  }
}

TEST(Max8, RoundsToBf16) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::Max8;
  inst.src0 = sbuf(DType::F32, 0, 1, 0, 8);
  inst.dst = sbuf(DType::BF16, 0, 1, 64, 8);
  const std::vector<float> x = mem.write(inst.src0, {1.00390625f, 3.0f, 2.00390625f, -1, 0.1f, 7, 1e-3f, 5});
  execute(inst, mem.memories());
  const std::vector<float> expected = top8(x);
  for (int64_t k = 0; k < 8; ++k)
    EXPECT_EQ(mem.read(inst.dst, 0, k), roundTo(DType::BF16, expected[k]));
  EXPECT_EQ(mem.read(inst.dst, 0, 3), 2.0f); // 2.00390625 is a quarter BF16 ulp above 2
  EXPECT_EQ(mem.read(inst.dst, 0, 4), 1.0f); // 1.00390625 is a tie between 1 and 1.0078125: to even
}

/// Index of the first element of `row` equal to `v`, or -1.
int64_t firstIndex(const std::vector<float> &row, size_t begin, size_t n, float v) {
  for (size_t i = 0; i < n; ++i)
    if (row[begin + i] == v)
      return int64_t(i);
  return -1;
}

TEST(FindIndex8, FirstOccurrenceOfEachValue) {
  TestMemory mem;
  constexpr int64_t kN = 200;
  Instruction inst;
  inst.op = Opcode::FindIndex8;
  inst.src0 = sbuf(DType::BF16, 0, 4, 0, kN);
  inst.src1 = sbuf(DType::F32, 0, 4, 1024, 8);
  inst.dst = sbuf(DType::U32, 0, 4, 2048, 8);
  std::vector<float> x = mem.fillRandom(inst.src0, 13, -8.0f, 8.0f);
  x[20] = 100.0f; // partition 0: a repeated value (outside the random range) is found at its first index
  x[150] = 100.0f;
  x[kN + 7] = -0.0f; // partition 1: 0 and -0 are equal
  x[kN + 9] = 0.0f;
  x = mem.write(inst.src0, x);
  std::vector<float> vals;
  for (uint32_t p = 0; p < 4; ++p)
    for (int j = 0; j < 8; ++j)
      vals.push_back(x[p * kN + (j * 37 + p) % kN]);
  vals[0] = x[150];
  vals[1] = x[150]; // the same value twice: the same index twice
  vals[8] = 0.0f;
  vals[8 + 1] = 12345.0f; // absent
  vals[8 + 2] = kNan;     // NaN equals nothing
  vals = mem.write(inst.src1, vals);
  ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
  execute(inst, mem.memories());
  for (uint32_t p = 0; p < 4; ++p)
    for (int j = 0; j < 8; ++j) {
      const int64_t expected = firstIndex(x, p * kN, kN, vals[p * 8 + j]);
      uint32_t got;
      std::memcpy(&got, mem.element(inst.dst, p, j), 4);
      EXPECT_EQ(got, expected < 0 ? 0xFFFFFFFFu : uint32_t(expected)) << "p " << p << " j " << j;
    }
  EXPECT_EQ(mem.read(inst.dst, 0, 0), 20.0f);
  EXPECT_EQ(mem.read(inst.dst, 0, 1), 20.0f);
  EXPECT_EQ(mem.read(inst.dst, 1, 0), 7.0f);
}

TEST(FindIndex8, FindsTheIndicesOfMax8) {
  // The top-k idiom: max8, then the index of each of the 8 values.
  TestMemory mem;
  constexpr int64_t kN = 1000;
  Instruction max;
  max.op = Opcode::Max8;
  max.src0 = sbuf(DType::F32, 0, 8, 0, kN);
  max.dst = sbuf(DType::F32, 0, 8, 4096, 8);
  const std::vector<float> x = mem.fillRandom(max.src0, 17, -1.0f, 1.0f);
  execute(max, mem.memories());
  Instruction find;
  find.op = Opcode::FindIndex8;
  find.src0 = max.src0;
  find.src1 = max.dst;
  find.dst = sbuf(DType::U32, 0, 8, 4200, 8);
  execute(find, mem.memories());
  for (uint32_t p = 0; p < 8; ++p) {
    std::vector<int64_t> order(kN);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x[p * kN + a] > x[p * kN + b]; });
    for (int j = 0; j < 8; ++j) // the first index holding the j-th largest value (values may repeat)
      EXPECT_EQ(mem.read(find.dst, p, j), float(firstIndex(x, p * kN, kN, x[p * kN + order[j]])))
          << "p " << p << " j " << j;
  }
}

TEST(MatchReplace8, ReplacesTheFirstMatchOfEachValueInTurn) {
  for (bool withIndices : {false, true}) {
    TestMemory mem;
    constexpr int64_t kN = 40;
    Instruction inst;
    inst.op = Opcode::MatchReplace8;
    inst.value = -kInf;
    inst.src0 = sbuf(DType::F32, 0, 3, 0, kN);
    inst.src1 = sbuf(DType::BF16, 0, 3, 1024, 8);
    inst.dst = sbuf(DType::F32, 8, 3, 2048, kN);
    if (withIndices)
      inst.dst2 = sbuf(DType::U32, 8, 3, 4096, 8);
    std::vector<float> x(3 * kN);
    for (int64_t i = 0; i < 3 * kN; ++i)
      x[i] = float((i * 7) % 11); // many repeats of 0..10
    x = mem.write(inst.src0, x);
    std::vector<float> vals = {3, 3, 3, 5, 99, 0, 10, 10, //
                               1, 2, 4, 6, 7, 8, 9, 1,    //
                               kNan, 0, 0, 0, 0, 0, 0, 0};
    vals = mem.write(inst.src1, vals);
    ASSERT_EQ(verifyInstruction(inst, Engine::Vector, nullptr), "");
    EXPECT_EQ(operandUse(inst).writesDst2, withIndices);
    execute(inst, mem.memories());
    std::vector<float> expected = x;
    std::vector<float> indices(3 * 8, 0.0f);
    for (uint32_t p = 0; p < 3; ++p)
      for (int j = 0; j < 8; ++j) {
        const int64_t at = firstIndex(expected, p * kN, kN, vals[p * 8 + j]);
        if (at < 0)
          continue;
        expected[p * kN + at] = inst.value;
        indices[p * 8 + j] = float(at);
      }
    EXPECT_EQ(mem.readAll(inst.dst), expected);
    if (withIndices) {
      EXPECT_EQ(mem.readAll(inst.dst2), indices);
    }
    // Three 3s replaced in partition 0, the absent 99 replaced nothing and recorded 0.
    EXPECT_EQ(std::count(expected.begin(), expected.begin() + kN, -kInf), 7);
  }
}

TEST(MatchReplace8, InPlaceMax8LoopGivesTheTop16) {
  // The top-k idiom: max8, replace those 8 with -Inf in place, max8 again.
  TestMemory mem;
  constexpr int64_t kN = 300;
  const AccessPattern data = sbuf(DType::F32, 0, 4, 0, kN);
  const std::vector<float> x = mem.fillRandom(data, 23, -50.0f, 50.0f);
  std::vector<float> found;
  for (int round = 0; round < 2; ++round) {
    Instruction max;
    max.op = Opcode::Max8;
    max.src0 = data;
    max.dst = sbuf(DType::F32, 0, 4, 2048 + round * 32, 8);
    execute(max, mem.memories());
    Instruction replace;
    replace.op = Opcode::MatchReplace8;
    replace.value = -kInf;
    replace.src0 = data;
    replace.src1 = max.dst;
    replace.dst = data;
    ASSERT_EQ(verifyInstruction(replace, Engine::Vector, nullptr), "");
    execute(replace, mem.memories());
  }
  for (uint32_t p = 0; p < 4; ++p) {
    std::vector<float> row(x.begin() + p * kN, x.begin() + (p + 1) * kN);
    std::sort(row.begin(), row.end(), std::greater<>());
    for (int k = 0; k < 16; ++k)
      EXPECT_EQ(mem.read(sbuf(DType::F32, 0, 4, 2048 + (k / 8) * 32, 8), p, k % 8), row[k]) << p << " " << k;
    const std::vector<float> after = mem.readAll(data);
    EXPECT_EQ(std::count(after.begin() + p * kN, after.begin() + (p + 1) * kN, -kInf), 16);
  }
}

TEST(Top8Instructions, Verify) {
  const Target trn2 = Target::find("trn2");
  Instruction max;
  max.op = Opcode::Max8;
  max.src0 = sbuf(DType::F32, 0, 128, 0, 16384);
  max.dst = sbuf(DType::F32, 0, 128, 0, 8);
  EXPECT_EQ(verifyInstruction(max, Engine::Vector, &trn2), "");
  Instruction wrong = max;
  wrong.src0 = sbuf(DType::F32, 0, 128, 0, 16385);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "at most 16384 (max8_max_elements)"));
  wrong.src0 = sbuf(DType::F32, 0, 128, 0, 7);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "at least 8"));
  wrong = max;
  wrong.dst = sbuf(DType::F32, 0, 128, 0, 9);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "dst must be [128, 8]"));

  Instruction find;
  find.op = Opcode::FindIndex8;
  find.src0 = sbuf(DType::F32, 0, 64, 0, 100);
  find.src1 = sbuf(DType::F32, 0, 64, 512, 8);
  find.dst = sbuf(DType::U32, 0, 64, 1024, 8);
  EXPECT_EQ(verifyInstruction(find, Engine::Vector, &trn2), "");
  wrong = find;
  wrong.dst.dtype = DType::F32;
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "dst must be u32"));
  wrong = find;
  wrong.src1 = sbuf(DType::F32, 0, 64, 512, 4);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "vals must be [64, 8]"));
  wrong = find;
  wrong.src1 = AccessPattern{};
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "needs operand src1"));

  Instruction replace;
  replace.op = Opcode::MatchReplace8;
  replace.src0 = sbuf(DType::F32, 0, 64, 0, 3);
  replace.src1 = sbuf(DType::F32, 0, 64, 512, 8);
  replace.dst = sbuf(DType::F32, 0, 64, 1024, 3);
  EXPECT_EQ(verifyInstruction(replace, Engine::Vector, &trn2), "");
  wrong = replace;
  wrong.dst2 = sbuf(DType::F32, 0, 64, 2048, 8);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "dst_idx must be u32"));
  wrong.dst2 = sbuf(DType::U32, 0, 64, 2048, 7);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "dst_idx must be [64, 8]"));
  wrong = replace;
  wrong.dst = sbuf(DType::F32, 0, 64, 1024, 4);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "dst is [64, 4] but data is [64, 3]"));
  wrong = replace;
  wrong.src0 = sbuf(DType::F32, 0, 64, 0, 16385);
  wrong.dst = sbuf(DType::F32, 0, 64, 0, 16385);
  EXPECT_TRUE(contains(verifyInstruction(wrong, Engine::Vector, &trn2), "at most 16384"));
}

// ---- costs ------------------------------------------------------------------------------------------------

Instruction withShapes(Opcode op, int64_t n) {
  Instruction inst;
  inst.op = op;
  inst.src0 = sbuf(DType::BF16, 0, 128, 0, n);
  inst.src1 = sbuf(DType::BF16, 0, 128, 0, op == Opcode::TensorTensorScan ? n : 8);
  inst.dst = sbuf(DType::F32, 0, 128, 0, 8);
  return inst;
}

TEST(ReductionCosts, OnEveryNeuronCore) {
  const std::vector<Target> targets = neuronCoreTargets();
  ASSERT_GE(targets.size(), 2u);
  for (const Target &t : targets) {
    SCOPED_TRACE(t.name);
    const CostModel &c = t.cost;
    for (int64_t n : {1, 3, 30, 31, 32, 33, 300, 512, 3000}) {
      SCOPED_TRACE("N = " + std::to_string(n));
      EXPECT_EQ(engineCycles(withShapes(Opcode::TensorPartitionReduce, n), Engine::GpSimd, t),
                c.gpsimdStartupCycles + c.accessOverheadCycles + std::max<uint64_t>(c.minInitiationCycles, n));
      // NKI: tensor_tensor_scan ~2N.
      EXPECT_EQ(engineCycles(withShapes(Opcode::TensorTensorScan, n), Engine::Vector, t),
                expectedStreamingCycles(t, Engine::Vector, c.scanCyclesPerElement * n));
      EXPECT_EQ(engineCycles(withShapes(Opcode::BnStats, n), Engine::Vector, t),
                expectedStreamingCycles(t, Engine::Vector, n));
      for (Opcode op : {Opcode::Max8, Opcode::FindIndex8, Opcode::MatchReplace8})
        EXPECT_EQ(engineCycles(withShapes(op, n), Engine::Vector, t), expectedStreamingCycles(t, Engine::Vector, n));
      // NKI: bn_aggr max(MIN_II, 13N/3) for N elements, whole triples.
      const int64_t triples = n;
      EXPECT_EQ(engineCycles(withShapes(Opcode::BnAggr, 3 * triples), Engine::Vector, t),
                c.accessOverheadCycles +
                    std::max<uint64_t>(c.minInitiationCycles, c.bnAggrCyclesPerTriple * 3 * triples / 3));
    }
    EXPECT_EQ(c.scanCyclesPerElement, 2u);
    EXPECT_EQ(c.bnAggrCyclesPerTriple, 13u);
  }
}

TEST(ReductionCosts, FollowTheTargetCoefficientsAndLimits) {
  Target t = Target::find("trn1");
  t.cost.accessOverheadCycles = 1;
  t.cost.minInitiationCycles = 2;
  t.cost.gpsimdStartupCycles = 3;
  t.cost.scanCyclesPerElement = 5;
  t.cost.bnAggrCyclesPerTriple = 7;
  t.cost.bnStatsMaxElements = 100;
  t.cost.max8MaxElements = 50;
  EXPECT_EQ(engineCycles(withShapes(Opcode::TensorTensorScan, 10), Engine::Vector, t), 1u + 50u);
  EXPECT_EQ(engineCycles(withShapes(Opcode::BnAggr, 12), Engine::Vector, t), 1u + 28u);
  EXPECT_EQ(engineCycles(withShapes(Opcode::TensorPartitionReduce, 10), Engine::GpSimd, t), 3u + 1u + 10u);
  EXPECT_EQ(engineCycles(withShapes(Opcode::Max8, 1), Engine::Vector, t), 1u + 2u);

  Instruction stats;
  stats.op = Opcode::BnStats;
  stats.src0 = sbuf(DType::F32, 0, 128, 0, 101);
  stats.dst = sbuf(DType::F32, 0, 128, 1024, 6);
  EXPECT_TRUE(contains(verifyInstruction(stats, Engine::Vector, &t), "at most 100"));
  Instruction max = withShapes(Opcode::Max8, 51);
  EXPECT_TRUE(contains(verifyInstruction(max, Engine::Vector, &t), "at most 50"));
}

} // namespace
} // namespace tessera::isa
