/// \file
/// rowRelayout: an access pattern as a reshape, index and transpose of a window of the row (the TPU's form of a
/// walk). Each relayout found is checked element by element against the pattern's own walk; each refusal names why.

#include "tessera/isa/RowRelayout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tessera::isa {
namespace {

/// The row elements the pattern walks at offset `offset`, in its order.
std::vector<int64_t> walkOf(const std::vector<int64_t> &pattern, int64_t offset) {
  std::vector<int64_t> out{offset};
  for (std::size_t i = 0; i < pattern.size(); i += 2) {
    std::vector<int64_t> next;
    for (int64_t base : out)
      for (int64_t k = 0; k < pattern[i + 1]; ++k) next.push_back(base + k * pattern[i]);
    out = std::move(next);
  }
  return out;
}

/// The row elements the relayout takes at the offset's constant plus `iterations` of its terms, in the pattern's
/// order: the box's walked dimensions in `walk` order, each at first + moves + its index.
std::vector<int64_t> relayoutOf(const RowRelayout &r, const std::vector<int64_t> &iterations = {}) {
  auto moved = [&](const std::vector<std::pair<std::size_t, int64_t>> &moves) {
    int64_t n = 0;
    for (const auto &[term, multiplier] : moves) n += multiplier * iterations.at(term);
    return n;
  };
  int64_t base = r.start + moved(r.startMoves);
  for (const RowRelayout::Dim &d : r.box)
    if (d.count == 0) base += d.stride * (d.first + moved(d.moves));
  std::vector<int64_t> out{base};
  for (std::size_t b : r.walk) {
    const RowRelayout::Dim &d = r.box[b];
    std::vector<int64_t> next;
    for (int64_t e : out)
      for (int64_t k = 0; k < d.count; ++k) next.push_back(e + d.stride * (d.first + moved(d.moves) + k));
    out = std::move(next);
  }
  return out;
}

RowRelayout relayout(const std::vector<int64_t> &pattern, int64_t offset, int64_t row) {
  auto r = rowRelayout(pattern, MovingOffset{offset, {}}, row);
  if (auto *no = std::get_if<RelayoutRefusal>(&r)) ADD_FAILURE() << "refused: " << no->why;
  return std::get<RowRelayout>(r);
}

std::string refusal(const std::vector<int64_t> &pattern, const MovingOffset &offset, int64_t row,
                    std::optional<RelayoutRefusal::Kind> kind = std::nullopt) {
  auto r = rowRelayout(pattern, offset, row);
  if (!std::holds_alternative<RelayoutRefusal>(r)) return "(accepted)";
  if (kind) EXPECT_EQ(std::get<RelayoutRefusal>(r).kind, *kind) << std::get<RelayoutRefusal>(r).why;
  return std::get<RelayoutRefusal>(r).why;
}

TEST(RowRelayout, TransposeOfEachRowsMatrixIsAPermutation) {
  // The Transpose2D tutorial: [F1 = 8, F2 = 12] per row, walked column by column.
  const std::vector<int64_t> pattern{1, 8, 8, 12};
  const RowRelayout r = relayout(pattern, 0, 96);
  EXPECT_EQ(r.start, 0);
  ASSERT_EQ(r.box.size(), 2u);
  EXPECT_EQ(r.box[0].size, 12);
  EXPECT_EQ(r.box[1].size, 8);
  EXPECT_EQ(r.walk, (std::vector<std::size_t>{1, 0}));
  EXPECT_TRUE(r.isPermutation());
  EXPECT_FALSE(r.isWindow());
  EXPECT_EQ(relayoutOf(r), walkOf(pattern, 0));
}

TEST(RowRelayout, ContiguousPatternIsItsWindow) {
  const RowRelayout r = relayout({16, 4, 1, 16}, 32, 128);
  EXPECT_TRUE(r.isWindow());
  EXPECT_EQ(r.start, 32);
  EXPECT_EQ(r.span(), 64);
}

TEST(RowRelayout, StridedWalkIsAReshapeAndAnIndex) {
  // Every other element from element 1: [128, 2] indexed at 1 on the inner dimension.
  const std::vector<int64_t> pattern{2, 128};
  const RowRelayout r = relayout(pattern, 1, 256);
  ASSERT_EQ(r.box.size(), 2u);
  EXPECT_EQ(r.box[1].count, 0);
  EXPECT_EQ(r.box[1].first, 1);
  EXPECT_FALSE(r.isPermutation());
  EXPECT_EQ(relayoutOf(r), walkOf(pattern, 1));
}

TEST(RowRelayout, AveragePoolWindowsAreOneBoxOfFourDimensions) {
  // AveragePool2D's [H, W] = [8, 12] image walked as 2 x 2 windows: {2W, H/2}, {2, W/2}, {W, 2}, {1, 2}.
  const std::vector<int64_t> pattern{24, 4, 2, 6, 12, 2, 1, 2};
  const RowRelayout r = relayout(pattern, 0, 96);
  EXPECT_EQ(r.box.size(), 4u);
  EXPECT_TRUE(r.isPermutation());
  EXPECT_EQ(relayoutOf(r), walkOf(pattern, 0));
}

TEST(RowRelayout, EveryAcceptedPatternWalksTheSameElements) {
  // Every pattern of up to three dimensions with steps and counts from small sets, at every offset: when a relayout
  // is found, it takes exactly the pattern's elements in the pattern's order.
  const int64_t steps[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24};
  const int64_t counts[] = {1, 2, 3, 4};
  const int64_t row = 96;
  int accepted = 0;
  for (int64_t s0 : steps)
    for (int64_t c0 : counts)
      for (int64_t s1 : steps)
        for (int64_t c1 : counts)
          for (int64_t s2 : {1, 2, 4})
            for (int64_t c2 : {1, 2, 3})
              for (int64_t offset = 0; offset < 24; ++offset) {
                const std::vector<int64_t> pattern{s0, c0, s1, c1, s2, c2};
                auto r = rowRelayout(pattern, MovingOffset{offset, {}}, row);
                if (!std::holds_alternative<RowRelayout>(r)) continue;
                ++accepted;
                const RowRelayout &rel = std::get<RowRelayout>(r);
                ASSERT_EQ(outermostStep(pattern), rel.box.front().stride); // tpu-plan-pallas' window rule
                ASSERT_EQ(relayoutOf(rel), walkOf(pattern, offset))
                    << "pattern {" << s0 << ", " << c0 << "}, {" << s1 << ", " << c1 << "}, {" << s2 << ", " << c2
                    << "} at " << offset;
                for (int64_t e : relayoutOf(rel)) ASSERT_LT(e, row);
              }
  EXPECT_GT(accepted, 10000); // the property is not vacuous
}

TEST(RowRelayout, LoopOffsetsMoveTheWindowOrOneIndex) {
  // Every other element from a loop offset i in {0, 1} (the elementwise plugin), and the transpose of row block j
  // (offset 96 j).
  const std::vector<int64_t> odd{2, 48};
  auto r = rowRelayout(odd, MovingOffset{0, {{1, 2}}}, 96);
  ASSERT_TRUE(std::holds_alternative<RowRelayout>(r));
  const RowRelayout &byElement = std::get<RowRelayout>(r);
  for (int64_t i = 0; i < 2; ++i) EXPECT_EQ(relayoutOf(byElement, {i}), walkOf(odd, i));

  const std::vector<int64_t> transpose{1, 8, 8, 12};
  auto t = rowRelayout(transpose, MovingOffset{0, {{96, 3}}}, 288);
  ASSERT_TRUE(std::holds_alternative<RowRelayout>(t));
  const RowRelayout &byBlock = std::get<RowRelayout>(t);
  EXPECT_EQ(byBlock.startMoves.size(), 1u);
  for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(relayoutOf(byBlock, {j}), walkOf(transpose, 96 * j));
}

TEST(RowRelayout, RefusesWhatIsNotAReshapeOfTheRow) {
  using Kind = RelayoutRefusal::Kind;
  EXPECT_EQ(refusal({0, 4}, {}, 16, Kind::Repeats), "its dimension 0 repeats one element 4 times (a step of 0)");
  EXPECT_EQ(refusal({-1, 4}, {3, {}}, 16, Kind::Backwards), "its dimension 0 walks backwards (a step of -1)");
  EXPECT_EQ(refusal({3, 4, 2, 2}, {}, 16, Kind::Steps),
            "its steps 3 and 2 do not divide one another, so the walk is not a reshape of the row");
  EXPECT_EQ(refusal({4, 2, 4, 2}, {}, 16, Kind::Steps),
            "two of its dimensions step 4 elements, so they walk the same elements");
  // Five elements of a group of four: 4 elements apart, 5 of them at step 1 overlap the next group.
  EXPECT_EQ(refusal({4, 2, 1, 5}, {}, 16, Kind::Crosses),
            "at offset 0, its walk at step 1 takes indices 0 to 4 of groups of 4, so it crosses into the next group");
  // A strided walk whose box reaches past the row: elements 1, 3, ... 15 of 16 are in it, but the box of [8, 2]
  // from element 0 is not at offset 1 when the row has 15.
  EXPECT_EQ(refusal({2, 8}, {1, {}}, 15, Kind::PastTheRow),
            "it is a relayout of elements 0 to 15 of the row, which has 15");
  // A loop offset that carries into the next group: odd elements at offsets 0, 1, 2 (i in [0, 3)).
  EXPECT_EQ(refusal({2, 48}, {0, {{1, 3}}}, 96, Kind::Crosses),
            "at offset 0 and the offsets its loops add, its first element's place in groups of 2 reaches 2, past the "
            "group");
}

} // namespace
} // namespace tessera::isa
