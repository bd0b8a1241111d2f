#pragma once
/// \file
/// Who last touched each piece of memory: for every distinct access pattern the program uses, the last
/// instruction that wrote through it and the latest read of each stream since, plus the other patterns whose
/// bytes overlap it. Conflicting accesses are found through that overlap list, so nothing is searched or
/// allocated while a program reuses its patterns (compiled programs reuse a few tile addresses all the time).
///
/// Overlap is judged on each pattern's Region (Region.h), as the compiler's semaphore insertion judges it: on
/// SBUF/PSUM the partition range x the byte range within a partition, in HBM the tensor's byte range from the
/// first to the last element (AccessPattern::byteExtent(), so strided tiles of one tensor overlap when their
/// extents do), in VMEM/SMEM each row's byte range, rows a pitch apart.

#include "checks/Region.h"

#include "tessera/isa/Program.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace tessera::sim {

/// One instruction: its stream and its index in that stream.
struct Access {
  static constexpr uint32_t kNone = ~uint32_t{0};
  uint32_t stream = kNone;
  uint32_t index = 0;
  bool valid() const { return stream != kNone; }
};

class AccessHistory {
public:
  /// What conflicts with a new access: the last write through a pattern and the reads since.
  struct Accesses {
    Access writer;                ///< the last write (invalid: none, or forgotten as covered by a later write)
    std::vector<Access> readers;  ///< the latest read of each stream since that write
  };

  /// Tracks SBUF, PSUM, VMEM, SMEM and the HBM tensors of `program`.
  explicit AccessHistory(const isa::Program &program);

  /// The entry of `ap`'s pattern, made (and linked to the entries it overlaps) on first use.
  uint32_t entryOf(const isa::AccessPattern &ap);

  const Region &region(uint32_t id) const { return entries_[id].region; }
  const Accesses &accesses(uint32_t id) const { return accesses_[id]; }
  /// The other entries whose regions overlap entry `id`.
  const std::vector<uint32_t> &overlaps(uint32_t id) const { return entries_[id].overlaps; }
  /// Whether every byte of the pattern is known to have been written (so reads through it need no bitmap).
  bool written(uint32_t id) const { return entries_[id].written; }
  void setWritten(uint32_t id) { entries_[id].written = true; }

  /// Whether any instruction has written entry `id`'s memory yet (reads of a memory nothing writes, such as an
  /// input tensor, cannot race).
  bool memoryWritten(uint32_t id) const { return memoryWritten_[entries_[id].region.memory]; }

  /// Records a read of entry `id` by `access`.
  void recordRead(uint32_t id, Access access);
  /// Records a write of entry `id` by `access`, which the caller found ordered after every access the entry
  /// and its overlaps hold: it becomes the entry's only access, and overlapping entries it covers entirely are
  /// forgotten (whatever conflicts with them later conflicts with this write, which happens after them).
  void recordWrite(uint32_t id, Access access);

private:
  /// What identifies a pattern: its memory and the walk (the dtype only through its size).
  struct Key {
    MemoryId memory = 0;
    uint32_t partitionStart = 0, partitions = 0;
    uint32_t elementBytes = 0, freeRank = 0;
    int64_t partitionStride = 0, offset = 0;
    std::array<int64_t, isa::AccessPattern::kMaxFreeDims> sizes{}, strides{};
    /// Whether `ap` walks this pattern (cheaper than building its key and comparing).
    bool matches(const isa::AccessPattern &ap) const;
  };
  struct Entry {
    Key key;
    uint64_t hash = 0;
    Region region;
    std::vector<uint32_t> overlaps;
    std::vector<uint32_t> covers;  ///< the entries among `overlaps` whose every byte this one's region holds
    bool written = false;
  };
  static Key keyOf(const isa::AccessPattern &ap);
  static uint64_t hashOf(const isa::AccessPattern &ap);
  uint32_t make(uint64_t hash, const isa::AccessPattern &ap);
  void grow();

  std::vector<Entry> entries_;       ///< what identifies and links each pattern
  std::vector<Accesses> accesses_;   ///< its accesses (apart: the checks touch these on every instruction)
  std::vector<uint32_t> table_;      ///< open addressing, linear probing: entry id + 1, 0 for a free slot
  /// Per memory: entries by first byte, and the longest byte range among them (to find overlaps on making).
  std::vector<std::multimap<int64_t, uint32_t>> byFirstByte_;
  std::vector<int64_t> longest_;
  std::vector<bool> memoryWritten_;  ///< per memory
};

} // namespace tessera::sim
