#pragma once
/// \file
/// What every dialect that holds instructions shares (tile.inst, and each target family's dialect): element types
/// as isa::DTypes, and an instruction's settings as a `params` dictionary (the names of isa/Settings.h).

#include "tessera/isa/Program.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>

namespace tessera::compiler {

/// The element type an isa::DType is in MLIR, and back (nullopt for a type with no isa equivalent).
mlir::Type mlirTypeOf(mlir::MLIRContext *ctx, isa::DType t);
std::optional<isa::DType> dtypeOf(mlir::Type t);

/// An instruction's settings as the `params` dictionary of nc.inst and tile.inst: only those that differ from their
/// defaults, by isa::key().
mlir::DictionaryAttr paramsAttr(mlir::OpBuilder &b, const isa::Instruction &inst);
/// Reads a `params` dictionary into `inst`: "" when every entry is known and well-typed, else what is wrong.
std::string readParams(mlir::DictionaryAttr params, isa::Instruction &inst);

} // namespace tessera::compiler
