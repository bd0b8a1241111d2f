#pragma once
/// \file
/// The deploy bundle's runner: hw-backends/deploy/run.py, compiled into the library so an installed tessera can
/// write it into every bundle.

#include <string_view>

namespace tessera::backends {

/// The text of run.py: it runs a bundled kernel on the device (or in Pallas' interpret mode, or nki.simulate),
/// compares its outputs with the simulator's, and records measured and predicted time.
std::string_view deployRunner();

} // namespace tessera::backends
