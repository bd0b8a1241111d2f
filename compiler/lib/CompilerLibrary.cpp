/// \file
/// The compiler's public functions as libtessera.so defines them: each loads libtessera-compiler.so (MLIR and LLVM
/// inside) on the first call, from the folder libtessera.so itself lies in, and calls its function
/// (EntryPoints.h). Commands that compile nothing (`tessera --help`, `list`, `targets`, `isa`, `systolic`) never
/// load it: the dynamic loader's relocation of LLVM was most of their start-up.

#include "EntryPoints.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>

namespace tessera::compiler {
namespace {

const EntryPoints &entryPoints() {
  static const EntryPoints *const points = [] {
    Dl_info self{};
    if (dladdr(reinterpret_cast<const void *>(&entryPoints), &self) == 0 || !self.dli_fname)
      throw Error("cannot find the folder of libtessera.so, beside which the compiler's library lies");
    const std::filesystem::path path =
        std::filesystem::path(self.dli_fname).parent_path() / TESSERA_COMPILER_LIBRARY;
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library)
      throw Error(fmt::format("cannot load the compiler: {}", dlerror()), {},
                  "libtessera-compiler.so belongs beside libtessera.so; reinstall Tessera or rebuild it");
    const auto get = reinterpret_cast<const EntryPoints *(*)()>(dlsym(library, kEntryPointsSymbol));
    if (!get)
      throw Error(fmt::format("{} has no {}", path.string(), kEntryPointsSymbol));
    return get();
  }();
  return *points;
}

} // namespace

CompileResult compile(const tsr::graph::KernelGraph &kernel, const isa::Target &target, const CompileOptions &options) {
  return entryPoints().compile(kernel, target, options);
}

CompileResult compileFile(const std::string &path, const CompileOptions &options) {
  return entryPoints().compileFile(path, options);
}

std::string importToText(const tsr::graph::KernelGraph &kernel, const isa::Target &target) {
  return entryPoints().importToText(kernel, target);
}

std::unique_ptr<GoldenModel> compileGolden(const tsr::graph::KernelGraph &kernel, const GoldenStageCallback &stage,
                                           GoldenWork *work) {
  return entryPoints().compileGolden(kernel, stage, work);
}

void runGolden(const tsr::graph::KernelGraph &kernel, std::vector<std::vector<std::byte>> &tensors,
               const GoldenStageCallback &stage, GoldenWork *work) {
  entryPoints().runGolden(kernel, tensors, stage, work);
}

std::string goldenToText(const tsr::graph::KernelGraph &kernel, GoldenStage stage) {
  return entryPoints().goldenToText(kernel, stage);
}

} // namespace tessera::compiler
