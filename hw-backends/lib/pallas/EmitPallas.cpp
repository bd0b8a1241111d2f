//===- EmitPallas.cpp - the Pallas backend's entry: which style, and whether the kernel can be written ------===//
//
// The module itself is written by PallasKernel.cpp from the compiler's plan (tpu-plan-pallas); this file checks
// that the kernel is a TPU kernel compiled with that plan, for the style asked for.
// Test: compiler/test/Backends/pallas.test, pallas-grid.test; tests/unit/backends/PallasTest.cpp.
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/backends/Pallas.h"

#include "PallasKernel.h"
#include "tessera/isa/Family.h"

#include <fmt/format.h>

namespace tessera::backends {

std::string emitPallas(const KernelSource &kernel, PallasStyle style) {
  if (const isa::Family &family = isa::familyOf(*kernel.target); family.deviceBackend() != "pallas")
    throw Error(fmt::format("Pallas: target {} is a {}; Pallas kernels run on TPU targets", kernel.target->name,
                            family.title()),
                {}, fmt::format("use --emit {} for a {} target", family.deviceBackend(), family.title()));
  if (!kernel.program || !kernel.provenance || !kernel.tileProgram || kernel.tileProgram->empty() ||
      !kernel.tileProgram->planned)
    throw Error(fmt::format("Pallas: kernel '{}' was compiled without its loops and their plan", kernel.kernel), {},
                "compile it with CompileOptions::recordProvenance (a module read from a target-level .mlir file has "
                "no loops left: emit from the kernel or its tile-level module)");
  const bool hasGrid = !kernel.tileProgram->gridLoops().empty();
  if (kernel.tileProgram->launchGrid != launchGridFor(style))
    throw Error(fmt::format("Pallas: kernel '{}' was planned {} a launch grid, for another style", kernel.kernel,
                            kernel.tileProgram->launchGrid ? "with" : "without"),
                {}, "compile it with CompileOptions::launchGrid = launchGridFor(style)");
  if (style == PallasStyle::Grid && !hasGrid)
    throw Error(fmt::format("Pallas: kernel '{}' is not a Pallas grid: it has no loop that moves tiles (a load or "
                            "store inside it) at its top level",
                            kernel.kernel),
                {}, "--pallas-style auto (the default) or manual writes it as one kernel invocation");
  return writePallasKernel(kernel, hasGrid ? "grid" : "manual");
}

std::optional<PallasStyle> parsePallasStyle(std::string_view name) {
  if (name == "manual") return PallasStyle::Manual;
  if (name == "grid") return PallasStyle::Grid;
  if (name == "auto") return PallasStyle::Auto;
  return std::nullopt;
}

} // namespace tessera::backends
