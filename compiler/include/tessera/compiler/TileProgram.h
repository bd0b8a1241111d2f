#pragma once
/// \file
/// A kernel's tile function after the tile stages (legalised for its target, tiles placed in memory) with its loops
/// kept, as plain data: what a device backend that writes loops emits from (the Pallas emitter,
/// hw-backends/lib/pallas/), with the plan the target family made for that backend (on a TPU, tpu-plan-pallas:
/// which loops are a launch grid, which windows are grid blocks, which tiles are values). No MLIR type appears here.
/// CompileOptions::recordProvenance asks for it (CompileResult::tileProgram).

#include "tessera/isa/Error.h"
#include "tessera/isa/Program.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera::compiler {

/// constant + sum of coefficient x iteration of a loop (0, 1, ... up to its trip count), loops by their index in
/// TileProgram::loops, + sum of coefficient x floor(affine / divisor) (the aligned window around a moving one, as
/// tile-legalize-for-tpu computes it).
struct LoopIndex {
  std::vector<std::pair<int32_t, int64_t>> terms; ///< (loop, coefficient): none zero, at most one per loop
  int64_t constant = 0;
  struct Floor {
    std::vector<std::pair<int32_t, int64_t>> terms; ///< the numerator: terms and constant, as LoopIndex's
    int64_t constant = 0;
    int64_t divisor = 1, coefficient = 1;
  };
  std::vector<Floor> floors;

  bool isConstant() const { return terms.empty() && floors.empty(); }
  bool isAffine() const { return floors.empty(); }
  int64_t coefficient(int32_t loop) const;
  /// The same index without the terms of loops `drop` says to drop.
  template <class Pred> LoopIndex without(Pred drop) const {
    LoopIndex r{{}, constant, floors};
    for (const auto &t : terms)
      if (!drop(t.first)) r.terms.push_back(t);
    return r;
  }
};

/// The sum of two indices, and an index times a constant.
LoopIndex operator+(LoopIndex a, const LoopIndex &b);
LoopIndex operator*(LoopIndex a, int64_t k);

/// An on-chip operand: columns [col, col + cols) of rows [row, row + rows) of tile `tile` (a view made by
/// Tile::slice is a window of its source's columns; one made by Tile::partition_slice, of its rows). With a
/// `pattern` (Tile::ap), each row's elements are walked from element `col` as the pattern says, `cols` of them.
struct TileOperand {
  int32_t tile = -1; ///< index into TileProgram::tiles
  LoopIndex col;
  int64_t cols = 0;
  int64_t row = 0, rows = 0;
  std::vector<int64_t> pattern; ///< an access pattern's free [step, count] pairs, outermost first; empty: none
};

/// A window of an HBM tensor: rows [row, row + rows) and columns [col, col + cols), every rowStep-th row and
/// colStep-th column.
struct TensorWindow {
  int32_t tensor = -1; ///< the kernel's argument (isa::Program::tensors)
  LoopIndex row, col;
  int64_t rows = 0, cols = 0, rowStep = 1, colStep = 1;
};

enum class TileOpKind {
  Load, Store, Matmul, Binary, BinaryScalar, Activation, Reduce, Copy,
  Broadcast, ///< dst = srcs[0] repeated along its dimensions of size 1 (tile.broadcast)
  Memset, FillWhere, Print
};

/// One tile op, with the operands its kind uses.
struct TileOpNode {
  TileOpKind kind = TileOpKind::Copy;
  int32_t record = -1; ///< its Provenance::tileOps record
  SourceLoc loc;
  /// What it reads: Store the tile; Matmul the stationary and moving tiles; Binary lhs and rhs; BinaryScalar its
  /// one tile; Activation the
  /// source and (when it has one) the [P, 1] bias; Reduce, Copy and Broadcast the source.
  std::vector<TileOperand> srcs;
  std::optional<TileOperand> dst;  ///< what it writes (Matmul: the accumulator)
  std::optional<TileOperand> dst2; ///< Activation: the [P, 1] row sums, when asked for
  TensorWindow window;             ///< Load: the source; Store: the destination
  bool preserve = false;           ///< Load: a read-modify-write's read of bytes the kernel may not have written
  isa::AluOp alu = isa::AluOp::Add;             ///< Binary and Reduce; FillWhere: the comparison
  isa::ActFunc func = isa::ActFunc::Identity;   ///< Activation
  float value = 0.0f;   ///< Memset and FillWhere: the value written; Activation: the scale; BinaryScalar: the number
  bool reverse = false; ///< BinaryScalar: the number is the left operand
  bool accumulate = false; ///< Matmul: add to the accumulator instead of overwriting it
  /// FillWhere: dst[p, f] = value where offset + partition * p + free * f <alu> 0.
  LoopIndex offset;
  int64_t partition = 0, free = 0;
  std::string text; ///< Print: the message

