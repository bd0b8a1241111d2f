/// The reductions, scans and statistics inside whole programs run by tessera::sim::simulate(): a row-statistics
/// and top-8 kernel on the Vector, Scalar and GpSimd engines, checked against plain C++ and against the cost
/// model engine by engine; and the kernel-bug checks reading each instruction's operand use (dst2 included).

#include "ProgramBuilder.h"

#include "tessera/isa/Error.h"
#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using isa::Opcode;
using testing::ProgramBuilder;

constexpr double kPsTolerance = 0.01;
constexpr int64_t kRows = 128, kCols = 1024, kChunk = 512;

isa::AccessPattern sbuf(DType dtype, int64_t offset, int64_t n, uint32_t partitions = kRows) {
  return testing::onChip(MemSpace::Sbuf, dtype, 0, partitions, offset, n);
}

/// x[128, 1024] -> per row: mean and variance (2 x bn_stats, bn_aggr), the 8 largest and their indices (max8,
/// nc_find_index8), sum of exp(x) (activation_reduce, Scalar), a running sum (tensor_tensor_scan); per column:
/// the max across rows (tensor_partition_reduce, GpSimd). The compute engines wait for the load, the stores for
/// the compute engines.
struct RowStatsKernel {
  ProgramBuilder b{"row_stats"};
  int32_t x = b.tensor("x", {kRows, kCols}, DType::F32);
  int32_t meanVar = b.tensor("mean_var", {kRows, 2}, DType::F32, true);
  int32_t top = b.tensor("top", {kRows, 8}, DType::F32, true);
  int32_t index = b.tensor("index", {kRows, 8}, DType::U32, true);
  int32_t expSum = b.tensor("exp_sum", {kRows, 1}, DType::F32, true);
  int32_t runningSum = b.tensor("running_sum", {kRows, kCols}, DType::F32, true);
  int32_t columnMax = b.tensor("column_max", {1, kCols}, DType::F32, true);

  // SBUF layout, bytes per partition.
  static constexpr int64_t kX = 0, kStats = 4096, kMeanVar = 4160, kTop = 4176, kIndex = 4208, kSum = 4240,
                           kExp = 8192, kScan = 12288, kColumnMax = 16384, kZeros = 20480;
  std::vector<isa::Instruction> vector, scalar, gpsimd;

