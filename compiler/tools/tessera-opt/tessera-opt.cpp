// tessera-opt: runs any Tessera pass or pipeline on a .mlir file of the tile, nc or tpu dialects, like mlir-opt.
//   tessera-opt kernel.mlir --tile-allocate-memory --lower-tile-to-nc
//   tessera-opt kernel.mlir --tessera-pipeline

#include "Import/Nesting.h"
#include "tessera/compiler/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace {

/// The input file among mlir-opt's arguments: the first that is not an option or `-o`'s value; null for stdin.
const char *inputFile(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-o") == 0) {
      ++i;
      continue;
    }
    if (argv[i][0] != '-') return argv[i];
  }
  return nullptr;
}

/// False, with an error at the place, when `path` nests deeper than MLIR's parser can recurse
/// (compiler/lib/Import/Nesting.h); the parser reports every other problem itself.
bool nestingFits(const char *path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return true;
  std::stringstream text;
  text << in.rdbuf();
  const std::optional<tessera::compiler::DeepNesting> deep = tessera::compiler::findDeepNesting(text.str());
  if (!deep) return true;
  std::fprintf(stderr, "%s:%u:%u: error: brackets nest more than %u levels deep\n", path, deep->line, deep->column,
               tessera::compiler::kMaxNesting);
  return false;
}

} // namespace

int main(int argc, char **argv) {
  if (const char *path = inputFile(argc, argv); path && !nestingFits(path)) return 2;
  mlir::DialectRegistry registry;
  tessera::compiler::registerDialects(registry);
  tessera::compiler::registerPasses();
  // A file that does not parse or verify, or a pass that rejects it, is bad input: exit 2, like `tessera`.
  return mlir::failed(mlir::MlirOptMain(argc, argv, "Tessera optimizer driver\n", registry)) ? 2 : 0;
}
