#pragma once
/// \file
/// The TPU family's passes (internal to the compiler; the pipeline adds them through tpuFamily(), and
/// tessera-opt registers them).

#include "tessera/isa/Target.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::compiler {

/// tile, TPU targets only (first): rewrites the language-level ops a TensorCore has no one instruction for into tile
/// ops it has: tile.transpose into an MXU matmul with an identity, tile.activation with a bias or row sums into
/// f32 VPU steps, and (where the MXU takes no fp8) fp8 matmul operands into bf16 copies.
/// Test: compiler/test/Transforms/legalize-for-tpu.mlir
std::unique_ptr<mlir::Pass> createLegalizeForTpuPass();

/// tile -> tpu: unrolls the loops, resolves every VMEM address, puts each op on its unit (MXU, VPU, scalar core,
/// DMA queue), adds the scalar core's grid steps, and fills a zero-filled accumulator only when something reads
/// it before a matmul overwrites it. Ops written at the tsr::isa level are an error (NeuronCore instructions).
/// Test: compiler/test/Transforms/lower-tile-to-tpu.mlir
std::unique_ptr<mlir::Pass> createLowerTileToTpuPass(uint64_t maxInstructions = 0, ///< 0: no instruction limit
                                                     bool recordOrigins = false);

/// tile, TPU targets, after allocate-memory: how the kernel becomes a Pallas kernel with its loops kept (the launch
/// grid when `grid`, BlockSpec blocks, pl.loop or unrolled loops, prefetched copies, values), written as tile::kPlan*
/// attributes for the export to compiler::TileProgram. Changes nothing else.
/// Test: compiler/test/Transforms/plan-pallas.mlir
std::unique_ptr<mlir::Pass> createPlanPallasPass(bool grid = true);

/// How one copy of a [rows, free] tile of type `t` lies in a TPU's VMEM (Mosaic's native tiling): rows padded to
/// the dtype's sublane tiling (tpu.sublanes 32-bit rows, so 8 for 32-bit, 16 for 16-bit, 32 for 8-bit dtypes),
/// each row `pitch` elements, the free size rounded up to tpu.lanes; a copy starts at a multiple of
/// tpu.vmemAlignment.
struct VmemLayout {
  int64_t sublaneTiling = 0; ///< rows of one native tile of the dtype
  int64_t rows = 0;          ///< rows, padded to sublaneTiling
  int64_t pitch = 0;         ///< elements from one row to the next
  int64_t copyBytes = 0;     ///< rows x pitch elements, rounded up to tpu.vmemAlignment
};
VmemLayout vmemLayout(mlir::MemRefType t, const isa::Target &target);

} // namespace tessera::compiler
