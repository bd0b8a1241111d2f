/// \file
/// The access rules of engine instructions (see AccessRules.h), every limit read from the target's [access] table.

#include "tessera/isa/AccessRules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace tessera::isa {

uint32_t partitionAlignment(uint32_t count, const Target &target) {
  uint64_t alignment = std::max(1u, target.access.partitionQuadrant);
  while (alignment < count)
    alignment *= 2;
  return static_cast<uint32_t>(alignment);
}

bool accessRulesApply(Engine engine, const AccessPattern &ap) {
  return engine != Engine::Dma && ap.space != MemSpace::Hbm;
}

namespace {

[[gnu::cold, gnu::noinline]] std::string describeStart(const AccessPattern &ap, uint32_t alignment) {
  return fmt::format("starts at partition {}, but an access of {} partition{} starts at a multiple of {}",
                     ap.partitionStart, ap.partitions, ap.partitions == 1 ? "" : "s", alignment);
}

} // namespace

std::optional<std::string> accessRuleViolation(const AccessPattern &ap, const Target &target) {
  const AccessLimits &limits = target.access;
  const uint32_t alignment = partitionAlignment(ap.partitions, target);
  if (ap.partitionStart % alignment != 0) [[unlikely]]
    return describeStart(ap, alignment);
  if (ap.freeRank > limits.maxFreeDims) [[unlikely]]
    return fmt::format("has {} free dimensions; at most {}", ap.freeRank, limits.maxFreeDims);
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    if (ap.sizes[d] < 0 || static_cast<uint64_t>(ap.sizes[d]) > limits.maxSize) [[unlikely]]
      return fmt::format("free dimension {} has size {}; a size is at most {}", d, ap.sizes[d], limits.maxSize);
    if (ap.strides[d] > limits.maxStride || ap.strides[d] < -limits.maxStride - 1) [[unlikely]]
      return fmt::format("free dimension {} has stride {}; a stride lies in [{}, {}]", d, ap.strides[d],
                         -limits.maxStride - 1, limits.maxStride);
  }
  const uint64_t maxElements = ap.space == MemSpace::Psum ? limits.maxPsumElements : limits.maxSbufElements;
  const int64_t elements = ap.freeElements();
  if (elements > 0 && static_cast<uint64_t>(elements) > maxElements) [[unlikely]]
    return fmt::format("touches {} elements per partition; an access of {} touches at most {}", elements,
                       name(ap.space), maxElements);
  return std::nullopt;
}

int64_t minorStrideBytes(const AccessPattern &ap) {
  if (ap.freeRank == 0)
    return byteSize(ap.dtype);
  return std::llabs(ap.strides[ap.freeRank - 1]) * byteSize(ap.dtype);
}

bool isStridedAccess(const AccessPattern &ap, const Target &target) {
  return minorStrideBytes(ap) > static_cast<int64_t>(target.cost.stridedAccessBytes);
}

bool splitLongFreeDimension(AccessPattern &ap, const Target &target) {
  const AccessLimits &limits = target.access;
  const auto sizeLimit = static_cast<int64_t>(limits.maxSize);
  if (ap.freeRank != 1 || ap.sizes[0] <= sizeLimit || limits.maxFreeDims < 2)
    return false;
  const int64_t n = ap.sizes[0], stride = ap.strides[0];
  // The largest inner size that divides n and keeps the outer size and the outer stride within the limits.
  for (int64_t inner = sizeLimit; inner > 1; --inner) {
    if (n % inner != 0 || std::llabs(stride) * inner > limits.maxStride)
      continue;
    if (n / inner > sizeLimit)
      return false;
    ap.freeRank = 2;
    ap.sizes = {n / inner, inner, 0, 0};
    ap.strides = {stride * inner, stride, 0, 0};
    return true;
  }
  return false;
}

} // namespace tessera::isa
