#pragma once
/// \file
/// Where an access pattern lies, as the kernel-bug checks compare accesses: rows x a byte range in each row of one
/// memory (SBUF, PSUM, VMEM, SMEM or an HBM tensor).
/// - SBUF/PSUM: the rows are partitions [p0, p1), each its own address space; [b0, b1) the bytes within each.
/// - HBM: one row, the tensor's bytes from the first to the last element (AccessPattern::byteExtent()).
/// - VMEM/SMEM, flat memories with pitched rows: row r in [0, p1) covers bytes [b0 + r x pitch, b1 + r x pitch) of
///   the memory, so two engines writing disjoint column windows of one buffer never overlap, whatever the buffer's
///   size; a pattern of one row has pitch 0. Tests between two such regions are exact about rows and take
///   constant time when the pitches agree (the same buffer), and one step per row of the shorter otherwise.

#include "tessera/isa/Program.h"

#include <cstdint>

namespace tessera::sim {

/// A memory the checks track: SBUF, PSUM, VMEM, SMEM, or one HBM tensor.
using MemoryId = uint32_t;
constexpr MemoryId kSbufMemory = 0, kPsumMemory = 1, kVmemMemory = 2, kSmemMemory = 3, kFirstHbmMemory = 4;
inline MemoryId memoryOf(const isa::AccessPattern &ap) {
  switch (ap.space) {
  case isa::MemSpace::Sbuf: return kSbufMemory;
  case isa::MemSpace::Psum: return kPsumMemory;
  case isa::MemSpace::Vmem: return kVmemMemory;
  case isa::MemSpace::Smem: return kSmemMemory;
  case isa::MemSpace::Hbm: break;
  }
  return kFirstHbmMemory + static_cast<MemoryId>(ap.tensor);
}

/// Rows [p0, p1) x bytes [b0, b1) of a memory; see the file comment for what a row is in each memory.
struct Region {
  MemoryId memory = 0;
  uint32_t p0 = 0, p1 = 1;
  int64_t b0 = 0, b1 = 0;
  int64_t pitch = 0;  ///< VMEM/SMEM with more than one row: bytes from one row to the next (> 0); else 0

  static Region of(const isa::AccessPattern &ap);
  /// Whether the rows are pitched rows of a flat memory rather than partitions (or one row).
  bool pitched() const { return pitch != 0; }
  /// The first byte and one past the last (of one partition on SBUF/PSUM) that any row touches.
  int64_t firstByte() const { return b0; }
  int64_t lastByte() const { return b1 + (pitched() ? int64_t{p1 - p0 - 1} * pitch : 0); }

  /// Whether some byte lies in both.
  bool overlaps(const Region &o) const {
    if (memory != o.memory)
      return false;
    if (!pitched() && !o.pitched())
      return p0 < o.p1 && o.p0 < p1 && b0 < o.b1 && o.b0 < b1;
    return pitchedOverlaps(o);
  }
  /// Whether every byte of `o` lies in this region (false in the rare pitched cases this cannot tell cheaply: a
  /// row of `o` spread over two rows of this one).
  bool contains(const Region &o) const;
  /// Bytes both cover (they must overlap). Between pitched regions of one pitch, every row they share; of
  /// different pitches, the first row where they meet.
  Region intersection(const Region &o) const;

private:
  bool pitchedOverlaps(const Region &o) const;
};

} // namespace tessera::sim
