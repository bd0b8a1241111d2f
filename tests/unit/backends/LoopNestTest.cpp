/// \file
/// LoopNest: a loop's iterations folded back into `for` loops only where they differ by integers that grow by a
/// fixed step; runs that break the pattern stay apart; the loose form (engines dropped) is used only where it folds
/// more; a program order that interleaves iterations gives no nest, and kernelOrder puts it back in turn.

#include "LoopNest.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tessera::backends {
namespace {

Lines join(std::initializer_list<Lines> parts) {
  Lines out;
  for (const Lines &p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Lines iteration(int64_t k) {
  return {fmt::format("nisa.dma_copy(dst=t0, src=a[{}:{}, 0:512])", 128 * k, 128 * k + 128),
          "nisa.tensor_scalar(dst=t1, data=t0, op0=nl.multiply, operand0=0.5)"};
}

TEST(FoldIterations, AffineOffsetsBecomeOneLoop) {
  const Lines folded = foldIterations({iteration(0), iteration(1), iteration(2), iteration(3)}, "i");
  const Lines expected{"for i in range(4):", "    nisa.dma_copy(dst=t0, src=a[128*i + 0:128*i + 128, 0:512])",
                       "    nisa.tensor_scalar(dst=t1, data=t0, op0=nl.multiply, operand0=0.5)"};
  EXPECT_EQ(folded, expected);
  EXPECT_EQ(withoutZeroTerms(folded[1]), "    nisa.dma_copy(dst=t0, src=a[128*i:128*i + 128, 0:512])");
}

TEST(FoldIterations, AFirstIterationThatDiffersIsPeeled) {
  Lines first = iteration(0);
  first.push_back("nisa.nc_matmul(dst=t2, stationary=t0, moving=t1, accumulate=False)");
  auto later = [](int64_t k) {
    Lines l = iteration(k);
    l.push_back("nisa.nc_matmul(dst=t2, stationary=t0, moving=t1, accumulate=True)");
    return l;
  };
  const Lines folded = foldIterations({first, later(1), later(2)}, "k");
  ASSERT_EQ(folded.size(), first.size() + 1 + 3);
  EXPECT_EQ(folded[first.size()], "for k in range(1, 3):");
  EXPECT_EQ(withoutZeroTerms(folded[first.size() + 1]), "    nisa.dma_copy(dst=t0, src=a[128*k:128*k + 128, 0:512])");
}

TEST(FoldIterations, OffsetsThatDoNotGrowEvenlyStayUnrolled) {
  Lines third = iteration(5); // 0, 128, 640: not affine
  const Lines folded = foldIterations({iteration(0), iteration(1), third}, "i");
  EXPECT_EQ(folded[0], "for i in range(2):");
  EXPECT_EQ(folded.back(), third.back());
  EXPECT_EQ(folded[folded.size() - 2], third.front());
}

TEST(FoldIterations, StringsCommentsAndFloatsAreNotOffsets) {
  const Lines a{"# add.cpp:12", "nisa.memset(dst=t0, value=1.5, name=\"x1\")"};
  const Lines b{"# add.cpp:12", "nisa.memset(dst=t0, value=2.5, name=\"x1\")"};
  const Lines folded = foldIterations({a, b}, "i"); // 1.5 and 2.5 differ: no loop
  EXPECT_EQ(folded, join({a, b}));
  const Lines c{"# add.cpp:12", "nisa.memset(dst=t0, value=1.5, name=\"x2\")"};
  EXPECT_EQ(foldIterations({a, c}, "i"), join({a, c})); // the string differs
}

TEST(FoldIterations, TheLooseFormOnlyWhereItFoldsMore) {
  auto on = [](const char *engine, int64_t k) {
    return Lines{fmt::format("nisa.tensor_copy(dst=t1, src=t0[0:128, {}:{}], engine=nisa.engine.{})", 64 * k,
                             64 * k + 64, engine)};
  };
  auto dropEngine = [](const std::string &line) {
    const size_t at = line.find(", engine=");
    return at == std::string::npos ? line : line.substr(0, at) + ")";
  };
  // The same engine throughout: the exact lines fold, engines kept.
  Lines same = foldIterations({on("vector", 0), on("vector", 1)}, "i", dropEngine);
  EXPECT_NE(same[1].find("engine=nisa.engine.vector"), std::string::npos);
  // Engines alternate: only the loose form folds, and the loop leaves the engine to NKI.
  Lines mixed = foldIterations({on("vector", 0), on("scalar", 1), on("vector", 2)}, "i", dropEngine);
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_EQ(mixed[0], "for i in range(3):");
  EXPECT_EQ(mixed[1].find("engine="), std::string::npos);
}

TEST(FoldIterations, EmptyIterationsMakeNoEmptyLoop) {
  EXPECT_TRUE(foldIterations({{}, {}, {}}, "i").empty());
}

TEST(WithoutZeroTerms, OnlyWholeZeroTerms) {
  EXPECT_EQ(withoutZeroTerms("a[128*i + 0:128*i + 128]"), "a[128*i:128*i + 128]");
  EXPECT_EQ(withoutZeroTerms("x = i + 0.5"), "x = i + 0.5");
  EXPECT_EQ(withoutZeroTerms("x = i + 05"), "x = i + 05");
}

/// A program of three steps over one loop (scf.for record 0) with two iterations, in the order given.
struct TwoIterations {
  compiler::Provenance prov;
  std::vector<std::vector<int64_t>> iterations;
  std::vector<Step> steps;
  explicit TwoIterations(std::vector<int64_t> order) {
    prov.tileOps.resize(2);
    prov.tileOps[0].op = "scf.for";
    prov.tileOps[0].trips = 2;
    prov.tileOps[1].op = "tile.load";
    prov.tileOps[1].loop = 0;
    iterations.reserve(order.size());
    for (int64_t k : order) iterations.push_back({k});
    for (const auto &it : iterations) steps.push_back(Step{.tileOp = 1, .iterations = &it});
  }
};

TEST(LoopNest, FollowsTheKernelsLoops) {
  TwoIterations p({0, 0, 1});
  std::optional<std::vector<LoopNode>> nest = loopNest(p.steps, p.prov);
  ASSERT_TRUE(nest);
  ASSERT_EQ(nest->size(), 1u);
  EXPECT_EQ((*nest)[0].loop, 0);
  ASSERT_EQ((*nest)[0].iterations.size(), 2u);
  EXPECT_EQ((*nest)[0].iterations[0].size(), 2u);
  EXPECT_EQ((*nest)[0].iterations[1].size(), 1u);
}

TEST(LoopNest, AnInterleavedOrderHasNone) {
  TwoIterations p({0, 1, 0}); // a scheduled program: iteration 0 resumes after 1 started
  EXPECT_FALSE(loopNest(p.steps, p.prov));
}

TEST(KernelOrder, PutsAScheduledOrderBackInTurn) {
  TwoIterations p({0, 1, 0}); // the scheduler ran iteration 1's load between iteration 0's two
  const std::vector<Step> sorted = kernelOrder(p.steps, p.prov);
  ASSERT_EQ(sorted.size(), 3u);
  EXPECT_EQ(sorted[0].iterations, &p.iterations[0]);
  EXPECT_EQ(sorted[1].iterations, &p.iterations[2]); // stable: iteration 0's steps in their order
  EXPECT_EQ(sorted[2].iterations, &p.iterations[1]);
  ASSERT_TRUE(loopNest(sorted, p.prov));
}

} // namespace
} // namespace tessera::backends
