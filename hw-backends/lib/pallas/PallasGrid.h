#pragma once
/// \file
/// Internal to the Pallas backend: the grid style (PallasGrid.cpp).

#include "tessera/backends/KernelSource.h"

#include <optional>
#include <string>

namespace tessera::backends {

/// The kernel as a pallas_call over a grid with BlockSpecs, from its traced graph; nullopt when its loops are not
/// a Pallas grid, with the reason in `whyNot`.
std::optional<std::string> emitPallasGrid(const KernelSource &kernel, std::string &whyNot);

} // namespace tessera::backends
