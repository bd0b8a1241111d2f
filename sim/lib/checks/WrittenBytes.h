#pragma once
/// \file
/// Which bytes of SBUF, PSUM, VMEM, SMEM and the HBM output tensors some instruction has written: one bit per
/// byte, rows of 64-bit words (a row per SBUF/PSUM partition, one row for VMEM, for SMEM and for each output
/// tensor). HBM input tensors are written before the kernel starts and have no bitmap. A read of a byte whose bit
/// is clear reads never-written memory.

#include "checks/AccessHistory.h"
#include "memory/ZeroedPages.h"

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>
#include <vector>

namespace tessera::sim {

class WrittenBytes {
public:
  WrittenBytes(const isa::Program &program, const isa::Target &target);

  /// Marks every byte `ap` touches as written.
  void markWritten(const isa::AccessPattern &ap);

  /// Bytes [first, last) of row `row`, none of which has been written.
  struct Hole {
    uint32_t row = 0;  ///< the partition on SBUF/PSUM; 0 in a flat memory (HBM, VMEM, SMEM)
    int64_t first = 0, last = 0;
  };
  /// Whether every byte `ap` touches has been written; if not, the first run of unwritten bytes it touches.
  bool allWritten(const isa::AccessPattern &ap, Hole &hole) const;

private:
  struct Bitmap {
    uint64_t wordsPerRow = 0;
    ZeroedPages pages; ///< the pages of a large bitmap cost nothing until written
    /// Null: always written.
    uint64_t *words = nullptr;
  };
  std::vector<Bitmap> bitmaps_;  ///< by MemoryId
};

} // namespace tessera::sim
