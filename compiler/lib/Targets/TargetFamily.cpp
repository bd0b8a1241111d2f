/// \file
/// The one list of the compiler's target families: where a target's family is chosen.

#include "TargetFamily.h"

#include <fmt/format.h>

#include <array>

namespace tessera::compiler {

std::span<const TargetFamily *const> targetFamilies() {
  static const std::array<const TargetFamily *, 2> all = {&neuronCoreFamily(), &tpuFamily()};
  return all;
}

const TargetFamily &targetFamily(const isa::Target &target) {
  const isa::Family &family = isa::familyOf(target);
  for (const TargetFamily *f : targetFamilies())
    if (&f->family() == &family) return *f;
  throw Error(fmt::format("the compiler has no {} family (target {})", family.name(), target.name), {},
              "a family's compiler side is a folder of compiler/lib/Targets/, listed in TargetFamily.cpp");
}

mlir::LogicalResult requireFamily(mlir::Operation *module, const isa::Target &target, const TargetFamily &family,
                                  llvm::StringRef pass) {
  const TargetFamily &actual = targetFamily(target);
  if (&actual == &family) return mlir::success();
  return module->emitError() << pass << ": target " << target.name << " is a " << actual.family().title()
                             << "; lower its kernels with " << actual.loweringPass()
                             << " (or tessera-pipeline, which picks the lowering by the target)";
}

} // namespace tessera::compiler
