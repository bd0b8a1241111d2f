/// checks/Region.h: the rows x bytes the race checks compare, against the bytes themselves. Random VMEM patterns
/// (rows at random pitches, forwards and backwards, of random widths and element sizes) are expanded byte by byte;
/// overlap must be exact, containment exact about whole rows, and an intersection inside both.

#include "checks/Region.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace tessera::sim {
namespace {

using isa::AccessPattern;
using isa::DType;
using isa::MemSpace;

/// `rows` rows of `width` contiguous elements, `pitch` elements apart, from byte `offset` of VMEM.
AccessPattern rowsOf(DType dtype, uint32_t rows, int64_t width, int64_t pitch, int64_t offset) {
  AccessPattern ap = AccessPattern::dense(MemSpace::Vmem, dtype, 0, rows, offset, width);
  ap.partitionStride = pitch;
  return ap;
}

/// Each row's bytes [first, last), as the pattern walks them.
std::vector<std::pair<int64_t, int64_t>> rowBytes(const AccessPattern &ap) {
  const int64_t size = isa::byteSize(ap.dtype);
  std::vector<std::pair<int64_t, int64_t>> rows;
  for (uint32_t r = 0; r < ap.partitions; ++r) {
    const int64_t first = ap.offset + r * ap.partitionStride * size;
    rows.emplace_back(first, first + ap.sizes[0] * size);
  }
  return rows;
}

std::set<int64_t> bytesOf(const AccessPattern &ap) {
  std::set<int64_t> bytes;
  for (const auto &[first, last] : rowBytes(ap))
    for (int64_t b = first; b < last; ++b)
      bytes.insert(b);
  return bytes;
}

std::set<int64_t> bytesOf(const Region &r) {
  std::set<int64_t> bytes;
  for (uint32_t row = 0; row < r.p1 - r.p0; ++row)
    for (int64_t b = r.b0 + row * r.pitch; b < r.b1 + row * r.pitch; ++b)
      bytes.insert(b);
  return bytes;
}

bool meet(const std::set<int64_t> &a, const std::set<int64_t> &b) {
  for (int64_t x : a)
    if (b.contains(x))
      return true;
  return false;
}

/// Whether every row of `inner` lies inside one row of `outer`.
bool rowsInsideRows(const AccessPattern &outer, const AccessPattern &inner) {
  for (const auto &[first, last] : rowBytes(inner)) {
    bool inside = false;
    for (const auto &[f, l] : rowBytes(outer))
      inside |= f <= first && last <= l;
    if (!inside)
      return false;
  }
  return true;
}

AccessPattern randomPattern(std::mt19937 &rng, int64_t sharedPitch) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const DType dtype = pick(0, 1) ? DType::F32 : DType::BF16;
  const auto rows = static_cast<uint32_t>(pick(1, 9));
  const int64_t width = pick(1, 24);
  int64_t pitch = sharedPitch != 0 ? sharedPitch : pick(1, 40);
  if (pick(0, 5) == 0)
    pitch = -pitch; // rows walked backwards
  const int64_t firstRow = pitch < 0 ? (rows - 1) * -pitch * isa::byteSize(dtype) : 0;
  return rowsOf(dtype, rows, width, pitch, firstRow + pick(0, 200));
}

// Random pairs, half of them with one pitch (the rows of one buffer), half with two.
TEST(Region, PitchedRowsAgreeWithTheirBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 4000; ++trial) {
    const int64_t shared = trial % 2 == 0 ? std::uniform_int_distribution<int64_t>(8, 40)(rng) : 0;
    const AccessPattern a = randomPattern(rng, shared), b = randomPattern(rng, shared);
    const Region ra = Region::of(a), rb = Region::of(b);
    const std::set<int64_t> bytesA = bytesOf(a), bytesB = bytesOf(b);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ": rows " << a.partitions << " x " << a.sizes[0]
                                    << " pitch " << a.partitionStride << " at " << a.offset << " vs rows "
                                    << b.partitions << " x " << b.sizes[0] << " pitch " << b.partitionStride
                                    << " at " << b.offset);
    ASSERT_EQ(bytesOf(ra), bytesA);
    ASSERT_EQ(ra.firstByte(), *bytesA.begin());
    ASSERT_EQ(ra.lastByte(), *bytesA.rbegin() + 1);
    const bool overlap = meet(bytesA, bytesB);
    ASSERT_EQ(ra.overlaps(rb), overlap);
    ASSERT_EQ(rb.overlaps(ra), overlap);
    // Containment: never claimed wrongly; exact where each row of one lies inside a row of the other.
    const bool subset = std::includes(bytesA.begin(), bytesA.end(), bytesB.begin(), bytesB.end());
    if (ra.contains(rb)) {
      ASSERT_TRUE(subset);
    }
    const bool oneRun = !ra.pitched(); // a single run of bytes holds whatever lies between its ends
    if (rowsInsideRows(a, b) || (oneRun && subset)) {
      ASSERT_TRUE(ra.contains(rb));
    }
    if (!overlap)
      continue;
    const std::set<int64_t> both = bytesOf(ra.intersection(rb));
    ASSERT_FALSE(both.empty());
    ASSERT_TRUE(std::includes(bytesA.begin(), bytesA.end(), both.begin(), both.end()));
    ASSERT_TRUE(std::includes(bytesB.begin(), bytesB.end(), both.begin(), both.end()));
  }
}

// Column windows of one [16, 128] f32 buffer: disjoint ones never overlap, however long the buffer; the shared
// columns of overlapping ones are found in every row.
TEST(Region, ColumnWindowsOfOneBuffer) {
  const Region left = Region::of(rowsOf(DType::F32, 16, 64, 128, 0));
  const Region right = Region::of(rowsOf(DType::F32, 16, 64, 128, 64 * 4));
  EXPECT_FALSE(left.overlaps(right));
  EXPECT_EQ(left.lastByte(), 15 * 512 + 256); // the extents interleave
  const Region wider = Region::of(rowsOf(DType::F32, 16, 72, 128, 0));
  ASSERT_TRUE(wider.overlaps(right));
  const Region both = wider.intersection(right);
  EXPECT_EQ(both.p1 - both.p0, 16u);
  EXPECT_EQ(both.b0, 256);
  EXPECT_EQ(both.b1, 288);
  EXPECT_EQ(both.pitch, 512);
  EXPECT_TRUE(wider.contains(left));
  EXPECT_FALSE(left.contains(wider));
  // A whole dense buffer is one run of bytes, and contains every window.
  const Region whole = Region::of(rowsOf(DType::F32, 16, 128, 128, 0));
  EXPECT_FALSE(whole.pitched());
  EXPECT_TRUE(whole.contains(left) && whole.contains(right));
  // A window of VMEM never overlaps the same bytes of SMEM.
  AccessPattern smem = rowsOf(DType::F32, 16, 64, 128, 0);
  smem.space = MemSpace::Smem;
  EXPECT_FALSE(Region::of(smem).overlaps(left));
}

} // namespace
} // namespace tessera::sim
