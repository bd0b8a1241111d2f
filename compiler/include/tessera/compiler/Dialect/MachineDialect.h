#pragma once
/// \file
/// What a target family's dialect tells the passes after lowering (insert-semaphores, the export to isa::Program)
/// about its instruction ops. Each family's dialect registers an implementation (Targets/<Family>/); the shared
/// passes ask the op's dialect for it and name no family.

#include "tessera/isa/Family.h"
#include "tessera/isa/Program.h"

#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace tessera::compiler {

class MachineDialectInterface : public mlir::DialectInterface::Base<MachineDialectInterface> {
public:
  explicit MachineDialectInterface(mlir::Dialect *dialect) : Base(dialect) {}

  /// The family whose instructions the dialect holds.
  virtual const isa::Family &family() const = 0;
  /// The stream that runs `op` (nullopt: its `engine` names none of the family's).
  virtual std::optional<isa::Engine> engineOf(mlir::Operation *op) const = 0;
  /// The instruction `op` stands for, without its waits, signals, location, Print label and grid step.
  virtual isa::Instruction instructionOf(mlir::Operation *op) const = 0;
  /// A Print instruction's label ("" for any other op).
  virtual llvm::StringRef printLabelOf(mlir::Operation *op) const = 0;
  /// Whether `op` comes from a tsr::isa::manual_sync scope.
  virtual bool isManual(mlir::Operation *) const { return false; }
};

} // namespace tessera::compiler
