#pragma once
/// \file
/// Internal to the golden model: each linalg op of the kernel becomes a call of a private function that holds it,
/// one function for every set of ops that differ only in their operands (the same op, attributes and body, on
/// memrefs of the same shape, strides and element type, at any offset). A kernel of 1,024 column copies is one
/// function of 1,024 loop nests otherwise, which MLIR's scf-to-cf conversion (each loop splits the block it is in)
/// and LLVM's code generation take more than linear time over; as calls, it is a handful of small functions.
/// The ops and their order are unchanged, so are the numerics. Other ops that compute on elements (tile.scan's
/// loops) carry kOutlineAttr and are outlined the same way, so the kernel's own function is only glue: calls,
/// addresses, its loops. The golden model compiles that function without optimisation (GoldenModel.cpp).

#include <cstddef>

namespace mlir {
class ModuleOp;
}

namespace tessera::compiler::golden {

/// The attribute (a unit attribute) that marks an op to outline besides the linalg ops; removed when outlined.
inline constexpr const char kOutlineAttr[] = "golden.outline";
/// How the names of the outlined functions start (then a number).
inline constexpr const char kOutlinedPrefix[] = "__golden_op_";

/// Outlines the linalg ops of every function of `module` (above), before linalg is lowered to loops. Returns how
/// many ops became calls.
size_t outlineStructuredOps(mlir::ModuleOp module);

} // namespace tessera::compiler::golden
