#pragma once
/// \file
/// The compiler's passes, in pipeline order (the pipeline itself is listed once, in lib/Pipeline.cpp). Each pass
/// reads the target from the module's `tessera.target` attribute and has lit tests in compiler/test/.

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

/// tile, NeuronCore targets only (first): rewrites the language-level ops NeuronCore engines have no instruction for:
/// tile.binary divide into a reciprocal and a multiply (NKI has no divide); loads and stores of PSUM tiles through
/// SBUF (NKI's DMA cannot reach PSUM); a binary op's second PSUM operand through SBUF; on NeuronCore-v2, transposes
/// into SBUF (DMA transposes, which it lacks) through a tensor-engine transpose into PSUM.
/// Test: compiler/test/Transforms/legalize-for-neuroncore.mlir
std::unique_ptr<mlir::Pass> createLegalizeForNeuronCorePass();

/// tile: checks every tile and matmul against the target's limits (partitions, PSUM bank, matmul sizes).
/// Test: compiler/test/Transforms/verify-target.mlir
std::unique_ptr<mlir::Pass> createVerifyTargetPass();

/// tile: gives every tile.alloc an on-chip `offset` and a number of rotating copies `bufs` (tiles allocated inside
/// an affine_range body get up to `loopBuffers` copies, so iteration i+1 can load while i computes). NeuronCore:
/// SBUF and PSUM offsets per partition. TPU: every tile (SBUF or PSUM in the tile dialect) in the one VMEM, laid
/// out as vmemLayout says, loop-local tiles double-buffered (at most 2 copies, Pallas' pipeline; never more than
/// `loopBuffers`), a remark for each tile the layout pads. A kernel that does not fit fails with the tile named.
/// Test: compiler/test/Transforms/allocate-memory.mlir, allocate-memory-tpu.mlir
std::unique_ptr<mlir::Pass> createAllocateMemoryPass(unsigned loopBuffers = 4);

/// Bytes that one copy of a tile of type `t` takes: NeuronCore, per partition (PSUM tiles take whole banks, SBUF
/// tiles are rounded up to keep every element aligned); TPU, in VMEM (vmemLayout's copyBytes).
int64_t tileCopyBytes(mlir::MemRefType t, const isa::Target &target);

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

/// tile -> nc: unrolls the loops, resolves every address, assigns each op an engine (and DMA queue), and turns
/// a zero-filled PSUM tile's first accumulating matmul into the one that starts the accumulation group.
/// Test: compiler/test/Transforms/lower-tile-to-nc.mlir
/// `recordOrigins`: mark each instruction with its tile op (Provenance; CompileOptions::recordProvenance).
/// `markFlexible`: mark the instructions that several engines could run (nc.flexible), for
/// nc-schedule-instructions, which may move them.
std::unique_ptr<mlir::Pass> createLowerTileToNcPass(uint64_t maxInstructions = 0, ///< 0: no instruction limit
                                                    bool recordOrigins = false, bool markFlexible = false);

/// tile -> tpu: unrolls the loops, resolves every VMEM address, puts each op on its unit (MXU, VPU, scalar core,
/// DMA queue), adds the scalar core's grid steps, and fills a zero-filled accumulator only when something reads
/// it before a matmul overwrites it. Ops written at the tsr::isa level are an error (NeuronCore instructions).
/// Test: compiler/test/Transforms/lower-tile-to-tpu.mlir
std::unique_ptr<mlir::Pass> createLowerTileToTpuPass(uint64_t maxInstructions = 0, ///< 0: no instruction limit
                                                     bool recordOrigins = false);

/// nc: checks every engine instruction's SBUF/PSUM access patterns against the target's access rules (partition
/// start, free dimensions, sizes, strides, elements per partition: isa/AccessRules.h), with the error at the
/// instruction's kernel source line. Test: compiler/test/Transforms/verify-access.mlir
std::unique_ptr<mlir::Pass> createVerifyAccessPass();

/// nc: reorders each engine's stream by list scheduling (an instruction goes as early as its dependencies and its
/// engine allow, by the target's cost model), keeping every data dependency in program order, for kernels that
/// ask for it (the pipeline adds it when the module has tile.schedule_instructions, or CompileOptions forces it).
/// Runs before insert-semaphores; leaves TPU modules and manual_sync kernels alone.
/// Test: compiler/test/Transforms/schedule-instructions.mlir
std::unique_ptr<mlir::Pass> createScheduleInstructionsPass();

/// nc or tpu: makes every instruction wait for the instructions on other streams it depends on (read after write,
/// write after read, write after write on overlapping bytes), with one counting semaphore per ordered pair of
/// streams, and no wait that an earlier wait on the same stream already implies.
/// Test: compiler/test/Transforms/insert-semaphores.mlir, insert-semaphores-tpu.mlir
std::unique_ptr<mlir::Pass> createInsertSemaphoresPass();

/// tile -> linalg/memref/arith/math host code with the DSL's numerics (f32 inside, rounding to nearest even into
/// narrower types): the golden model's first step, before the standard lowering to LLVM (lib/Golden/).
/// Test: compiler/test/Golden/tile-to-linalg.mlir
std::unique_ptr<mlir::Pass> createLowerTileToLinalgPass();

/// Registers the dialects the compiler uses.
void registerDialects(mlir::DialectRegistry &registry);
/// Registers the passes (and the `tessera-pipeline` pipeline) with MLIR's pass registry, for tessera-opt.
void registerPasses();

/// The target named by a module's `tessera.target` attribute (cached by name). Emits an error and returns
/// nullptr if the attribute is missing or names no target.
const isa::Target *targetOf(mlir::Operation *module);

} // namespace tessera::compiler
