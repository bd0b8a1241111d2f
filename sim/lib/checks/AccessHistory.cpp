#include "checks/AccessHistory.h"

#include <algorithm>

namespace tessera::sim {

uint64_t AccessHistory::hashOf(const isa::AccessPattern &ap) {
  const bool flat = ap.flat();
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  };
  mix(uint64_t{memoryOf(ap)} << 32 | (flat ? 0 : ap.partitionStart));
  mix(uint64_t{ap.partitions} << 32 | isa::byteSize(ap.dtype) << 8 | ap.freeRank);
  mix(static_cast<uint64_t>(flat ? ap.partitionStride : 0));
  mix(static_cast<uint64_t>(ap.offset));
  for (unsigned d = 0; d < ap.freeRank; ++d)
    mix(static_cast<uint64_t>(ap.sizes[d]) * 0x100000001b3ull ^ static_cast<uint64_t>(ap.strides[d]));
  return h ^ (h >> 29);
}

bool AccessHistory::Key::matches(const isa::AccessPattern &ap) const {
  if (memory != memoryOf(ap) || partitions != ap.partitions || offset != ap.offset || freeRank != ap.freeRank ||
      elementBytes != isa::byteSize(ap.dtype))
    return false;
  if (ap.flat() ? partitionStride != ap.partitionStride : partitionStart != ap.partitionStart)
    return false;
  for (unsigned d = 0; d < freeRank; ++d)
    if (sizes[d] != ap.sizes[d] || strides[d] != ap.strides[d])
      return false;
  return true;
}

AccessHistory::Key AccessHistory::keyOf(const isa::AccessPattern &ap) {
  const bool flat = ap.flat();
  Key key{.memory = memoryOf(ap),
          .partitionStart = flat ? 0 : ap.partitionStart,
          .partitions = ap.partitions,
          .elementBytes = isa::byteSize(ap.dtype),
          .freeRank = ap.freeRank,
          .partitionStride = flat ? ap.partitionStride : 0,
          .offset = ap.offset};
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    key.sizes[d] = ap.sizes[d];
    key.strides[d] = ap.strides[d];
  }
  return key;
}

AccessHistory::AccessHistory(const isa::Program &program)
    : table_(1024, 0), byFirstByte_(kFirstHbmMemory + program.tensors.size()),
      longest_(kFirstHbmMemory + program.tensors.size(), 0),
      memoryWritten_(kFirstHbmMemory + program.tensors.size(), false) {}

uint32_t AccessHistory::entryOf(const isa::AccessPattern &ap) {
  const uint64_t hash = hashOf(ap);
  const size_t mask = table_.size() - 1;
  for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const uint32_t id = table_[slot];
    if (id == 0)
      break;
    const Entry &entry = entries_[id - 1];
    if (entry.hash == hash && entry.key.matches(ap))
      return id - 1;
  }
  return make(hash, ap);
}

void AccessHistory::grow() {
  std::vector<uint32_t> table(table_.size() * 2, 0);
  const size_t mask = table.size() - 1;
  for (uint32_t id = 0; id < entries_.size(); ++id) {
    size_t slot = entries_[id].hash & mask;
    while (table[slot] != 0)
      slot = (slot + 1) & mask;
    table[slot] = id + 1;
  }
  table_ = std::move(table);
}

uint32_t AccessHistory::make(uint64_t hash, const isa::AccessPattern &ap) {
  const auto id = static_cast<uint32_t>(entries_.size());
  const Region region = Region::of(ap);
  Entry &entry = entries_.emplace_back();
  entry.key = keyOf(ap);
  entry.hash = hash;
  entry.region = region;
  accesses_.emplace_back();
  if (2 * entries_.size() > table_.size())
    grow();
  else {
    const size_t mask = table_.size() - 1;
    size_t slot = hash & mask;
    while (table_[slot] != 0)
      slot = (slot + 1) & mask;
    table_[slot] = id + 1;
  }
  // Existing entries that overlap start before the region's last byte and, spanning at most longest_ bytes,
  // after its first byte - longest_.
  auto &index = byFirstByte_[region.memory];
  int64_t &longest = longest_[region.memory];
  const int64_t first = region.firstByte(), last = region.lastByte();
  for (auto it = index.upper_bound(first - longest); it != index.end() && it->first < last; ++it) {
    Entry &other = entries_[it->second];
    if (!other.region.overlaps(region))
      continue;
    other.overlaps.push_back(id);
    entries_[id].overlaps.push_back(it->second);
    if (other.region.contains(region))
      other.covers.push_back(id);
    if (region.contains(other.region))
      entries_[id].covers.push_back(it->second);
  }
  index.emplace(first, id);
  longest = std::max(longest, last - first);
  return id;
}

void AccessHistory::recordRead(uint32_t id, Access access) {
  std::vector<Access> &readers = accesses_[id].readers;
  for (Access &r : readers)
    if (r.stream == access.stream) {
      r.index = access.index;
      return;
    }
  readers.push_back(access);
}

void AccessHistory::recordWrite(uint32_t id, Access access) {
  Accesses &accesses = accesses_[id];
  accesses.writer = access;
  memoryWritten_[entries_[id].region.memory] = true;
  accesses.readers.clear();
  for (uint32_t o : entries_[id].covers) {
    accesses_[o].writer = {};
    accesses_[o].readers.clear();
  }
}

} // namespace tessera::sim
