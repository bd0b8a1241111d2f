#pragma once
/// \file
/// An access pattern's free dimensions as [step, count] pairs (NKI's .ap() pattern, Tile::ap), flattened
/// (step0, count0, step1, count1, ...), outermost first; and whether a pattern's free dimensions are contiguous.

#include "tessera/isa/Program.h"

#include <span>

namespace tessera::isa {

/// Gives `ap` the free dimensions of `pattern` (flattened [step, count] pairs, at most
/// AccessPattern::kMaxFreeDims of them): steps become strides, counts sizes.
inline void setFreePattern(AccessPattern &ap, std::span<const int64_t> pattern) {
  ap.freeRank = static_cast<uint8_t>(pattern.size() / 2);
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    ap.strides[d] = pattern[2 * d];
    ap.sizes[d] = pattern[2 * d + 1];
  }
}

/// Whether the free dimensions of `ap` walk consecutive elements (row-major, no gaps, no repeats): a backend
/// names such an operand as a [P, F] slice.
inline bool isContiguous(const AccessPattern &ap) {
  int64_t expected = 1;
  for (int d = ap.freeRank - 1; d >= 0; --d) {
    if (ap.sizes[d] != 1 && ap.strides[d] != expected) return false;
    expected *= ap.sizes[d];
  }
  return true;
}

} // namespace tessera::isa
