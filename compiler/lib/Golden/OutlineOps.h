#pragma once
/// \file
/// Internal to the golden model: each linalg op of the kernel becomes a call of a private function that holds it,
/// one function for every set of ops that differ only in their operands (the same op, attributes and body, on
/// memrefs of the same shape, strides and element type, at any offset). A kernel of 1,024 column copies is one
/// function of 1,024 loop nests otherwise, which MLIR's scf-to-cf conversion (each loop splits the block it is in)
/// and LLVM's code generation take more than linear time over; as calls, it is a handful of small functions.
/// The ops and their order are unchanged, so are the numerics.

namespace mlir {
class ModuleOp;
}

namespace tessera::compiler::golden {

/// Outlines the linalg ops of every function of `module` (above), before linalg is lowered to loops.
void outlineStructuredOps(mlir::ModuleOp module);

} // namespace tessera::compiler::golden
