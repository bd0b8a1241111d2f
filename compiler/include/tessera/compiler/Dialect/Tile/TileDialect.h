#pragma once
/// \file
/// The tile dialect: hardware-neutral tiles and tile operations (see Tile.td).

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "tessera/isa/Program.h"

#include <string>

#include "tessera/compiler/Dialect/Tile/TileDialect.h.inc"
#include "tessera/compiler/Dialect/Tile/TileEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "tessera/compiler/Dialect/Tile/TileAttrs.h.inc"
#define GET_OP_CLASSES
#include "tessera/compiler/Dialect/Tile/TileOps.h.inc"

namespace tessera::tile {

/// The memory space of a memref: HBM when it has none.
MemorySpace memorySpaceOf(mlir::MemRefType type);
/// A memref type of `shape` and `element` in `space`.
mlir::MemRefType tileType(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape, mlir::Type element, MemorySpace space);

/// The allocation a tile value lives in: its tile.alloc, or a view's source's; null for anything else (an HBM
/// argument).
AllocOp rootAllocation(mlir::Value tile);
/// The tile.view with an access pattern (Tile::ap) that defines `tile`, or null.
ViewOp patternView(mlir::Value tile);
/// The first partition (row) of its root allocation that `tile` covers: its views' first partitions summed (0 for
/// the allocation itself).
int64_t firstPartitionOf(mlir::Value tile);

/// A tile's name in messages: " 'x'" when the kernel named it, else "".
std::string quotedName(AllocOp alloc);
/// A tile's shape and dtype as the kernel wrote them, for messages: "[128, 512] f32".
std::string shapeAndDtype(mlir::MemRefType type);

/// The instruction a tile.inst stands for: its opcode and settings, with each present operand slot filled by
/// `patternOf(tile)` (the tile's access pattern: dense in the verifier, at its address when lowering).
isa::Instruction instructionOf(InstOp op, llvm::function_ref<isa::AccessPattern(mlir::Value)> patternOf);

/// Names of the function-argument attributes that describe a kernel's HBM tensors.
inline constexpr llvm::StringLiteral kTensorNameAttr = "tile.name";
inline constexpr llvm::StringLiteral kOutputAttr = "tile.output";
/// Marks a function argument that is the kernel's own HBM scratch tensor (tsr::shared_hbm): no input, no output.
inline constexpr llvm::StringLiteral kScratchAttr = "tile.scratch";
/// The module attribute naming the target a module was compiled for.
inline constexpr llvm::StringLiteral kTargetAttr = "tessera.target";
/// The module attribute (a unit) of a kernel that asks for list scheduling of its engines' streams
/// (tsr::KernelInfo::scheduleInstructions): the pipeline runs nc-schedule-instructions on it.
inline constexpr llvm::StringLiteral kScheduleAttr = "tile.schedule_instructions";
/// On an scf.for that is an axis of the kernel's SPMD launch grid (tsr::graph::Loop::spmdAxis): the axis (i64).
/// Its iterations are the launch's programs: NKI writes nl.program_id(axis) for it, and Pallas a parallel grid
/// dimension.
inline constexpr llvm::StringLiteral kSpmdAxisAttr = "tile.spmd_axis";
/// Unit attributes of ops the kernel wrote at the tsr::isa level (see Tile.td): lowered to exactly one
/// instruction; in a manual_sync scope, with no automatic semaphore waits.
inline constexpr llvm::StringLiteral kIsaAttr = "tile.isa";
inline constexpr llvm::StringLiteral kManualAttr = "tile.manual";
/// On a tile.load that tile-legalize-for-tpu made to read the bytes around an unaligned store's window, which the
/// store writes back unchanged: its DMA is a read-modify-write's read (isa::Instruction::preserve).
inline constexpr llvm::StringLiteral kPreserveAttr = "tile.preserve";
/// On an nc or tpu instruction, when the compiler records provenance: the number of the tile op it came from
/// (compiler::numberTileOps; read back into compiler::Provenance by the export to isa::Program).
inline constexpr llvm::StringLiteral kOriginAttr = "tile.origin";
/// With kOriginAttr: the iteration (0, 1, ...) of each loop around that tile op, outermost first.
inline constexpr llvm::StringLiteral kIterationsAttr = "tile.iterations";

/// The device-code plan a family's planning pass writes on a placed tile module (tpu-plan-pallas), which the
/// export of its loops (compiler::TileProgram) reads:
///   on scf.for:     kPlanLoopAttr "grid" | "loop" | "unrolled"; with "grid", kPlanGridDimAttr (i64) and, when no
///                   step depends on another along it, kPlanParallelAttr (unit);
///   on load/store:  kPlanBlockAttr (i64), the index of its block in the function's kPlanBlocksAttr; on a load of
///                   its own, kPlanPrefetchAttr (unit) when it starts one iteration of its loop ahead;
///   on tile.alloc:  kPlanStorageAttr "scratch" | "value" | "block";
///   on the func:    kPlanBlocksAttr, an array of {tensor = i64, output (unit), shape = array<i64>, index =
///                   affine_map over the grid dimensions giving the block's index}.
inline constexpr llvm::StringLiteral kPlanLoopAttr = "plan.loop";
inline constexpr llvm::StringLiteral kPlanGridDimAttr = "plan.grid_dim";
inline constexpr llvm::StringLiteral kPlanParallelAttr = "plan.parallel";
inline constexpr llvm::StringLiteral kPlanBlockAttr = "plan.block";
inline constexpr llvm::StringLiteral kPlanPrefetchAttr = "plan.prefetch";
inline constexpr llvm::StringLiteral kPlanStorageAttr = "plan.storage";
inline constexpr llvm::StringLiteral kPlanBlocksAttr = "plan.blocks";

} // namespace tessera::tile
