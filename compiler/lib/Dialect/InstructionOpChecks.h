#pragma once
/// \file
/// Internal to the target dialects (nc, tpu): what their instruction ops have in common, parsed and checked once.
/// Each op carries `engine`, `queue`, `waits` and `signals`, access pattern attributes, and for some an ALU
/// operator (`op`) or an activation function (`func`) by name.

#include "tessera/isa/Program.h"

#include "mlir/IR/Operation.h"

#include <initializer_list>
#include <optional>

namespace tessera::compiler {

/// `name` as one of `spaces` (nullopt: none of them).
std::optional<isa::MemSpace> parseMemSpace(llvm::StringRef name, std::initializer_list<isa::MemSpace> spaces);

/// `op`'s `engine` attribute as one of `engines` (nullopt: missing, or none of them).
std::optional<isa::Engine> parseEngine(mlir::Operation *op, std::initializer_list<isa::Engine> engines);

/// Checks `waits` ((semaphore, count) pairs), `signals`, `queue` and the `op`/`func` names of any instruction op.
mlir::LogicalResult verifyInstructionAttributes(mlir::Operation *op);

/// The fields of one access pattern attribute that every dialect checks alike.
struct PatternShape {
  llvm::StringRef space;
  bool spaceKnown = false;   ///< `space` is one of the dialect's memory spaces
  mlir::Type dtype;
  bool dtypeKnown = false;   ///< `dtype` has an isa::DType
  size_t dims = 0, strides = 0;
  int64_t rows = 0;          ///< partitions (nc) or rows (tpu)
  int64_t tensor = -1;
};

/// Checks one access pattern of `op`: a known space and element type, 1 to 4 free dimensions each with a stride,
/// at least one `rowWord` ("partition", "row"), a tensor exactly when in HBM, and HBM only for DMA.
mlir::LogicalResult verifyPatternShape(mlir::Operation *op, const PatternShape &p, isa::Engine engine,
                                       llvm::StringRef rowWord);

/// Checks that `engine` is among the engines of `opcode`'s definition.
mlir::LogicalResult verifyEngine(mlir::Operation *op, isa::Opcode opcode, isa::Engine engine);

/// Checks `inst` (the op as an instruction) against its definition's own rules (isa::verifyInstruction).
mlir::LogicalResult verifyAgainstDefinition(mlir::Operation *op, const isa::Instruction &inst, isa::Engine engine);

} // namespace tessera::compiler
