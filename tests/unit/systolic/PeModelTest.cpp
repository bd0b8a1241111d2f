/// The PE model cycle by cycle: the skewed wavefront reaches PE (i, j) i + j cycles after PE (0, 0), the
/// stationary operand takes `rows` cycles to shift in, folds run back to back, and the per-cycle counts that the
/// animation shows add up to the totals.

#include "tessera/systolic/PeModel.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tessera::systolic {
namespace {

struct Trace {
  std::vector<CycleView> views;
  std::vector<std::vector<PeActivity>> activity;
};

Result run(const ArrayConfig &config, const Gemm &gemm, Trace &trace) {
  PeModelOptions options;
  options.observer = [&](const CycleView &v) {
    trace.views.push_back(v);
    trace.activity.push_back(*v.activity);
  };
  return runPeModel(config, gemm, options);
}

ArrayConfig array(int64_t rows, int64_t cols, Dataflow dataflow) {
  ArrayConfig config;
  config.rows = rows, config.cols = cols, config.dataflow = dataflow;
  return config;
}

TEST(PeModel, WavefrontReachesEachPeOnItsDiagonal) {
  for (Dataflow d : {Dataflow::WeightStationary, Dataflow::OutputStationary, Dataflow::InputStationary}) {
    SCOPED_TRACE(std::string(shortName(d)));
    const int64_t R = 5, C = 7;
    Trace trace;
    run(array(R, C, d), {20, 20, 20}, trace);
    // ws/is start streaming after R cycles of loading.
    const int64_t start = d == Dataflow::OutputStationary ? 0 : R;
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) {
        int64_t first = -1;
        for (size_t c = 0; c < trace.views.size() && first < 0; ++c)
          if (trace.activity[c][size_t(i * C + j)] == PeActivity::Mac) first = trace.views[c].foldCycle;
        EXPECT_EQ(first, start + i + j) << "PE (" << i << ", " << j << ")";
      }
  }
}

TEST(PeModel, WeightsShiftInBeforeAnyMac) {
  const int64_t R = 4, C = 3;
  Trace trace;
  run(array(R, C, Dataflow::WeightStationary), {6, 3, 4}, trace);
  for (int64_t c = 0; c < R; ++c) {
    EXPECT_EQ(trace.views[size_t(c)].macs, 0);
    EXPECT_EQ(trace.views[size_t(c)].sramReads, C) << "one row of weights per cycle";
    // Rows 0..c hold a weight (row c just received the block's last row), the rest nothing yet.
    for (int64_t i = 0; i < R; ++i)
      EXPECT_EQ(trace.activity[size_t(c)][size_t(i * C)], i <= c ? PeActivity::Load : PeActivity::Idle);
  }
}

TEST(PeModel, FoldsRunBackToBackInScaleSimOrder) {
  // os, 2x2 array, M = 3 (2 row folds), N = 5 (3 column folds), K = 4: 6 folds of 2 + 2 + 4 - 2 = 6 cycles.
  Trace trace;
  Result r = run(array(2, 2, Dataflow::OutputStationary), {3, 5, 4}, trace);
  ASSERT_EQ(int64_t(trace.views.size()), r.computeCycles);
  EXPECT_EQ(r.computeCycles, 36);
  for (size_t c = 0; c < trace.views.size(); ++c) {
    const CycleView &v = trace.views[c];
    EXPECT_EQ(v.cycle, int64_t(c));
    EXPECT_EQ(v.fold, int64_t(c) / 6);
    EXPECT_EQ(v.foldCycle, int64_t(c) % 6);
    EXPECT_EQ(v.colFold, v.fold / 2); // column folds outer
    EXPECT_EQ(v.rowFold, v.fold % 2);
  }
}

TEST(PeModel, PerCycleCountsAddUpToTheTotals) {
  for (Dataflow d : {Dataflow::WeightStationary, Dataflow::OutputStationary, Dataflow::InputStationary}) {
    Trace trace;
    Result r = run(array(3, 4, d), {10, 9, 11}, trace);
    int64_t macs = 0, reads = 0, writes = 0;
    for (const CycleView &v : trace.views) macs += v.macs, reads += v.sramReads, writes += v.sramWrites;
    EXPECT_EQ(macs, r.macs);
    EXPECT_EQ(reads, r.ifmap.sramReads + r.filter.sramReads);
    EXPECT_EQ(writes, r.ofmap.sramWrites);
  }
}

TEST(PeModel, UnusedPesPassBubblesForTheWholeFold) {
  // A 2x2 GEMM slice on a 5x7 array still takes the full array's fill and drain.
  Trace trace;
  Result r = run(array(5, 7, Dataflow::WeightStationary), {4, 2, 2}, trace);
  EXPECT_EQ(r.computeCycles, 2 * 5 + 7 + 4 - 2);
  EXPECT_EQ(r.usedPeFolds, 4);
  bool sawBubble = false;
  for (const auto &frame : trace.activity)
    for (PeActivity a : frame) sawBubble |= a == PeActivity::Bubble;
  EXPECT_TRUE(sawBubble);
  // The last cycle: only the bottom-right PE still holds a token (the last partial sum leaving).
  const auto &last = trace.activity.back();
  for (size_t p = 0; p + 1 < last.size(); ++p) EXPECT_EQ(last[p], PeActivity::Idle) << p;
  EXPECT_EQ(last.back(), PeActivity::Bubble);
}

TEST(PeModel, CountsDoNotDependOnCheckingValues) {
  PeModelOptions fast;
  fast.checkValues = false;
  Result a = runPeModel(array(8, 8, Dataflow::InputStationary), {30, 20, 10});
  Result b = runPeModel(array(8, 8, Dataflow::InputStationary), {30, 20, 10}, fast);
  EXPECT_TRUE(a.valuesChecked);
  EXPECT_FALSE(b.valuesChecked);
  EXPECT_EQ(a.computeCycles, b.computeCycles);
  EXPECT_EQ(a.ofmap, b.ofmap);
}

TEST(PeModel, ThirtyTwoSquaredArraySixtyFourCubed) {
  // The size the brief names (bench/SystolicBench.cpp times it: about a millisecond).
  Result r = runPeModel(array(32, 32, Dataflow::WeightStationary), {64, 64, 64});
  EXPECT_EQ(r.computeCycles, 4 * (64 + 32 + 64 - 2));
  EXPECT_TRUE(r.valuesChecked);
}

} // namespace
} // namespace tessera::systolic
