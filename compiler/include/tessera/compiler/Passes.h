#pragma once
/// \file
/// The compiler's passes, in pipeline order (the pipeline itself is listed once, in lib/Pipeline.cpp). Each pass
/// reads the target from the module's `tessera.target` attribute and has lit tests in compiler/test/.

#include "tessera/isa/Target.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::compiler {

/// tile: checks every tile and matmul against the target's limits (partitions, PSUM bank, matmul sizes).
/// Test: compiler/test/Transforms/verify-target.mlir
std::unique_ptr<mlir::Pass> createVerifyTargetPass();

/// tile: gives every tile.alloc an SBUF/PSUM `offset` and a number of rotating copies `bufs` (tiles allocated
/// inside an affine_range body get up to `loopBuffers` copies, so iteration i+1 can load while i computes).
/// A kernel that does not fit fails with the tile named. Test: compiler/test/Transforms/allocate-memory.mlir
std::unique_ptr<mlir::Pass> createAllocateMemoryPass(unsigned loopBuffers = 4);

/// Bytes per partition that one copy of a tile of type `t` takes: PSUM tiles take whole banks, SBUF tiles are
/// rounded up to keep every element aligned.
int64_t tileCopyBytes(mlir::MemRefType t, const isa::Target &target);

/// tile -> nc: unrolls the loops, resolves every address, assigns each op an engine (and DMA queue), and turns
/// a zero-filled PSUM tile's first accumulating matmul into the one that starts the accumulation group.
/// Test: compiler/test/Transforms/lower-tile-to-nc.mlir
std::unique_ptr<mlir::Pass> createLowerTileToNcPass(uint64_t maxInstructions = 0); ///< 0: no instruction limit

/// nc: checks every engine instruction's SBUF/PSUM access patterns against the target's access rules (partition
/// start, free dimensions, sizes, strides, elements per partition: isa/AccessRules.h), with the error at the
/// instruction's kernel source line. Test: compiler/test/Transforms/verify-access.mlir
std::unique_ptr<mlir::Pass> createVerifyAccessPass();

/// nc: makes every instruction wait for the instructions on other engines it depends on (read after write,
/// write after read, write after write on overlapping bytes), with one counting semaphore per ordered pair of
/// streams, and no wait that an earlier wait on the same stream already implies.
/// Test: compiler/test/Transforms/insert-semaphores.mlir
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
