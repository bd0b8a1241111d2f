#pragma once
/// \file
/// The compiler's public functions (Compiler.h, Golden.h) as libtessera-compiler.so hands them to libtessera.so:
/// MLIR and LLVM live in the compiler's own library, which libtessera.so loads on the first call of one of them
/// (CompilerLibrary.cpp), so that a program or command that compiles nothing never loads them.

#include "tessera/compiler/Compiler.h"
#include "tessera/compiler/Golden.h"

#include <string>
#include <vector>

namespace tessera::compiler {

struct EntryPoints {
  CompileResult (*compile)(const tsr::graph::KernelGraph &, const isa::Target &, const CompileOptions &);
  CompileResult (*compileFile)(const std::string &, const CompileOptions &);
  std::string (*importToText)(const tsr::graph::KernelGraph &, const isa::Target &);
  void (*runGolden)(const tsr::graph::KernelGraph &, std::vector<std::vector<std::byte>> &,
                    const GoldenStageCallback &, GoldenWork *);
  std::string (*goldenToText)(const tsr::graph::KernelGraph &, GoldenStage);
  std::unique_ptr<GoldenModel> (*compileGolden)(const tsr::graph::KernelGraph &, const GoldenStageCallback &,
                                                GoldenWork *);
};

/// The C symbol of libtessera-compiler.so that returns its EntryPoints: `const EntryPoints *f()`.
inline constexpr const char *kEntryPointsSymbol = "tessera_compiler_entry_points";

} // namespace tessera::compiler