  // The plan.
  int32_t block = -1;    ///< Load and Store: the GridBlock it reads or writes; -1: a DMA of its own
  bool prefetch = false; ///< Load (a DMA of its own): started one iteration of its loop ahead, into the next copy
};

/// One statement of a body: an op or a loop.
struct TileStatement {
  bool isLoop = false;
  int32_t index = -1; ///< into TileProgram::ops or TileProgram::loops
};

/// How the plan runs a loop.
enum class LoopForm {
  Loop,     ///< a loop in the kernel (Pallas: pl.loop), its iteration a traced value
  Unrolled, ///< unrolled when the kernel is traced (a Python loop): indices the device must know statically
  Grid,     ///< a dimension of the launch grid (Pallas: pl.program_id)
};

struct TileLoop {
  int32_t record = -1; ///< its Provenance::tileOps record (the scf.for)
  int64_t trips = 0;
  SourceLoc loc;
  std::vector<TileStatement> body;
  int32_t parent = -1; ///< the loop around it; -1: the kernel's body
  int32_t spmdAxis = -1; ///< the launch-grid axis it is (tsr::program_id): planned as a parallel grid dimension

  // The plan.
  LoopForm form = LoopForm::Loop;
  int32_t gridDim = -1;  ///< Grid: its dimension, outermost 0
  bool parallel = false; ///< Grid: no step depends on another along it (megacore may split it)
};

/// Where the plan keeps a tile.
enum class TileStorage {
  Scratch, ///< an on-chip buffer (Pallas: VMEM scratch, its rotating copies a leading dimension)
  Value,   ///< a value the kernel computes and reads in one scope (Pallas: a Python variable)
  Block,   ///< the grid block one load fills, or one store writes whole: read and written in the block itself
};

/// A tile: Provenance::allocations[allocation], where it is allocated, and where the plan keeps it.
struct TileBuffer {
  int32_t allocation = -1;
  int32_t loop = -1; ///< the loop whose body allocates it; -1: the kernel's body
  TileStorage storage = TileStorage::Scratch;
  int32_t blockOp = -1; ///< Block: the load that fills it, or the store that writes it (TileProgram::ops)
};

/// A block of a tensor the launch grid moves: its shape, and its index (in blocks) from the grid loops' iterations.
struct GridBlock {
  int32_t tensor = -1;
  bool output = false;
  std::array<int64_t, 2> shape{};
  std::array<LoopIndex, 2> index; ///< terms on grid loops only
};

struct TileProgram {
  std::vector<TileBuffer> tiles;
  std::vector<TileOpNode> ops;
  std::vector<TileLoop> loops;
  std::vector<TileStatement> body; ///< the kernel's body
  std::vector<GridBlock> blocks;   ///< inputs' blocks first, then the outputs' (one per output), as the plan gives
  bool planned = false;            ///< whether a plan was made (else every field of the plan has its default)
  bool launchGrid = false;         ///< whether the plan was asked for a launch grid (CompileOptions::launchGrid)

  bool empty() const { return body.empty(); }
  /// The grid loops, outermost first.
  std::vector<int32_t> gridLoops() const;
  /// The statements of `loop`'s body (-1: the kernel's).
  const std::vector<TileStatement> &bodyOf(int32_t loop) const { return loop < 0 ? body : loops[loop].body; }
};

} // namespace tessera::compiler