  RowStatsKernel() {
    const uint32_t loaded = b.semaphore(), vectorDone = b.semaphore(), scalarDone = b.semaphore(),
                   gpsimdDone = b.semaphore();
    b.add(Engine::Dma, testing::dmaCopy(sbuf(DType::F32, kX, kCols), testing::hbmTile(x, DType::F32, kCols, 0, kRows, 0, kCols)),
          {}, {loaded});

    for (int64_t c = 0; c < kCols / kChunk; ++c) {
      isa::Instruction stats;
      stats.op = Opcode::BnStats;
      stats.src0 = sbuf(DType::F32, kX + c * kChunk * 4, kChunk);
      stats.dst = sbuf(DType::F32, kStats + c * 24, 6);
      vector.push_back(stats);
    }
    isa::Instruction aggr;
    aggr.op = Opcode::BnAggr;
    aggr.src0 = sbuf(DType::F32, kStats, 12);
    aggr.dst = sbuf(DType::F32, kMeanVar, 2);
    vector.push_back(aggr);
    isa::Instruction max8;
    max8.op = Opcode::Max8;
    max8.src0 = sbuf(DType::F32, kX, kCols);
    max8.dst = sbuf(DType::F32, kTop, 8);
    vector.push_back(max8);
    isa::Instruction find;
    find.op = Opcode::FindIndex8;
    find.src0 = max8.src0;
    find.src1 = max8.dst;
    find.dst = sbuf(DType::U32, kIndex, 8);
    vector.push_back(find);
    isa::Instruction zeros; // data1 of the running sum
    zeros.op = Opcode::Memset;
    zeros.value = 0.0f;
    zeros.dst = sbuf(DType::F32, kZeros, kCols);
    vector.push_back(zeros);
    isa::Instruction scan;
    scan.op = Opcode::TensorTensorScan;
    scan.alu = isa::AluOp::Add;
    scan.alu1 = isa::AluOp::Add;
    scan.src0 = sbuf(DType::F32, kX, kCols);
    scan.src1 = zeros.dst;
    scan.dst = sbuf(DType::F32, kScan, kCols);
    vector.push_back(scan);
    for (size_t i = 0; i < vector.size(); ++i)
      b.add(Engine::Vector, vector[i], i == 0 ? std::vector<isa::SemWait>{{loaded, 1}} : std::vector<isa::SemWait>{},
            i + 1 == vector.size() ? std::vector<uint32_t>{vectorDone} : std::vector<uint32_t>{});

    isa::Instruction act;
    act.op = Opcode::ActivationReduce;
    act.func = isa::ActFunc::Exp;
    act.scale = 1.0f;
    act.src0 = sbuf(DType::F32, kX, kCols);
    act.dst = sbuf(DType::F32, kExp, kCols);
    act.dst2 = sbuf(DType::F32, kSum, 1);
    scalar.push_back(act);
    b.add(Engine::Scalar, act, {{loaded, 1}}, {scalarDone});

    isa::Instruction columns;
    columns.op = Opcode::TensorPartitionReduce;
    columns.alu = isa::AluOp::Max;
    columns.src0 = sbuf(DType::F32, kX, kCols);
    columns.dst = sbuf(DType::F32, kColumnMax, kCols, 1);
    gpsimd.push_back(columns);
    b.add(Engine::GpSimd, columns, {{loaded, 1}}, {gpsimdDone});

    const std::vector<isa::SemWait> allDone = {{vectorDone, 1}, {scalarDone, 1}, {gpsimdDone, 1}};
    b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(meanVar, DType::F32, 2, 0, kRows, 0, 2), aggr.dst), allDone,
          {}, {}, 1);
    b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(top, DType::F32, 8, 0, kRows, 0, 8), max8.dst), allDone, {},
          {}, 1);
    b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(index, DType::U32, 8, 0, kRows, 0, 8), find.dst), allDone,
          {}, {}, 1);
    b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(expSum, DType::F32, 1, 0, kRows, 0, 1), act.dst2), allDone,
          {}, {}, 1);
    b.add(Engine::Dma,
          testing::dmaCopy(testing::hbmTile(runningSum, DType::F32, kCols, 0, kRows, 0, kCols), scan.dst), allDone,
          {}, {}, 1);
    b.add(Engine::Dma,
          testing::dmaCopy(testing::hbmTile(columnMax, DType::F32, kCols, 0, 1, 0, kCols), columns.dst), allDone, {},
          {}, 1);
  }

  std::vector<float> xValues = testing::randomValues(kRows * kCols, DType::F32, 31, -4.0f, 4.0f);

  HbmImage inputs() const { return {testing::encoded(DType::F32, xValues), {}, {}, {}, {}, {}, {}}; }

  /// Busy time the cost model gives a stream's instructions (each after the one before it on its engine: the
  /// static overhead of tiny or back-to-back dependent instructions included, docs/memory.md).
  static double busyNs(const std::vector<isa::Instruction> &stream, Engine engine) {
    double ns = 0;
    for (size_t i = 0; i < stream.size(); ++i)
      ns += testing::engineNs(stream[i], engine, testing::trn2(), i ? &stream[i - 1] : nullptr);
    return ns;
  }
};

TEST(ReductionPrograms, RowStatisticsAndTop8MatchPlainCpp) {
  RowStatsKernel kernel;
  HbmImage hbm = kernel.inputs();
  const SimResult result = simulate(kernel.b.program, testing::trn2(), hbm);
  const std::vector<float> &x = kernel.xValues;

  const std::vector<float> meanVar = testing::decoded(DType::F32, hbm[kernel.meanVar]);
  const std::vector<float> top = testing::decoded(DType::F32, hbm[kernel.top]);
  const std::vector<float> index = testing::decoded(DType::U32, hbm[kernel.index]);
  const std::vector<float> expSum = testing::decoded(DType::F32, hbm[kernel.expSum]);
  const std::vector<float> running = testing::decoded(DType::F32, hbm[kernel.runningSum]);
  const std::vector<float> columnMax = testing::decoded(DType::F32, hbm[kernel.columnMax]);
  for (int64_t p = 0; p < kRows; ++p) {
    const float *row = x.data() + p * kCols;
    double sum = 0, expTotal = 0;
    for (int64_t i = 0; i < kCols; ++i) {
      sum += row[i];
      expTotal += std::exp(double(row[i]));
    }
    const double mean = sum / kCols;
    double m2 = 0;
    for (int64_t i = 0; i < kCols; ++i)
      m2 += (row[i] - mean) * (row[i] - mean);
    EXPECT_NEAR(meanVar[p * 2], mean, 1e-5) << p;
    EXPECT_NEAR(meanVar[p * 2 + 1], m2 / kCols, 1e-5 * (m2 / kCols)) << p;
    EXPECT_NEAR(expSum[p], expTotal, 3e-5 * expTotal) << p;

    std::vector<int64_t> order(kCols);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a] > row[b]; });
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(top[p * 8 + k], row[order[k]]) << p << " " << k;
      // The first index holding that value (random rows can repeat a value).
      const int64_t first = std::find(row, row + kCols, row[order[k]]) - row;
      EXPECT_EQ(index[p * 8 + k], float(first)) << p << " " << k;
    }
    float runningSum = 0.0f;
    for (int64_t i = 0; i < kCols; ++i) {
      runningSum += row[i];
      ASSERT_EQ(running[p * kCols + i], runningSum) << p << " " << i;
    }
  }
  for (int64_t c = 0; c < kCols; ++c) {
    float expected = x[c];
    for (int64_t p = 1; p < kRows; ++p)
      expected = std::max(expected, x[p * kCols + c]);
    EXPECT_EQ(columnMax[c], expected) << c;
  }

  // Each compute engine is busy exactly for its instructions' modelled cycles at its clock.
  ASSERT_EQ(result.streams.size(), 5u);
  for (const StreamStats &s : result.streams) {
    if (s.name == "vector")
      EXPECT_NEAR(s.busyNs, RowStatsKernel::busyNs(kernel.vector, Engine::Vector), kPsTolerance);
    if (s.name == "scalar")
      EXPECT_NEAR(s.busyNs, RowStatsKernel::busyNs(kernel.scalar, Engine::Scalar), kPsTolerance);
    if (s.name == "gpsimd")
      EXPECT_NEAR(s.busyNs, RowStatsKernel::busyNs(kernel.gpsimd, Engine::GpSimd), kPsTolerance);
  }
  EXPECT_EQ(result.instructions, 1u + kernel.vector.size() + 1u + 1u + 6u);
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

