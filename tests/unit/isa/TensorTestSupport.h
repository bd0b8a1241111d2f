#pragma once
/// \file
/// What the instruction tests (tests/unit/isa/*InstructionsTest.cpp) share: small memories for isa::execute
/// whose elements the tests address with the access-pattern formula written out (not the library's resolver),
/// and builders for on-chip operands.

#include "tessera/isa/NumberFormats.h"
#include "tessera/isa/Semantics.h"
#include "tessera/isa/Target.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace tessera::isa::tensortest {

/// SBUF and PSUM with 128 partitions each; PSUM holds 8 banks of 2 KiB per partition, as on trn1/trn2.
struct TestMemory {
  static constexpr uint64_t kPartitions = 128, kSbufPartitionBytes = 16384, kPsumPartitionBytes = 16384;
  std::vector<std::byte> sbuf = std::vector<std::byte>(kPartitions * kSbufPartitionBytes);
  std::vector<std::byte> psum = std::vector<std::byte>(kPartitions * kPsumPartitionBytes);
  uint32_t gpsimdPartitionsPerCore = 0;

  explicit TestMemory(const Target &target) : gpsimdPartitionsPerCore(target.gpsimdPartitionsPerCore) {}
  TestMemory() = default;

  Memories memories() {
    return {.sbuf = sbuf.data(),
            .sbufPartitionBytes = kSbufPartitionBytes,
            .psum = psum.data(),
            .psumPartitionBytes = kPsumPartitionBytes,
            .hbm = {},
            .gpsimdPartitionsPerCore = gpsimdPartitionsPerCore};
  }

  /// Address of element (p, flat free index i) of an on-chip pattern, dimension by dimension.
  std::byte *element(const AccessPattern &ap, int64_t p, int64_t i) {
    int64_t freeOffset = 0; // elements
    for (int d = ap.freeRank - 1; d >= 0; --d) {
      freeOffset += (i % ap.sizes[d]) * ap.strides[d];
      i /= ap.sizes[d];
    }
    std::byte *base = ap.space == MemSpace::Psum ? psum.data() : sbuf.data();
    const uint64_t partitionBytes = ap.space == MemSpace::Psum ? kPsumPartitionBytes : kSbufPartitionBytes;
    return base + (ap.partitionStart + p) * partitionBytes + ap.offset + freeOffset * byteSize(ap.dtype);
  }

  float read(const AccessPattern &ap, int64_t p, int64_t i) {
    float value;
    decode(ap.dtype, element(ap, p, i), &value, 1);
    return value;
  }

  void write(const AccessPattern &ap, int64_t p, int64_t i, float value) {
    encode(ap.dtype, &value, element(ap, p, i), 1);
  }

  /// Writes `values` (partition-major, then flat free index) into `ap`, encoding to its dtype.
  void fill(const AccessPattern &ap, const std::vector<float> &values) {
    size_t k = 0;
    for (int64_t p = 0; p < ap.partitions; ++p)
      for (int64_t i = 0; i < ap.freeElements(); ++i)
        write(ap, p, i, values[k++]);
  }

  /// Writes uniform random values in [lo, hi), rounded to the operand's dtype; returns them.
  std::vector<float> fillRandom(const AccessPattern &ap, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> values;
    for (int64_t p = 0; p < ap.partitions; ++p)
      for (int64_t i = 0; i < ap.freeElements(); ++i)
        values.push_back(roundTo(ap.dtype, dist(rng)));
    fill(ap, values);
    return values;
  }
};

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
