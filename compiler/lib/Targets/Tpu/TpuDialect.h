#pragma once
/// \file
/// The tpu dialect: TPU TensorCore instructions with resolved addresses and semaphores (see Tpu.td), and the
/// conversions between its ops and #tpu.ref attributes and isa::Instruction / isa::AccessPattern.

#include "tessera/isa/Program.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "Tpu/TpuDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "Tpu/TpuAttrs.h.inc"
#define GET_OP_CLASSES
#include "Tpu/TpuOps.h.inc"

namespace tessera::tpu {

/// An isa::AccessPattern in VMEM, SMEM or HBM as a #tpu.ref attribute, and back.
RefAttr toAttr(mlir::MLIRContext *ctx, const isa::AccessPattern &ap);
isa::AccessPattern toIsa(RefAttr attr);

/// The unit an op runs on: "mxu", "vpu", "scalar" (the scalar core), or "dma" with its queue.
std::optional<isa::Engine> engineOf(mlir::Operation *op);

/// Builds the tpu op for `inst`, a TPU instruction or a Print, on `engine` (DMA: on `queue`); a Print's label
/// is `text`. Waits and signals are not set here.
mlir::Operation *build(mlir::OpBuilder &b, mlir::Location loc, const isa::Instruction &inst, isa::Engine engine,
                       unsigned queue, llvm::StringRef text = {});
/// The isa::Instruction a tpu op stands for (without its waits, signals, location, Print label and grid step).
isa::Instruction toInstruction(mlir::Operation *op);

} // namespace tessera::tpu
