#pragma once
/// \file
/// Where each instruction of a compiled program came from: the kernel's tile op it implements, the on-chip tiles
/// that op uses, and the order the instructions ran in the kernel as written (its loops unrolled). The simulator
/// needs none of it; the hardware backends (hw-backends/) use it to turn the simulated program back into named
/// buffers and statements in program order. CompileOptions::recordProvenance asks for it.

#include "tessera/isa/Error.h"
#include "tessera/isa/Program.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::compiler {

/// One tile.alloc of the kernel, as the memory allocation placed it.
struct TileAllocation {
  std::string name;                  ///< the kernel's name for the tile ("t3" for an unnamed one)
  isa::MemSpace space = isa::MemSpace::Sbuf; ///< NeuronCore: Sbuf or Psum; TPU: Vmem
  isa::DType dtype = isa::DType::F32;
  int64_t rows = 0, cols = 0;        ///< the tile's shape: partitions (TPU: rows) x free elements
  /// Copy c (0 <= c < bufs) starts at offset + c * copyBytes: a byte address in each partition (NeuronCore) or in
  /// VMEM (TPU).
  int64_t offset = 0, bufs = 1, copyBytes = 0;
  int64_t pitch = 0;                 ///< TPU: elements from one row to the next in VMEM; 0 on NeuronCore
  bool fixed = false;                ///< placed by the kernel (tsr::isa::sbuf_tile_at)
  SourceLoc loc;                     ///< where the kernel created it
  int32_t loop = -1;                 ///< the scf.for record (Provenance::tileOps) whose body allocates it; -1: none
};

/// One op of the kernel's tile function (pre-order), with the allocations of the on-chip tiles it reads or
/// writes (a window made by Tile::slice counts as its source's).
struct TileOpRecord {
  std::string op;                    ///< e.g. "tile.load", "tile.matmul", "scf.for"
  std::vector<int32_t> allocations;  ///< indices into Provenance::allocations
  SourceLoc loc;
  int32_t loop = -1;                 ///< the scf.for record around this op (-1: none)
  int64_t trips = 0;                 ///< scf.for: its iteration count
  int32_t spmdAxis = -1;             ///< scf.for: the launch-grid axis it is (tsr::program_id), or -1
};

/// An instruction of the program, in program order.
struct ProgramStep {
  uint32_t stream = 0, index = 0;    ///< program.streams[stream].instructions[index]
  int32_t tileOp = -1;               ///< index into Provenance::tileOps (-1: none, e.g. a TPU grid step)
  /// The iteration (0, 1, ...) of each loop around the tile op when the instruction was emitted, outermost first.
  std::vector<int64_t> iterations;
};

/// Where an on-chip operand of an instruction lies in the kernel's tiles.
struct TilePlace {
  int32_t allocation = -1;           ///< index into Provenance::allocations
  int64_t copy = 0;                  ///< which rotating copy
  int64_t row = 0, col = 0;          ///< the element (row or partition, free index) the operand starts at
};

struct Provenance {
  std::vector<TileAllocation> allocations;
  std::vector<TileOpRecord> tileOps;
  std::vector<ProgramStep> order;    ///< every instruction of the program exactly once

  bool empty() const { return order.empty(); }
  /// The tile copy that holds operand `ap` (on chip) of an instruction that came from tile op `tileOp`, or
  /// nullopt when none of that op's tiles holds its first element.
  std::optional<TilePlace> place(int32_t tileOp, const isa::AccessPattern &ap) const;
};

} // namespace tessera::compiler
