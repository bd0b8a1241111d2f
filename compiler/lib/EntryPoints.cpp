/// \file
/// libtessera-compiler.so's EntryPoints (EntryPoints.h). The library is linked with -Bsymbolic-functions, so the
/// addresses taken here are its own definitions, not libtessera.so's forwarding ones of the same names.

#include "EntryPoints.h"

extern "C" const tessera::compiler::EntryPoints *tessera_compiler_entry_points() {
  using namespace tessera::compiler;
  static const EntryPoints points{.compile = &compile,
                                  .compileFile = &compileFile,
                                  .importToText = &importToText,
                                  .runGolden = &runGolden,
                                  .goldenToText = &goldenToText,
                                  .compileGolden = &compileGolden};
  return &points;
}
