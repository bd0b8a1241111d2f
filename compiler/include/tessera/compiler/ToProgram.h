#pragma once
/// \file
/// The compiler's last step: an nc or tpu module (flat, synchronised) becomes an isa::Program of per-engine streams.

#include "tessera/isa/Program.h"

#include "mlir/IR/BuiltinOps.h"

namespace tessera::compiler {

/// The kernel source position an MLIR location carries (unknown when it carries none).
SourceLoc sourceOf(mlir::Location loc);

/// Converts the single kernel function of `module`. Throws tessera::Error for a module that is not at the nc or
/// tpu level (a tile op left, an unknown op, both dialects at once). TPU compute instructions get their issue
/// numbers (isa::Instruction::issue) here, in program order.
isa::Program toProgram(mlir::ModuleOp module);

} // namespace tessera::compiler
