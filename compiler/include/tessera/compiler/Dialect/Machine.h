#pragma once
/// \file
/// What the passes after lowering (insert-semaphores, the export to isa::Program) ask of an instruction, whichever
/// target family's dialect holds it: each function asks the op's dialect (MachineDialect.h).

#include "tessera/isa/Family.h"
#include "tessera/isa/Program.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tessera::compiler {

/// Whether `op` is an instruction of a target family's dialect, and that family (null: none).
bool isMachineInstruction(mlir::Operation *op);
const isa::Family *machineFamilyOf(mlir::Operation *op);

/// The kind of stream that runs `op` (nullopt: not an instruction, or its `engine` names none of its dialect's).
std::optional<isa::Engine> machineEngineOf(mlir::Operation *op);

/// The DMA queue of `op` (0 on a compute engine).
unsigned machineQueueOf(mlir::Operation *op);

/// The isa::Instruction `op` stands for, without its waits, signals, location, Print label and grid step.
isa::Instruction machineInstructionOf(mlir::Operation *op);

/// A Print instruction's label ("" for any other op).
llvm::StringRef printLabelOf(mlir::Operation *op);

/// Whether `op` comes from a tsr::isa::manual_sync scope (NeuronCore only): the kernel's own semaphores order it
/// after the other instructions of such scopes.
bool isManualInstruction(mlir::Operation *op);

/// Every access pattern `op` reads and writes, by the instruction's definition (isa::operandUse).
struct MachineOperands {
  llvm::SmallVector<isa::AccessPattern, 4> reads;
  llvm::SmallVector<isa::AccessPattern, 2> writes;
};
MachineOperands machineOperandsOf(mlir::Operation *op);

} // namespace tessera::compiler
