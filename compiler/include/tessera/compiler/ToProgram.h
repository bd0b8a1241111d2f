#pragma once
/// \file
/// The compiler's last step: an nc or tpu module (flat, synchronised) becomes an isa::Program of per-engine streams.

#include "tessera/compiler/Provenance.h"
#include "tessera/isa/Program.h"

#include "mlir/IR/BuiltinOps.h"

namespace tessera::compiler {

/// The kernel source position an MLIR location carries (unknown when it carries none).
SourceLoc sourceOf(mlir::Location loc);

/// Converts the single kernel function of `module`. Throws tessera::Error for a module that is not at the nc or
/// tpu level (a tile op left, an unknown op, both dialects at once). TPU compute instructions get their issue
/// numbers (isa::Instruction::issue) here, in program order. When `order` is given, it receives every
/// instruction in module order with the tile op it came from (the tile.origin attribute the lowering set, or -1).
isa::Program toProgram(mlir::ModuleOp module, std::vector<ProgramStep> *order = nullptr);

} // namespace tessera::compiler
