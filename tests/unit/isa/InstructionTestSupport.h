#pragma once
/// \file
/// What the per-group instruction tests (tests/unit/isa/*InstructionsTest.cpp) share: small memories that
/// isa::execute can run on, with element access written out from the address formula of Semantics.h; access
/// patterns; float comparisons that treat NaN and infinities exactly; the NeuronCore targets to check costs on;
/// and the streaming cost formula of docs/targets.md "Documented instruction costs" recomputed from a target's
/// coefficients.

#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/NumberFormats.h"
#include "tessera/isa/Semantics.h"
#include "tessera/isa/Target.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tessera::isa::testing {

/// SBUF and PSUM with 128 partitions (SBUF smaller than a real core's; PSUM 8 banks of 2 KiB per partition, as
/// on every NeuronCore), a TPU core's VMEM and SMEM (much smaller than a real core's), HBM tensors, and the GpSimd
/// core width local_gather reads. Every instruction test (tests/unit/isa/*InstructionsTest.cpp) uses this one.
struct TestMemory {
  static constexpr uint64_t kPartitions = 128, kSbufPartitionBytes = 16384, kPsumPartitionBytes = 16384;
  static constexpr uint64_t kVmemBytes = 1 << 20, kSmemBytes = 1 << 14;
  std::vector<std::byte> sbuf = std::vector<std::byte>(kPartitions * kSbufPartitionBytes);
  std::vector<std::byte> psum = std::vector<std::byte>(kPartitions * kPsumPartitionBytes);
  std::vector<std::byte> vmem = std::vector<std::byte>(kVmemBytes);
  std::vector<std::byte> smem = std::vector<std::byte>(kSmemBytes);
  std::vector<std::vector<std::byte>> hbm;
  std::vector<std::byte *> hbmBases;
  uint32_t gpsimdPartitionsPerCore = 0;

  TestMemory() = default;
  explicit TestMemory(const Target &target) : gpsimdPartitionsPerCore(target.gpsimdPartitionsPerCore) {}

  /// A new HBM tensor of `bytes`; returns its index (AccessPattern::tensor).
  int32_t addTensor(size_t bytes) {
    hbm.emplace_back(bytes);
    hbmBases.clear();
    for (auto &t : hbm)
      hbmBases.push_back(t.data());
    return static_cast<int32_t>(hbm.size() - 1);
  }

  Memories memories() {
    return {.sbuf = sbuf.data(),
            .sbufPartitionBytes = kSbufPartitionBytes,
            .psum = psum.data(),
            .psumPartitionBytes = kPsumPartitionBytes,
            .hbm = hbmBases,
            .vmem = vmem.data(),
            .vmemBytes = kVmemBytes,
            .smem = smem.data(),
            .smemBytes = kSmemBytes,
            .gpsimdPartitionsPerCore = gpsimdPartitionsPerCore};
  }

  /// Address of element (p, flat free index i), computed dimension by dimension.
  std::byte *element(const AccessPattern &ap, int64_t p, int64_t i) {
    int64_t freeOffset = 0; // elements
    for (int d = ap.freeRank - 1; d >= 0; --d) {
      freeOffset += (i % ap.sizes[d]) * ap.strides[d];
      i /= ap.sizes[d];
    }
    const int64_t size = byteSize(ap.dtype);
    switch (ap.space) {
    case MemSpace::Hbm: return hbm[ap.tensor].data() + (ap.offset + p * ap.partitionStride + freeOffset) * size;
    case MemSpace::Sbuf:
      return sbuf.data() + (ap.partitionStart + p) * kSbufPartitionBytes + ap.offset + freeOffset * size;
    case MemSpace::Psum:
      return psum.data() + (ap.partitionStart + p) * kPsumPartitionBytes + ap.offset + freeOffset * size;
    case MemSpace::Vmem: return vmem.data() + ap.offset + (p * ap.partitionStride + freeOffset) * size;
    case MemSpace::Smem: return smem.data() + ap.offset + (p * ap.partitionStride + freeOffset) * size;
    }
    return nullptr;
  }

  float read(const AccessPattern &ap, int64_t p, int64_t i) {
    float value;
    decode(ap.dtype, element(ap, p, i), &value, 1);
    return value;
  }

  /// Encodes `value` into element (p, i).
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

  /// The raw bytes of element (p, i).
  std::vector<std::byte> bytesOf(const AccessPattern &ap, int64_t p, int64_t i) {
    std::byte *e = element(ap, p, i);
    return {e, e + byteSize(ap.dtype)};
  }

