#include "Operands.h"

#include "tessera/isa/FreePattern.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/MatrixShape.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::backends {

std::vector<Step> programOrder(const KernelSource &k) {
  const isa::Program &p = *k.program;
  const compiler::Provenance &prov = *k.provenance;
  if (prov.order.size() != p.instructionCount())
    throw Error(fmt::format("kernel '{}' was compiled without provenance: the backends need "
                            "CompileOptions::recordProvenance",
                            k.kernel));
  std::vector<Step> steps;
  steps.reserve(prov.order.size());
  for (const compiler::ProgramStep &s : prov.order) {
    const isa::Stream &stream = p.streams.at(s.stream);
    const isa::Instruction &inst = stream.instructions.at(s.index);
    SourceLoc loc = inst.loc < p.locations.size() ? p.locations[inst.loc] : SourceLoc{};
    steps.push_back({&inst, &stream, s.stream, s.index, s.tileOp, std::move(loc), &s.iterations});
  }
  return steps;
}

namespace {

/// Whether `ap` (of an HBM tensor of `columns` columns) reads a window's rows as its partitions: rows a whole number
/// of tensor rows apart, each row's elements within one tensor row.
bool readsRows(const isa::AccessPattern &ap, int64_t columns) {
  if (ap.partitions > 1 && (ap.partitionStride < 0 || ap.partitionStride % columns != 0)) return false;
  const int64_t span = ap.sizes[0] == 0 ? 0 : (ap.sizes[0] - 1) * std::max<int64_t>(ap.strides[0], 0) + 1;
  return ap.offset % columns + span <= columns;
}

/// Whether `ap` reads a transposed window (HbmTile::transposed), and not rows: partition p walks down column p of
/// the window, a tensor row between its elements, the partitions a column apart. Exactly one reading fits a
/// transfer of several elements (a window of one row, a tensor of one column included); rows are preferred where
/// both do (one element, read the same either way).
bool readsTransposed(const isa::AccessPattern &ap, int64_t columns) {
  if (ap.freeRank != 1 || readsRows(ap, columns)) return false;
  if (ap.partitions > 1 && ap.partitionStride != 1) return false;
  if (ap.sizes[0] > 1 && ap.strides[0] != columns) return false;
  return ap.offset % columns + ap.partitions <= columns;
}

} // namespace

Window windowOf(const KernelSource &k, const Step &step, const isa::AccessPattern &ap, std::string_view backend) {
  const isa::Program &p = *k.program;
  auto fail = [&](const std::string &why) {
    return Error(fmt::format("{}: {} cannot express this {} operand: {}", backend, backend, isa::name(step.inst->op),
                             why),
                 step.loc, "this access pattern has no equivalent there; report it with the kernel");
  };
  Window w;
  w.rows = ap.partitions;
  w.cols = ap.freeElements();
  const bool hbm = ap.space == isa::MemSpace::Hbm;
  if (hbm && (ap.tensor < 0 || static_cast<size_t>(ap.tensor) >= p.tensors.size()))
    throw fail("it names no kernel tensor");
  // An N-D tensor is addressed as its [rows, columns] matrix (isa/MatrixShape.h).
  const auto [matrixRows, columns] = hbm ? isa::matrixShape(p.tensors[ap.tensor].shape) : std::array<int64_t, 2>{};
  if (hbm && readsTransposed(ap, columns)) {
    w.transposed = true;
  } else if (hbm && ap.freeRank == 1 && ap.strides[0] == 0 && ap.sizes[0] > 1) {
    w.colStep = 0; // one element of each row repeated: a broadcast load
  } else if (ap.freeRank == 1 && ap.strides[0] == 0) {
    w.broadcast = true;
    w.cols = ap.sizes[0];
  } else if (hbm && ap.freeRank == 1 && ap.strides[0] > 1) {
    w.colStep = ap.strides[0]; // a strided window of an HBM tensor
  } else if (!isa::isContiguous(ap)) {
    if (hbm) throw fail("its free dimensions are strided");
    for (unsigned d = 0; d < ap.freeRank; ++d) w.pattern.push_back({ap.strides[d], ap.sizes[d]});
  }
  if (hbm) {
    const isa::TensorInfo &t = p.tensors[ap.tensor];
    if (ap.partitions > 1 && !w.transposed) {
      if (ap.partitionStride < 0 || ap.partitionStride % columns != 0)
        throw fail(fmt::format("its rows are {} elements apart, not a whole number of rows of '{}' ({})",
                               ap.partitionStride, t.name, columns));
      w.rowStep = ap.partitionStride / columns; // 0: one row repeated, a broadcast load
    }
    if (w.broadcast) throw fail("it repeats an HBM element");
    w.tensor = ap.tensor;
    w.row = ap.offset / columns;
    w.col = ap.offset % columns;
    if (w.col + w.tensorColSpan() > columns) throw fail("a row of it runs past the end of a row of the tensor");
    if (w.row + w.tensorRowSpan() > matrixRows) throw fail("it runs past the last row of the tensor");
    if (t.shape.size() > 2) { // the leading indices, and the row within the matrix they select
      const int64_t rowsPerMatrix = t.shape[t.shape.size() - 2];
      int64_t matrix = w.row / rowsPerMatrix;
      w.row %= rowsPerMatrix;
      if (w.row + w.tensorRowSpan() > rowsPerMatrix)
        throw fail(fmt::format("its rows run from one [{}, {}] matrix of '{}' into the next", rowsPerMatrix, columns,
                               t.name));
      w.lead.assign(t.shape.size() - 2, 0);
      for (size_t d = w.lead.size(); d-- > 0;) {
        w.lead[d] = matrix % t.shape[d];
        matrix /= t.shape[d];
      }
    }
    return w;
  }
  std::optional<compiler::TilePlace> place = k.provenance->place(step.tileOp, ap);
  if (!place) throw fail("it lies in none of the tiles of its kernel op");
  const compiler::TileAllocation &a = k.provenance->allocations[place->allocation];
  w.onChip = true;
  w.allocation = place->allocation;
  w.copy = place->copy;
  w.row = place->row;
  w.col = place->col;
  if (ap.space == isa::MemSpace::Vmem && ap.partitions > 1 && ap.partitionStride != a.pitch)
    throw fail(fmt::format("its rows are {} elements apart, not the {} of tile '{}'", ap.partitionStride, a.pitch,
                           a.name));
  int64_t span = w.broadcast ? 1 : w.cols; // the elements of a row the operand reaches, from `col`
  if (!w.pattern.empty()) {
    span = 1;
    for (const auto &[stride, count] : w.pattern) span += stride * (count - 1);
  }
  if (w.row + w.rows > a.rows || w.col + span > a.cols)
    throw fail(fmt::format("it runs past the edge of tile '{}' [{}, {}]", a.name, a.rows, a.cols));
  return w;
}

} // namespace tessera::backends
