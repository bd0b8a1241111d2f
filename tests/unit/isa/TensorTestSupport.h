#pragma once
/// \file
/// What the instruction tests (tests/unit/isa/*InstructionsTest.cpp) share: small memories for isa::execute
/// whose elements the tests address with the access-pattern formula written out (not the library's resolver),
/// and builders for on-chip operands.

#include "InstructionTestSupport.h"

#include "tessera/isa/NumberFormats.h"
#include "tessera/isa/Semantics.h"
#include "tessera/isa/Target.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace tessera::isa::tensortest {

/// The memories every instruction test uses (InstructionTestSupport.h).
using testing::TestMemory;

/// `rows` partitions from `partition0`, `n` contiguous elements at byte `offset` of each.
inline AccessPattern tile(MemSpace space, DType dtype, uint32_t partition0, uint32_t rows, int64_t offset, int64_t n) {
  return AccessPattern::dense(space, dtype, partition0, rows, offset, n);
}

/// An on-chip pattern with explicit free sizes and strides (elements), outermost first.
inline AccessPattern pattern(MemSpace space, DType dtype, uint32_t partition0, uint32_t rows, int64_t offset,
                             std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  AccessPattern ap;
  ap.space = space;
  ap.dtype = dtype;
  ap.partitionStart = partition0;
  ap.partitions = rows;
  ap.offset = offset;
  ap.freeRank = static_cast<uint8_t>(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    ap.sizes[d] = sizes[d];
    ap.strides[d] = strides[d];
  }
  return ap;
}

/// Whether two floats are the same value, NaN equal to NaN (any payload) and -0 distinct from +0.
inline bool sameValue(float a, float b) {
  if (a != a || b != b)
    return a != a && b != b;
  return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace tessera::isa::tensortest