  /// Every element, partition-major then row-major.
  std::vector<float> readAll(const AccessPattern &ap) {
    std::vector<float> values;
    for (int64_t p = 0; p < ap.partitions; ++p)
      for (int64_t i = 0; i < ap.freeElements(); ++i)
        values.push_back(read(ap, p, i));
    return values;
  }

  /// Writes `values` (partition-major) into `ap`, rounded to its dtype; returns what was stored.
  std::vector<float> write(const AccessPattern &ap, std::vector<float> values) {
    size_t k = 0;
    for (int64_t p = 0; p < ap.partitions; ++p)
      for (int64_t i = 0; i < ap.freeElements(); ++i, ++k) {
        values[k] = roundTo(ap.dtype, values[k]);
        encode(ap.dtype, &values[k], element(ap, p, i), 1);
      }
    return values;
  }

  /// Writes random values in [lo, hi), representable in the operand's dtype, to every element.
  std::vector<float> fillRandom(const AccessPattern &ap, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> values(static_cast<size_t>(ap.partitions * ap.freeElements()));
    for (float &v : values)
      v = dist(rng);
    return write(ap, std::move(values));
  }

  /// Fills the bytes `ap` spans with a pattern, so that a test notices elements an instruction did not write.
  void poison(const AccessPattern &ap) {
    const float nan = std::nanf("");
    for (int64_t p = 0; p < ap.partitions; ++p)
      for (int64_t i = 0; i < ap.freeElements(); ++i)
        encode(ap.dtype, &nan, element(ap, p, i), 1);
  }
};

/// A [rows x n] dense pattern in `space`, `offset` bytes into each partition from partition `p0`.
inline AccessPattern tile(MemSpace space, DType dtype, uint32_t p0, uint32_t rows, int64_t offset, int64_t n) {
  return AccessPattern::dense(space, dtype, p0, rows, offset, n);
}

inline AccessPattern sbuf(DType dtype, uint32_t p0, uint32_t rows, int64_t offset, int64_t n) {
  return tile(MemSpace::Sbuf, dtype, p0, rows, offset, n);
}

/// An SBUF pattern with explicit free sizes and strides (in elements).
inline AccessPattern strided(DType dtype, uint32_t p0, uint32_t rows, int64_t offset, std::vector<int64_t> sizes,
                             std::vector<int64_t> strides) {
  AccessPattern ap = AccessPattern::dense(MemSpace::Sbuf, dtype, p0, rows, offset, 1);
  ap.freeRank = static_cast<uint8_t>(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    ap.sizes[d] = sizes[d];
    ap.strides[d] = strides[d];
  }
  return ap;
}

/// The same bits, or both NaN.
inline bool sameFloat(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y;
}

/// `actual` equals `expected` up to `ulps` units in the last place of FP32; NaN, infinities and signed zeros
/// must match exactly.
inline ::testing::AssertionResult closeTo(float expected, float actual, float ulps) {
  if (sameFloat(expected, actual))
    return ::testing::AssertionSuccess();
  const bool special = std::isnan(expected) || std::isnan(actual) || std::isinf(expected) || std::isinf(actual);
  const float ulp = std::nextafter(std::fabs(expected), INFINITY) - std::fabs(expected);
  if (!special && std::fabs(expected - actual) <= ulps * ulp)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected << ", got " << actual;
}

/// `actual` (decoded from `dtype`) is `expected` rounded to `dtype`, allowing the rounding of a value a few FP32
/// ulps away (a transcendental result computed in a different order can land on the other side of a tie).
inline ::testing::AssertionResult roundsTo(DType dtype, float expected, float actual, float ulps = 0) {
  if (sameFloat(roundTo(dtype, expected), actual))
    return ::testing::AssertionSuccess();
  if (ulps > 0 && std::isfinite(expected)) {
    const float ulp = std::nextafter(std::fabs(expected), INFINITY) - std::fabs(expected);
    for (float nudged : {expected - ulps * ulp, expected + ulps * ulp})
      if (sameFloat(roundTo(dtype, nudged), actual))
        return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << expected << " rounded to " << name(dtype) << " ("
                                       << roundTo(dtype, expected) << "), got " << actual;
}

/// Every NeuronCore target in the search path (trn1, trn2, and trn3 where it exists).
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

} // namespace tessera::isa::testing
