#pragma once
/// \file
/// Internal to the passes after lowering (insert-semaphores, schedule-instructions): which instructions of a
/// target module depend on which, from the bytes they read and write. Two instructions conflict when their
/// accesses overlap and at least one writes: read after write, write after read, write after write.

#include "tessera/compiler/Dialect/Machine.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <utility>

namespace tessera::compiler {

/// A stream id: the engine kinds' numbers (isa::Engine), then Dma + q for DMA queue q.
unsigned streamOf(mlir::Operation *op);

/// A byte range of one memory: partitions (SBUF, PSUM) or rows (VMEM, SMEM), and bytes within each.
struct Region {
  int64_t memory;       ///< -1 SBUF, -2 PSUM, -3 VMEM, -4 SMEM, else the HBM tensor
  int64_t p0, p1;       ///< partitions, or rows of `rowBytes` bytes, [p0, p1); otherwise [0, 1)
  int64_t b0, b1;       ///< bytes [b0, b1) within each
  int64_t rowBytes = 0; ///< flat memories: bytes per row of the grid p0..p1 counts in; 0: not in rows

  /// The first and one past the last byte address in the memory (SBUF/PSUM: within a partition).
  int64_t first() const { return rowBytes ? p0 * rowBytes + b0 : b0; }
  int64_t last() const { return rowBytes ? (p1 - 1) * rowBytes + b1 : b1; }
  /// Exact on the same grid of rows (or partitions); otherwise whether their spans of bytes meet.
  bool overlaps(const Region &o) const {
    if (memory != o.memory) return false;
    if (rowBytes == o.rowBytes) return p0 < o.p1 && o.p0 < p1 && b0 < o.b1 && o.b0 < b1;
    return first() < o.last() && o.first() < last();
  }
  bool operator==(const Region &o) const = default;
};

/// The bytes `ap` touches. A VMEM or SMEM operand is its exact rows (each `pitch` apart), so the padding of a
/// tile and the columns outside a window of it are not part of it.
Region regionOf(const isa::AccessPattern &ap);

/// Whether a pattern touches nothing (an instruction without that operand, or an empty walk).
bool isEmpty(const isa::AccessPattern &ap);

/// Who touched each region, walking the instructions in program order, to find what each one conflicts with.
class AccessTracker {
public:
  /// Which readers a later write conflicts with: the last reader of each stream since the last write (enough for
  /// insert-semaphores, since a stream runs in order), or every reader since it (what a pass that reorders a
  /// stream needs).
  enum class Readers { LastPerStream, All };
  explicit AccessTracker(Readers readers) : readers_(readers) {}

  /// The next instruction in program order, `op` (instruction `inst` of the program, on stream `stream`): appends
  /// the earlier instructions its operands conflict with to `deps` (unsorted, possibly repeated), then records its
  /// reads and writes.
  void visit(mlir::Operation *op, unsigned stream, int64_t inst, llvm::SmallVectorImpl<int64_t> &deps);

private:
  /// Instructions that an access of `r` conflicts with: the last writers, and for a write also the readers.
  void conflicts(const Region &r, bool write, llvm::SmallVectorImpl<int64_t> &out);
  void recordRead(const Region &r, unsigned stream, int64_t inst);
  void recordWrite(const Region &r, int64_t inst);

  struct Access {
    Region region;
    int64_t writer = -1;                                   ///< instruction index
    llvm::SmallVector<std::pair<unsigned, int64_t>, 2> readers; ///< (stream, instruction) since the write
  };
  using Key = std::pair<int64_t, int64_t>; // (memory, Region::first)

  template <class F> void forOverlapping(const Region &r, F f);
  Access &entry(const Region &r);

  Readers readers_;
  std::map<Key, llvm::SmallVector<Access, 1>> accesses_;
  /// The longest region recorded in each memory: how far before a region a recorded one may start and still
  /// overlap it. Per memory, so that an HBM window megabytes long does not make every SBUF lookup scan all of SBUF.
  llvm::DenseMap<int64_t, int64_t> maxLength_;
};

} // namespace tessera::compiler
