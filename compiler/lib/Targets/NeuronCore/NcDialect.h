#pragma once
/// \file
/// The nc dialect: NeuronCore engine instructions with resolved addresses and semaphores (see Nc.td), and the
/// conversions between its #nc.ap attribute and isa::AccessPattern.

#include "tessera/isa/Program.h"

#include "mlir/IR/Builders.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "NeuronCore/NcDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "NeuronCore/NcAttrs.h.inc"
#define GET_OP_CLASSES
#include "NeuronCore/NcOps.h.inc"

namespace tessera::nc {

/// The unit attribute of an instruction from a tsr::isa::manual_sync scope: nc-insert-semaphores orders it only
/// after instructions outside such scopes; the kernel's own semaphores order it after the others.
inline constexpr llvm::StringLiteral kManualAttr = "nc.manual";
/// On an instruction lower-tile-to-nc put on the least busy of several engines, when the kernel is list-scheduled:
/// nc-schedule-instructions may move it to another of its definition's compute engines (and removes the mark).
inline constexpr llvm::StringLiteral kFlexibleAttr = "nc.flexible";

/// An isa::AccessPattern as an #nc.ap attribute, and back.
AccessPatternAttr toAttr(mlir::MLIRContext *ctx, const isa::AccessPattern &ap);
isa::AccessPattern toIsa(AccessPatternAttr attr);

/// The stream an op runs on: "tensor"/"vector"/"scalar"/"gpsimd", or "dma" with its queue.
std::optional<isa::Engine> engineOf(mlir::Operation *op);

/// Builds the nc op for `inst` on `engine` (DMA: on `queue`). Waits and signals are not set here. A Print's
/// label is `text`.
mlir::Operation *build(mlir::OpBuilder &b, mlir::Location loc, const isa::Instruction &inst, isa::Engine engine,
                       unsigned queue, llvm::StringRef text = {});
/// The isa::Instruction an nc op stands for (without its waits, signals, location and Print label).
isa::Instruction toInstruction(mlir::Operation *op);

} // namespace tessera::nc
