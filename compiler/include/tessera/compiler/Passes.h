#pragma once
/// \file
/// The compiler's shared passes, in pipeline order (the pipeline itself is listed once, in lib/Pipeline.cpp); each
/// target family's own passes are declared in its folder (lib/Targets/<Family>/Passes.h). Each pass reads the target
/// from the module's `tessera.target` attribute and has lit tests in compiler/test/.

#include "tessera/isa/Target.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::compiler {



/// tile: checks every tile and matmul against the target's limits (partitions, PSUM bank, matmul sizes).
/// Test: compiler/test/Transforms/verify-target.mlir
std::unique_ptr<mlir::Pass> createVerifyTargetPass();

/// tile: gives every tile.alloc an on-chip `offset` and a number of rotating copies `bufs` (tiles allocated inside
/// an affine_range body get up to `loopBuffers` copies, so iteration i+1 can load while i computes), in the memory
/// and with the layout the target's family gives it (TargetFamily: NeuronCore SBUF and PSUM offsets per partition;
/// TPU the one VMEM, in Mosaic's layout, at most 2 copies). A kernel that does not fit fails with the tile named.
/// Test: compiler/test/Transforms/allocate-memory.mlir, allocate-memory-tpu.mlir
std::unique_ptr<mlir::Pass> createAllocateMemoryPass(unsigned loopBuffers = 4);







/// Any family's dialect: makes every instruction wait for the instructions on other streams it depends on (read after write,
/// write after read, write after write on overlapping bytes), with one counting semaphore per ordered pair of
/// streams, and no wait that an earlier wait on the same stream already implies.
/// Test: compiler/test/Transforms/insert-semaphores.mlir, insert-semaphores-tpu.mlir
std::unique_ptr<mlir::Pass> createInsertSemaphoresPass();

/// tile -> linalg/memref/arith/math host code with the DSL's numerics (f32 inside, rounding to nearest even into
/// narrower types): the golden model's first step, before the standard lowering to LLVM (lib/Golden/).
/// Test: compiler/test/Golden/tile-to-linalg.mlir
std::unique_ptr<mlir::Pass> createLowerTileToLinalgPass();

/// Each linalg op into a private function of its own, one per set of ops that differ only in their operands (the
/// golden model's second step, lib/Golden/OutlineOps.h), so that a kernel of many ops lowers and compiles in time
/// linear in them. Test: compiler/test/Golden/outline-ops.mlir
std::unique_ptr<mlir::Pass> createGoldenOutlineOpsPass();
/// Registers the dialects the golden model's stages read (linalg), so that tessera-opt parses their lit tests.
void registerGoldenDialects(mlir::DialectRegistry &registry);

/// Registers the dialects the compiler uses.
void registerDialects(mlir::DialectRegistry &registry);
/// Registers the passes (and the `tessera-pipeline` pipeline) with MLIR's pass registry, for tessera-opt.
void registerPasses();

/// The target named by a module's `tessera.target` attribute (cached by name). Emits an error and returns
/// nullptr if the attribute is missing or names no target.
const isa::Target *targetOf(mlir::Operation *module);

} // namespace tessera::compiler
