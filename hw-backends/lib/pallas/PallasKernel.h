#pragma once
/// \file
/// Internal to the Pallas backend: the writer of a Pallas TPU kernel from the kernel's loops and the compiler's plan
/// (compiler::TileProgram, made by tpu-plan-pallas).

#include "tessera/backends/KernelSource.h"

#include <string>
#include <string_view>

namespace tessera::backends {

/// The module: its docstring says `style` ("grid" or "manual") and what that means.
std::string writePallasKernel(const KernelSource &kernel, std::string_view style);

} // namespace tessera::backends
