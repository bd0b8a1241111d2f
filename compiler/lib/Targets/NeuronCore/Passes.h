#pragma once
/// \file
/// The NeuronCore family's passes (internal to the compiler; the pipeline adds them through neuronCoreFamily(), and
/// tessera-opt registers them).

#include "tessera/isa/Target.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::compiler {

/// tile, NeuronCore targets only (first): rewrites the language-level ops NeuronCore engines have no instruction for:
/// tile.binary divide into a reciprocal and a multiply (NKI has no divide); loads and stores of PSUM tiles through
/// SBUF (NKI's DMA cannot reach PSUM); a binary op's second PSUM operand through SBUF; on NeuronCore-v2, transposes
/// into SBUF (DMA transposes, which it lacks) through a tensor-engine transpose into PSUM.
/// Test: compiler/test/Transforms/legalize-for-neuroncore.mlir
std::unique_ptr<mlir::Pass> createLegalizeForNeuronCorePass();

/// tile -> nc: unrolls the loops, resolves every address, assigns each op an engine (and DMA queue), and turns
/// a zero-filled PSUM tile's first accumulating matmul into the one that starts the accumulation group.
/// Test: compiler/test/Transforms/lower-tile-to-nc.mlir
/// `recordOrigins`: mark each instruction with its tile op (Provenance; CompileOptions::recordProvenance).
/// `markFlexible`: mark the instructions that several engines could run (nc.flexible), for
/// nc-schedule-instructions, which may move them.
std::unique_ptr<mlir::Pass> createLowerTileToNcPass(uint64_t maxInstructions = 0, ///< 0: no instruction limit
                                                    bool recordOrigins = false, bool markFlexible = false);

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

} // namespace tessera::compiler
