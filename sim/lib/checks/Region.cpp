#include "checks/Region.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace tessera::sim {
namespace {

/// a / b rounded down and up, for b > 0.
int64_t floorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); }
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

int64_t rowsOf(const Region &r) { return int64_t{r.p1} - r.p0; }

/// A half-open range [first, last) of row numbers or of bytes.
struct Span {
  int64_t first = 0, last = 0;
  bool empty() const { return first >= last; }
};

/// The bytes of row `i` of a flat region (its only row when it is not pitched).
Span rowBytes(const Region &r, int64_t i) { return {r.b0 + i * r.pitch, r.b1 + i * r.pitch}; }

/// The rows of flat region `r` whose bytes meet `bytes`.
Span rowsMeeting(const Region &r, Span bytes) {
  if (!r.pitched())
    return {0, r.b0 < bytes.last && bytes.first < r.b1 ? 1 : 0};
  // Row i meets [x0, x1) when b0 + i P < x1 and b1 + i P > x0.
  return {std::max<int64_t>(0, floorDiv(bytes.first - r.b1, r.pitch) + 1),
          std::min(rowsOf(r), ceilDiv(bytes.last - r.b0, r.pitch))};
}

/// Whether `bytes` lie inside one row of flat region `r`.
bool insideOneRow(const Region &r, Span bytes) {
  if (!r.pitched())
    return r.b0 <= bytes.first && bytes.last <= r.b1;
  // Row i holds [x0, x1) when b0 + i P <= x0 and x1 <= b1 + i P.
  return std::max<int64_t>(0, ceilDiv(bytes.last - r.b1, r.pitch)) <=
         std::min(rowsOf(r) - 1, floorDiv(bytes.first - r.b0, r.pitch));
}

/// Two pitched regions of one pitch: the shifts t for which row i of `a` meets row i - t of `b`.
Span shiftsMeeting(const Region &a, const Region &b) {
  const int64_t pitch = a.pitch;
  return {std::max(floorDiv(b.b0 - a.b1, pitch) + 1, 1 - rowsOf(b)),
          std::min(ceilDiv(b.b1 - a.b0, pitch), rowsOf(a))};
}

/// The first place two flat regions meet: the first row of the one with fewer rows that meets the other, and the
/// first row of the other it meets, as (row of `a`, row of `b`); nothing when they do not meet.
std::optional<std::pair<int64_t, int64_t>> firstMeeting(const Region &a, const Region &b) {
  const bool aFewer = rowsOf(a) <= rowsOf(b);
  const Region &fewer = aFewer ? a : b, &more = aFewer ? b : a;
  for (int64_t i = 0; i < rowsOf(fewer); ++i)
    if (const Span met = rowsMeeting(more, rowBytes(fewer, i)); !met.empty())
      return aFewer ? std::pair{i, met.first} : std::pair{met.first, i};
  return std::nullopt;
}

} // namespace

Region Region::of(const isa::AccessPattern &ap) {
  const MemoryId memory = memoryOf(ap);
  if (ap.space == isa::MemSpace::Hbm) {
    const auto [first, last] = ap.byteExtent();
    return {.memory = memory, .p0 = 0, .p1 = 1, .b0 = first, .b1 = last};
  }
  if (!ap.flat()) {
    const auto [first, last] = ap.byteExtent();
    return {.memory = memory, .p0 = ap.partitionStart, .p1 = ap.partitionStart + ap.partitions, .b0 = first,
            .b1 = last};
  }
  // VMEM/SMEM: row 0's bytes, then every row `pitch` further (rows walked backwards turned around).
  isa::AccessPattern firstRow = ap;
  firstRow.partitions = 1;
  auto [b0, b1] = firstRow.byteExtent();
  const int64_t rows = std::max<int64_t>(1, ap.partitions);
  int64_t pitch = ap.partitionStride * isa::byteSize(ap.dtype);
  if (pitch < 0) {
    b0 += (rows - 1) * pitch;
    b1 += (rows - 1) * pitch;
    pitch = -pitch;
  }
  // Rows that abut or overlap one another are one run of bytes.
  if (rows == 1 || pitch <= b1 - b0)
    return {.memory = memory, .p0 = 0, .p1 = 1, .b0 = b0, .b1 = b1 + (rows - 1) * pitch};
  return {.memory = memory, .p0 = 0, .p1 = static_cast<uint32_t>(rows), .b0 = b0, .b1 = b1, .pitch = pitch};
}

bool Region::pitchedOverlaps(const Region &o) const {
  if (!pitched())
    return !rowsMeeting(o, {b0, b1}).empty();
  if (!o.pitched())
    return !rowsMeeting(*this, {o.b0, o.b1}).empty();
  if (pitch == o.pitch)
    return !shiftsMeeting(*this, o).empty();
  return firstMeeting(*this, o).has_value();
}

bool Region::contains(const Region &o) const {
  if (memory != o.memory)
    return false;
  if (!pitched() && !o.pitched())
    return p0 <= o.p0 && o.p1 <= p1 && b0 <= o.b0 && o.b1 <= b1;
  if (!o.pitched())
    return insideOneRow(*this, {o.b0, o.b1});
  if (!pitched())
    return b0 <= o.firstByte() && o.lastByte() <= b1;
  if (pitch == o.pitch) {
    // Row j of o lies inside row j + s of this one for s in [lo, hi]; some such row must exist for every j.
    const int64_t lo = ceilDiv(o.b1 - b1, pitch), hi = floorDiv(o.b0 - b0, pitch);
    return lo <= hi && lo <= rowsOf(*this) - rowsOf(o) && hi >= 0;
  }
  for (int64_t j = 0; j < rowsOf(o); ++j)
    if (!insideOneRow(*this, rowBytes(o, j)))
      return false;
  return true;
}

Region Region::intersection(const Region &o) const {
  if (!pitched() && !o.pitched())
    return {.memory = memory,
            .p0 = std::max(p0, o.p0),
            .p1 = std::min(p1, o.p1),
            .b0 = std::max(b0, o.b0),
            .b1 = std::min(b1, o.b1)};
  if (pitched() && o.pitched() && pitch == o.pitch) {
    // With the first shift t at which they meet, row i of this one meets row i - t of o in i P + [lo, hi).
    const int64_t t = shiftsMeeting(*this, o).first;
    const int64_t i0 = std::max<int64_t>(0, t), i1 = std::min(rowsOf(*this), rowsOf(o) + t);
    const int64_t lo = std::max(b0, o.b0 - t * pitch), hi = std::min(b1, o.b1 - t * pitch);
    return {.memory = memory,
            .p0 = 0,
            .p1 = static_cast<uint32_t>(i1 - i0),
            .b0 = i0 * pitch + lo,
            .b1 = i0 * pitch + hi,
            .pitch = i1 - i0 > 1 ? pitch : 0};
  }
  const auto [i, j] = firstMeeting(*this, o).value_or(std::pair<int64_t, int64_t>{0, 0});
  const Span a = rowBytes(*this, i), b = rowBytes(o, j);
  return {.memory = memory, .p0 = 0, .p1 = 1, .b0 = std::max(a.first, b.first), .b1 = std::min(a.last, b.last)};
}

} // namespace tessera::sim
