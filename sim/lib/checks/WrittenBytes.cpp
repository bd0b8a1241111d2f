#include "checks/WrittenBytes.h"

#include <algorithm>
#include <array>
#include <bit>

namespace tessera::sim {
namespace {

using isa::AccessPattern;

/// Calls `f(row, first, last)` for each run of contiguous bytes `ap` touches, until `f` returns false; returns
/// false when it stopped early. Runs may repeat bytes (a stride-0 dimension is walked once). Strides may be
/// negative: the set of bytes is the same walked backwards.
template <class F> bool forEachRun(const AccessPattern &ap, F &&f) {
  const int64_t elementBytes = isa::byteSize(ap.dtype);
  // The free dimensions as (size, stride in bytes), outermost first, without the ones that do not move, with
  // negative strides turned around and with each dimension folded into its inner neighbour where they are one
  // contiguous walk.
  std::array<int64_t, AccessPattern::kMaxFreeDims> size{}, stride{};
  int64_t flip = 0; // bytes the start moves back by, from turned-around dimensions
  unsigned rank = 0;
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    int64_t n = ap.sizes[d], s = ap.strides[d] * elementBytes;
    if (n <= 1 || s == 0)
      continue;
    if (s < 0) {
      flip += (n - 1) * s;
      s = -s;
    }
    size[rank] = n;
    stride[rank] = s;
    ++rank;
  }
  // Fold from the inside out: an outer dimension whose stride is the inner one's whole span continues it.
  int64_t runBytes = elementBytes;
  if (rank > 0 && stride[rank - 1] == elementBytes) {
    runBytes = size[rank - 1] * elementBytes;
    --rank;
    while (rank > 0 && stride[rank - 1] == runBytes) {
      runBytes *= size[rank - 1];
      --rank;
    }
  }
  // A flat memory (HBM, VMEM, SMEM) is one row of the bitmap, its rows partitionStride elements apart in it.
  const bool flat = ap.flat();
  const int64_t start = (ap.space == isa::MemSpace::Hbm ? ap.offset * elementBytes : ap.offset) + flip;
  std::array<int64_t, AccessPattern::kMaxFreeDims> at{};
  for (uint32_t p = 0; p < ap.partitions; ++p) {
    const uint32_t row = flat ? 0 : ap.partitionStart + p;
    const int64_t rowStart = start + (flat ? int64_t{p} * ap.partitionStride * elementBytes : 0);
    at.fill(0);
    for (;;) {
      int64_t first = rowStart;
      for (unsigned d = 0; d < rank; ++d)
        first += at[d] * stride[d];
      if (!f(row, first, first + runBytes))
        return false;
      unsigned d = rank;
      while (d > 0 && ++at[d - 1] == size[d - 1])
        at[--d] = 0;
      if (d == 0)
        break;
    }
  }
  return true;
}

/// Sets bits [first, last) of a row.
void setBits(uint64_t *row, int64_t first, int64_t last) {
  while (first < last && (first & 63) != 0)
    row[first >> 6] |= uint64_t{1} << (first & 63), ++first;
  for (; first + 64 <= last; first += 64)
    row[first >> 6] = ~uint64_t{0};
  for (; first < last; ++first)
    row[first >> 6] |= uint64_t{1} << (first & 63);
}

/// The first clear bit of [first, last) of a row, or `last` when all are set.
int64_t firstClear(const uint64_t *row, int64_t first, int64_t last) {
  while (first < last) {
    const uint64_t clear = ~row[first >> 6] >> (first & 63);
    if (clear != 0)
      return std::min(last, first + std::countr_zero(clear));
    first = (first | 63) + 1;
  }
  return last;
}

/// The first set bit of [first, last) of a row, or `last` when none is.
int64_t firstSet(const uint64_t *row, int64_t first, int64_t last) {
  while (first < last) {
    const uint64_t set = row[first >> 6] >> (first & 63);
    if (set != 0)
      return std::min(last, first + std::countr_zero(set));
    first = (first | 63) + 1;
  }
  return last;
}

} // namespace

WrittenBytes::WrittenBytes(const isa::Program &program, const isa::Target &target) {
  bitmaps_.resize(kFirstHbmMemory + program.tensors.size());
  auto allocate = [](Bitmap &bitmap, uint64_t rows, uint64_t bytesPerRow) {
    bitmap.wordsPerRow = (bytesPerRow + 63) / 64;
    const size_t words = std::max<size_t>(rows * bitmap.wordsPerRow, 1);
    bitmap.pages = ZeroedPages(words * sizeof(uint64_t));
    bitmap.words = reinterpret_cast<uint64_t *>(bitmap.pages.data());
  };
  allocate(bitmaps_[kSbufMemory], target.partitions, target.sbufBytesPerPartition);
  allocate(bitmaps_[kPsumMemory], target.partitions, target.psumBytesPerPartition);
  allocate(bitmaps_[kVmemMemory], 1, target.tpu.vmemBytes);
  allocate(bitmaps_[kSmemMemory], 1, target.tpu.smemBytes);
  for (size_t t = 0; t < program.tensors.size(); ++t)
    if (program.tensors[t].isOutput)
      allocate(bitmaps_[kFirstHbmMemory + t], 1, static_cast<uint64_t>(program.tensors[t].bytes()));
}

void WrittenBytes::markWritten(const AccessPattern &ap) {
  Bitmap &bitmap = bitmaps_[memoryOf(ap)];
  if (!bitmap.words)
    return;
  forEachRun(ap, [&](uint32_t row, int64_t first, int64_t last) {
    setBits(&bitmap.words[row * bitmap.wordsPerRow], first, last);
    return true;
  });
}

bool WrittenBytes::allWritten(const AccessPattern &ap, Hole &hole) const {
  const Bitmap &bitmap = bitmaps_[memoryOf(ap)];
  if (!bitmap.words)
    return true;
  return forEachRun(ap, [&](uint32_t row, int64_t first, int64_t last) {
    const uint64_t *bits = &bitmap.words[row * bitmap.wordsPerRow];
    const int64_t clear = firstClear(bits, first, last);
    if (clear == last)
      return true;
    hole = {.row = row, .first = clear, .last = firstSet(bits, clear, last)};
    return false;
  });
}

} // namespace tessera::sim
