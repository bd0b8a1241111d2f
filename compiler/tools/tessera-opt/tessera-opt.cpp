// tessera-opt: runs any Tessera pass or pipeline on a .mlir file of the tile, nc or tpu dialects, like mlir-opt.
//   tessera-opt kernel.mlir --tile-allocate-memory --lower-tile-to-nc
//   tessera-opt kernel.mlir --tessera-pipeline

#include "tessera/compiler/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tessera::compiler::registerDialects(registry);
  tessera::compiler::registerPasses();
  // A file that does not parse or verify, or a pass that rejects it, is bad input: exit 2, like `tessera`.
  return mlir::failed(mlir::MlirOptMain(argc, argv, "Tessera optimizer driver\n", registry)) ? 2 : 0;
}
