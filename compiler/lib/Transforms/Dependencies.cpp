#include "Dependencies.h"

#include "llvm/ADT/STLExtras.h"

namespace tessera::compiler {

unsigned streamOf(mlir::Operation *op) {
  isa::Engine e = *machineEngineOf(op);
  if (e != isa::Engine::Dma) return static_cast<unsigned>(e);
  return static_cast<unsigned>(isa::Engine::Dma) + machineQueueOf(op);
}

namespace {

/// A VMEM or SMEM pattern as rows of its pitch: rows [q, q + rows) of a grid `pitch` bytes wide, and the bytes
/// [rem, rem + width) of each that a row of the pattern touches. A pattern whose row does not fit one pitch (a
/// walk wider than its pitch, or straddling it) is the whole span from its first to its last byte.
Region flatRegion(const isa::AccessPattern &ap, int64_t memory) {
  const auto [first, last] = ap.byteExtent();
  const int64_t pitchBytes = ap.partitionStride * static_cast<int64_t>(isa::byteSize(ap.dtype));
  isa::AccessPattern row = ap;
  row.partitions = 1;
  const auto [rowFirst, rowLast] = row.byteExtent();
  const int64_t width = rowLast - rowFirst;
  if (pitchBytes <= 0 || width > pitchBytes || rowFirst < 0) return {memory, 0, 1, first, last};
  const int64_t q = rowFirst / pitchBytes, rem = rowFirst % pitchBytes;
  if (rem + width > pitchBytes) return {memory, 0, 1, first, last};
  return {memory, q, q + ap.partitions, rem, rem + width, pitchBytes};
}

} // namespace

Region regionOf(const isa::AccessPattern &ap) {
  auto [b0, b1] = ap.byteExtent();
  switch (ap.space) {
  case isa::MemSpace::Hbm: return {ap.tensor, 0, 1, b0, b1};
  case isa::MemSpace::Sbuf: return {-1, ap.partitionStart, ap.partitionStart + ap.partitions, b0, b1};
  case isa::MemSpace::Psum: return {-2, ap.partitionStart, ap.partitionStart + ap.partitions, b0, b1};
  case isa::MemSpace::Vmem: return flatRegion(ap, -3);
  case isa::MemSpace::Smem: return flatRegion(ap, -4);
  }
  return {};
}

bool isEmpty(const isa::AccessPattern &ap) { return ap.partitions == 0 || ap.freeElements() == 0; }

template <class F> void AccessTracker::forOverlapping(const Region &r, F f) {
  auto longest = maxLength_.find(r.memory);
  if (longest == maxLength_.end()) return; // nothing recorded in this memory yet
  auto it = accesses_.lower_bound({r.memory, r.last()});
  while (it != accesses_.begin()) {
    --it;
    if (it->first.first != r.memory) break;
    if (it->first.second + longest->second <= r.first()) break;
    for (Access &a : it->second)
      if (a.region.overlaps(r)) f(a);
  }
}

AccessTracker::Access &AccessTracker::entry(const Region &r) {
  int64_t &longest = maxLength_[r.memory];
  longest = std::max(longest, r.last() - r.first());
  auto &list = accesses_[{r.memory, r.first()}];
  for (Access &a : list)
    if (a.region == r) return a;
  list.push_back(Access{r});
  return list.back();
}

void AccessTracker::conflicts(const Region &r, bool write, llvm::SmallVectorImpl<int64_t> &out) {
  forOverlapping(r, [&](Access &a) {
    if (a.writer >= 0) out.push_back(a.writer);
    if (write)
      for (auto &[_, reader] : a.readers) out.push_back(reader);
  });
}

void AccessTracker::recordRead(const Region &r, unsigned stream, int64_t inst) {
  Access &a = entry(r);
  if (readers_ == Readers::LastPerStream)
    for (auto &[s, reader] : a.readers)
      if (s == stream) {
        reader = inst;
        return;
      }
  a.readers.push_back({stream, inst});
}

void AccessTracker::visit(mlir::Operation *op, unsigned stream, int64_t inst, llvm::SmallVectorImpl<int64_t> &deps) {
  MachineOperands operands = machineOperandsOf(op);
  llvm::erase_if(operands.reads, isEmpty);
  llvm::erase_if(operands.writes, isEmpty);
  for (const isa::AccessPattern &read : operands.reads) conflicts(regionOf(read), false, deps);
  for (const isa::AccessPattern &write : operands.writes) conflicts(regionOf(write), true, deps);
  for (const isa::AccessPattern &read : operands.reads) recordRead(regionOf(read), stream, inst);
  for (const isa::AccessPattern &write : operands.writes) recordWrite(regionOf(write), inst);
}

void AccessTracker::recordWrite(const Region &r, int64_t inst) {
  Access &a = entry(r);
  a.writer = inst;
  a.readers.clear();
}

} // namespace tessera::compiler
