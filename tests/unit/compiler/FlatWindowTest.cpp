// A window of an N-D HBM tensor as the same window of its [rows, columns] matrix (compiler/FlatWindow.h): each fixed
// leading index moves the rows by the rows of the dimensions after it; loop terms and floor divisions keep their
// loops; columns and the last two steps carry over; a 2-D window is unchanged.

#include "tessera/compiler/FlatWindow.h"

#include <gtest/gtest.h>

namespace {

using tessera::compiler::flatWindow;
namespace graph = tsr::graph;

graph::IndexExpr loopTimes(int loop, int64_t k, int64_t constant = 0) {
  graph::IndexExpr e;
  e.terms = {{loop, k}};
  e.constant = constant;
  return e;
}

graph::IndexExpr number(int64_t v) {
  graph::IndexExpr e;
  e.constant = v;
  return e;
}

TEST(FlatWindow, LeadingIndicesMoveTheRows) {
  // x[b, h, 128 * i : 128 * i + 128, 64:576] of [2, 3, 256, 1024]: row (b * 3 + h) * 256 + 128 * i.
  graph::HbmWindow w{.tensor = 1,
                     .offsets = {loopTimes(0, 1), number(2), loopTimes(1, 128), number(64)},
                     .sizes = {1, 1, 128, 512}};
  const graph::HbmWindow f = flatWindow(w, {2, 3, 256, 1024});
  EXPECT_EQ(f.tensor, 1);
  ASSERT_EQ(f.offsets.size(), 2u);
  const std::vector<std::pair<int, int64_t>> rowTerms{{1, 128}, {0, 768}};
  EXPECT_EQ(f.offsets[0].terms, rowTerms);
  EXPECT_EQ(f.offsets[0].constant, 2 * 256);
  EXPECT_EQ(f.offsets[1].constant, 64);
  EXPECT_TRUE(f.offsets[1].terms.empty());
  EXPECT_EQ(f.sizes, (std::vector<int64_t>{128, 512}));
  EXPECT_TRUE(f.steps.empty());
}

TEST(FlatWindow, OneLoopInTwoDimensionsIsOneTerm) {
  // x[t, 2 * t : 2 * t + 4, 0:8] of [4, 16, 8]: row 16 t + 2 t = 18 t.
  graph::HbmWindow w{.tensor = 0, .offsets = {loopTimes(0, 1), loopTimes(0, 2), number(0)}, .sizes = {1, 4, 8}};
  const graph::HbmWindow f = flatWindow(w, {4, 16, 8});
  const std::vector<std::pair<int, int64_t>> rowTerms{{0, 18}};
  EXPECT_EQ(f.offsets[0].terms, rowTerms);
}

TEST(FlatWindow, FloorDivisionsAreScaledAndStepsKept) {
  // x[t / 2, 0 : 8 : 2, 0 : 4 : 3] of [3, 16, 12]: row 16 * floor(t / 2), steps (2, 3).
  graph::IndexExpr half;
  half.floors = {{.terms = {{0, 1}}, .constant = 0, .divisor = 2, .coefficient = 1}};
  graph::HbmWindow w{.tensor = 0, .offsets = {half, number(0), number(0)}, .sizes = {1, 4, 4}, .steps = {1, 2, 3}};
  const graph::HbmWindow f = flatWindow(w, {3, 16, 12});
  ASSERT_EQ(f.offsets[0].floors.size(), 1u);
  EXPECT_EQ(f.offsets[0].floors[0].coefficient, 16);
  EXPECT_EQ(f.offsets[0].floors[0].divisor, 2);
  EXPECT_EQ(f.steps, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f.sizes, (std::vector<int64_t>{4, 4}));
}

TEST(FlatWindow, TwoDimensionalWindowsAreUnchanged) {
  graph::HbmWindow w{.tensor = 0, .offsets = {loopTimes(0, 128), number(3)}, .sizes = {128, 64}};
  const graph::HbmWindow f = flatWindow(w, {512, 64});
  EXPECT_EQ(f.offsets[0].terms, w.offsets[0].terms);
  EXPECT_EQ(f.offsets[1].constant, 3);
  EXPECT_EQ(f.sizes, w.sizes);
}

} // namespace
