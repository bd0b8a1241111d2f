#pragma once
/// \file
/// Internal to the backends: the instructions of a compiled kernel in program order, and each operand as a
/// window of a kernel tensor or of one copy of a tile, which is how NKI and Pallas name memory.

#include "tessera/backends/KernelSource.h"

#include <array>
#include <string>
#include <vector>

namespace tessera::backends {

/// A rectangle of rows (partitions) x columns (free elements) of an HBM tensor or of one copy of a tile.
struct Window {
  bool onChip = false;
  int32_t tensor = -1;      ///< HBM: index into Program::tensors
  int32_t allocation = -1;  ///< on chip: index into Provenance::allocations
  int64_t copy = 0;         ///< on chip: the rotating copy
  /// HBM, a tensor of more than 2 dimensions: the index of each leading dimension (x[b, h, rows, columns]); `row`
  /// is then a row of the matrix those indices select.
  std::vector<int64_t> lead;
  int64_t row = 0, rows = 0;
  int64_t col = 0, cols = 0;
  /// A [rows, 1] column read as `cols` wide (a stride-0 free dimension: an [R, 1] operand broadcast).
  bool broadcast = false;
  /// HBM: every rowStep-th row and colStep-th column from (row, col) (a strided window, NKI's x[0:n:2]).
  int64_t rowStep = 1, colStep = 1;
  /// HBM: the operand is the transpose of the window (HbmTile::transposed): its [rows, cols] walk the tensor's
  /// [cols, rows] from (row, col), partition p down column col + p (NKI: x[r:r + cols, c:c + rows].permute((1, 0))).
  bool transposed = false;
  /// On chip, a strided walk of each row from `col` (an access pattern, NKI's t.ap(...)): [step, count] of each
  /// free dimension, outermost first; `cols` is the product of the counts. Empty: `cols` consecutive elements.
  std::vector<std::array<int64_t, 2>> pattern;
  bool strided() const { return rowStep != 1 || colStep != 1; }
  /// The rows (columns) a strided window spans from its first to its last element.
  int64_t rowSpan() const { return rows == 0 ? 0 : (rows - 1) * rowStep + 1; }
  int64_t colSpan() const { return cols == 0 ? 0 : (cols - 1) * colStep + 1; }
  /// HBM: the rows (columns) of the tensor the window spans, transposed or not.
  int64_t tensorRowSpan() const { return transposed ? cols : rowSpan(); }
  int64_t tensorColSpan() const { return transposed ? rows : colSpan(); }
};

/// One instruction of the program, where it came from, and where in the kernel's source.
struct Step {
  const isa::Instruction *inst = nullptr;
  const isa::Stream *stream = nullptr;
  uint32_t streamIndex = 0, index = 0; ///< program.streams[streamIndex].instructions[index]
  int32_t tileOp = -1;
  SourceLoc loc;
  /// The iteration of each loop around the tile op, outermost first (ProgramStep::iterations).
  const std::vector<int64_t> *iterations = nullptr;
};

/// The program's instructions in program order. Throws tessera::Error when the kernel was compiled without
/// provenance.
std::vector<Step> programOrder(const KernelSource &k);

/// Where `ap`, an operand of `step`, lies. Throws tessera::Error at the kernel's line when the operand is not a
/// window a backend can name (`backend` says which, for the message).
Window windowOf(const KernelSource &k, const Step &step, const isa::AccessPattern &ap, std::string_view backend);

} // namespace tessera::backends
