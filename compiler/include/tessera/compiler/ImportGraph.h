#pragma once
/// \file
/// Imports a traced kernel graph into the tile dialect: one func.func whose arguments are the HBM tensors, with
/// scf.for loops, index arithmetic for tile offsets, and each op located at the kernel's source line.

#include "tessera/dsl/Graph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace tessera::compiler {

mlir::OwningOpRef<mlir::ModuleOp> importGraph(mlir::MLIRContext &ctx, const tsr::graph::KernelGraph &kernel,
                                              const std::string &targetName);

} // namespace tessera::compiler
