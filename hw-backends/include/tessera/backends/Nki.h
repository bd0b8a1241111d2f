#pragma once
/// \file
/// The NKI backend: a compiled NeuronCore kernel as a Python module with one `@nki.jit` kernel for NKI 0.6 (Neuron
/// SDK 2.32), one nki.isa call per instruction the simulator ran, in program order, on the engine it ran on.
/// docs/backends.md has the table of every instruction and the call it becomes, and what was verified.

#include "tessera/backends/KernelSource.h"

#include <string>

namespace tessera::backends {

/// The Python source of the NKI kernel. Throws tessera::Error (at the kernel's line where there is one) for a TPU
/// target, a kernel compiled without provenance, or an instruction NKI 0.6 cannot express.
std::string emitNki(const KernelSource &kernel);

} // namespace tessera::backends
