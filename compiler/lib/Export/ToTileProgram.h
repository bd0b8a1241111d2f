#pragma once
/// \file
/// Internal to the compiler: the placed tile function as a compiler::TileProgram (plain data, loops kept), with the
/// device-code plan its family's planning pass wrote on it (the tile::kPlan* attributes), if any.

#include "tessera/compiler/TileProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tessera::compiler {

/// Exports `fn`, a tile function after allocate-memory. Tiles are numbered as Provenance::allocations numbers
/// them (tile.alloc ops in pre-order), ops and loops record their numbers in Provenance::tileOps. Throws
/// tessera::Error at the op's kernel line for what a loop-keeping backend cannot take: an index that is not an
/// affine function of its loops, a loop whose trip count is not constant, an op written at the tsr::isa level.
TileProgram toTileProgram(mlir::func::FuncOp fn);

} // namespace tessera::compiler