/// The Scalar engine writes activation_reduce's dst2; the Vector engine reads it with (`ordered`) or without a
/// semaphore between them, after keeping itself busy long enough for the write to have happened: a copy of dst2
/// alone, or (`pastDst2`) a max8 of dst2 and the 7 never-written elements after it.
isa::Program dst2Handoff(bool ordered, bool pastDst2) {
  ProgramBuilder b("dst2");
  const uint32_t written = b.semaphore(), filled = b.semaphore();
  isa::Instruction fill; // on GpSimd: NKI's scalar engine has no memset
  fill.op = Opcode::Memset;
  fill.value = 1.0f;
  fill.dst = sbuf(DType::F32, 0, 64);
  b.add(Engine::GpSimd, fill, {}, {filled});
  isa::Instruction act;
  act.op = Opcode::ActivationReduce;
  act.func = isa::ActFunc::Exp;
  act.scale = 1.0f;
  act.src0 = fill.dst;
  act.dst = sbuf(DType::F32, 256, 64);
  act.dst2 = sbuf(DType::F32, 512, 1);
  b.add(Engine::Scalar, act, {{filled, 1}}, {written}, {"producer.cpp", 3});
  isa::Instruction busy;
  busy.op = Opcode::Memset;
  busy.dst = sbuf(DType::F32, 8192, 4096);
  b.add(Engine::Vector, busy);
  isa::Instruction read;
  read.op = pastDst2 ? Opcode::Max8 : Opcode::TensorCopy;
  read.src0 = sbuf(DType::F32, 512, pastDst2 ? 8 : 1);
  read.dst = sbuf(DType::F32, 1024, pastDst2 ? 8 : 1);
  std::vector<isa::SemWait> waits;
  if (ordered)
    waits.push_back({written, 1});
  b.add(Engine::Vector, read, waits, {}, {"consumer.cpp", 9});
  return b.program;
}

TEST(ReductionPrograms, KernelBugChecksSeeDst2) {
  // Unordered: reading dst2 races with the activation_reduce that writes it.
  {
    HbmImage hbm;
    try {
      simulate(dst2Handoff(false, false), testing::trn2(), hbm);
      ADD_FAILURE() << "expected a race";
    } catch (const Error &e) {
      const std::string message = e.what();
      EXPECT_TRUE(contains(message, "race in kernel 'dst2'")) << message;
      EXPECT_TRUE(contains(message, "(activation_reduce) at producer.cpp:3 writes")) << message;
    }
  }
  // Ordered: clean.
  {
    HbmImage hbm;
    EXPECT_EQ(simulate(dst2Handoff(true, false), testing::trn2(), hbm).instructions, 4u);
  }
  // Ordered: the first element of the read was written (dst2), the other seven never were.
  {
    HbmImage hbm;
    try {
      simulate(dst2Handoff(true, true), testing::trn2(), hbm);
      ADD_FAILURE() << "expected an uninitialised read";
    } catch (const Error &e) {
      const std::string message = e.what();
      EXPECT_TRUE(contains(message, "uninitialised read in kernel 'dst2'")) << message;
      EXPECT_TRUE(contains(message, "(max8) at consumer.cpp:9 reads sbuf")) << message;
      EXPECT_TRUE(contains(message, "bytes [516, 544)")) << message;
    }
  }
}

} // namespace
} // namespace tessera::sim
