#pragma once
/// \file
/// What ElementwiseInstructionsTest and DataMovementInstructionsTest share: small memories isa::execute can run
/// on, with element addresses written out from the formula of Semantics.h; access patterns; independent
/// references for the output conversions (BF16 and integer rounding); and the NeuronCore targets whose cost
/// coefficients the expected cycle counts are recomputed from.

#include "InstructionTestSupport.h"

#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/NumberFormats.h"
#include "tessera/isa/Semantics.h"
#include "tessera/isa/Target.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tessera::isa::elementwise_testing {

/// The memories every instruction test uses (InstructionTestSupport.h).
using testing::TestMemory;

/// A dense [rows x n] pattern `offset` bytes into each partition from partition `p0`.
inline AccessPattern dense(MemSpace space, DType dtype, uint32_t p0, uint32_t rows, int64_t offset, int64_t n) {
  return AccessPattern::dense(space, dtype, p0, rows, offset, n);
}

/// An on-chip pattern with explicit free sizes and strides (in elements).
inline AccessPattern strided(MemSpace space, DType dtype, uint32_t p0, uint32_t rows, int64_t offset,
                             std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  AccessPattern ap = AccessPattern::dense(space, dtype, p0, rows, offset, 1);
  ap.freeRank = static_cast<uint8_t>(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    ap.sizes[d] = sizes[d];
    ap.strides[d] = strides[d];
  }
  return ap;
}

/// Rows [row0, row0 + rows) x columns [col0, col0 + cols) of a row-major HBM tensor with `rowLength` columns.
inline AccessPattern hbmTile(int32_t tensor, DType dtype, int64_t rowLength, int64_t row0, uint32_t rows,
                             int64_t col0, int64_t cols) {
  AccessPattern ap = AccessPattern::dense(MemSpace::Hbm, dtype, 0, rows, row0 * rowLength + col0, cols);
  ap.tensor = tensor;
  ap.partitionStride = rowLength;
  return ap;
}

inline uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

inline float floatOf(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// BF16 round to nearest even, written out on the FP32 bits (NaN stays NaN): the reference for BF16 outputs.
inline float bf16Reference(float f) {
  if (std::isnan(f))
    return f;
  const uint32_t bits = bitsOf(f);
  const uint32_t lsb = (bits >> 16) & 1u;
  return floatOf((bits + 0x7FFFu + lsb) & 0xFFFF0000u);
}

/// Float to an integer type: round to nearest even, saturate, NaN to 0 (the convention DType.h states).
template <typename Int> double integerReference(float f) {
  if (std::isnan(f))
    return 0;
  // The default rounding mode rounds ties to even; + 0.0 turns a -0 into the integer 0.
  const double rounded = std::nearbyint(static_cast<double>(f)) + 0.0;
  return std::clamp(rounded, static_cast<double>(std::numeric_limits<Int>::min()),
                    static_cast<double>(std::numeric_limits<Int>::max()));
}

/// The same bits, or both NaN.
inline bool sameFloat(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return bitsOf(a) == bitsOf(b);
}

/// Compares element by element with sameFloat, naming the first few mismatches.
inline ::testing::AssertionResult sameValues(const std::vector<float> &expected, const std::vector<float> &actual) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "expected " << expected.size() << " values, got " << actual.size();
  int shown = 0;
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  for (size_t k = 0; k < expected.size(); ++k)
    if (!sameFloat(expected[k], actual[k])) {
      if (shown == 0)
        result = ::testing::AssertionFailure();
      if (shown++ < 5)
        result << "[" << k << "] expected " << expected[k] << ", got " << actual[k] << "; ";
    }
  return result;
}

/// The NeuronCore targets in the search path (trn1, trn2, and trn3 where it exists).
inline std::vector<Target> neuronCoreTargets() {
  std::vector<Target> found;
  for (Target &t : Target::all())
    if (t.family == "neuroncore")
      found.push_back(std::move(t));
  return found;
}

/// The Vector/Scalar/GpSimd cost of docs/targets.md, from `target`'s coefficients: GpSimd start-up on that engine,
/// plus the fixed access overhead, plus the streaming cycles with the minimum initiation interval as a floor.
inline uint64_t expectedStreamingCycles(const Target &target, Engine engine, uint64_t streaming) {
  const CostModel &c = target.cost;
  const uint64_t startup = engine == Engine::GpSimd ? c.gpsimdStartupCycles : 0;
  return startup + c.accessOverheadCycles + std::max<uint64_t>(c.minInitiationCycles, streaming);
}

} // namespace tessera::isa::elementwise_testing
