#pragma once
/// \file
/// Internal to the target dialects (nc, tpu): what their instruction ops have in common, parsed, checked, read and
/// built once. Each op carries `engine`, `queue`, `waits` and `signals`, and holds its instruction's fields in
/// attributes of the same names in both dialects (see readInstructionFields).

#include "tessera/isa/Program.h"

#include "mlir/IR/Builders.h"
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

/// The free dimensions of `ap`: the `dims` and `strides` of its attribute.
llvm::SmallVector<int64_t, 4> freeSizesOf(const isa::AccessPattern &ap);
llvm::SmallVector<int64_t, 4> freeStridesOf(const isa::AccessPattern &ap);
/// Sets the free dimensions of `ap` from an attribute's `dims` and `strides` (checked by the verifier).
void setFreeDims(isa::AccessPattern &ap, llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<int64_t> strides);

/// An op of a target dialect and the instruction it stands for: one row of a dialect's table of its ops.
struct InstructionOpName {
  isa::Opcode opcode;
  llvm::StringLiteral name; ///< the op's name, "tpu.vpu_binary"
};

/// The opcode of `op` in `table` (nullopt: none of its ops).
std::optional<isa::Opcode> opcodeIn(llvm::ArrayRef<InstructionOpName> table, mlir::Operation *op);

/// Reads the instruction fields `op` holds into `inst` (whose opcode is the caller's), by attribute name, the same
/// in both dialects: dst; src, lhs or stationary (src0); rhs, moving or weights (src1); op (alu); func; scale; value;
/// accumulate. `toIsa` reads an access pattern attribute.
void readInstructionFields(mlir::Operation *op, isa::Instruction &inst,
                           llvm::function_ref<isa::AccessPattern(mlir::Attribute)> toIsa);

/// Builds op `name` holding `inst`'s fields under those names, on `engine` (DMA: on `queue`); a Print's `label` is
/// `text`. `toAttr` writes an access pattern attribute. Waits and signals are not set here.
mlir::Operation *buildInstructionOp(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                                    const isa::Instruction &inst, isa::Engine engine, unsigned queue,
                                    llvm::StringRef text,
                                    llvm::function_ref<mlir::Attribute(const isa::AccessPattern &)> toAttr);

/// Checks that `engine` is among the engines of `opcode`'s definition.
mlir::LogicalResult verifyEngine(mlir::Operation *op, isa::Opcode opcode, isa::Engine engine);

/// Checks `inst` (the op as an instruction) against its definition's own rules (isa::verifyInstruction).
mlir::LogicalResult verifyAgainstDefinition(mlir::Operation *op, const isa::Instruction &inst, isa::Engine engine);

} // namespace tessera::compiler
