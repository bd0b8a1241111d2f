// Provenance::place: which tile copy an on-chip operand lies in (plain C++, no MLIR).

#include "tessera/compiler/Provenance.h"

namespace tessera::compiler {

std::optional<TilePlace> Provenance::place(int32_t tileOp, const isa::AccessPattern &ap) const {
  if (tileOp < 0 || static_cast<size_t>(tileOp) >= tileOps.size()) return std::nullopt;
  for (int32_t index : tileOps[tileOp].allocations) {
    const TileAllocation &a = allocations[index];
    if (a.space != ap.space) continue; // SBUF and PSUM addresses overlap: each is its own memory
    const int64_t element = static_cast<int64_t>(isa::byteSize(a.dtype));
    for (int64_t copy = 0; copy < a.bufs; ++copy) {
      const int64_t relative = ap.offset - (a.offset + copy * a.copyBytes);
      if (a.space == isa::MemSpace::Vmem) { // rows `pitch` elements apart in the flat VMEM
        const int64_t rowBytes = a.pitch * element;
        if (relative < 0 || rowBytes <= 0 || relative / rowBytes >= a.rows) continue;
        if ((relative % rowBytes) % element != 0 || (relative % rowBytes) / element >= a.cols) continue;
        return TilePlace{index, copy, relative / rowBytes, (relative % rowBytes) / element};
      }
      if (relative < 0 || relative % element != 0 || relative / element >= a.cols) continue;
      if (ap.partitionStart >= a.rows) continue;
      return TilePlace{index, copy, static_cast<int64_t>(ap.partitionStart), relative / element};
    }
  }
  return std::nullopt;
}

} // namespace tessera::compiler
