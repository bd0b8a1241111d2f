#pragma once
/// \file
/// The Pallas backend: a compiled TPU kernel as a Python module with one `pl.pallas_call` kernel for JAX's Pallas
/// TPU (Mosaic), runnable in Pallas' interpret mode on a CPU and exportable for a TPU.
/// docs/backends.md has the table of every instruction and what it becomes, and what was verified.

#include "tessera/backends/KernelSource.h"

#include <optional>
#include <string>
#include <string_view>

namespace tessera::backends {

/// How the kernel's loops and data movement are written. Both keep the kernel's loops (pl.loop, or Python loops
/// where an offset must be static) and its synchronisation, as the compiler planned them (tpu-plan-pallas; the
/// kernel must be compiled with CompileOptions::launchGrid set as launchGridFor(style) says).
enum class PallasStyle {
  /// One kernel invocation: tensors stay in HBM (pl.ANY) and every load and store is a pltpu async copy with its own
  /// DMA semaphore, prefetched one iteration ahead into a tile's next copy where the simulated program rotates it.
  Manual,
  /// The kernel's outer loops as pallas_call's grid and their windows as BlockSpecs, which Pallas pipelines (a
  /// dimension a step depends on along is "arbitrary"): what a Pallas author writes. A tensor whose windows are not
  /// blocks is copied by hand as in the manual style. An error when the kernel has no loop a grid can take.
  Grid,
  /// Grid where the kernel has a loop a grid can take, else the manual style's one invocation (the default).
  Auto,
};

/// Whether the kernel is compiled for `style` with a launch grid planned (CompileOptions::launchGrid).
inline bool launchGridFor(PallasStyle style) { return style != PallasStyle::Manual; }

/// "manual", "grid", "auto"; nullopt for another name.
std::optional<PallasStyle> parsePallasStyle(std::string_view name);

/// The Python source of the Pallas kernel. Throws tessera::Error (at the kernel's line where there is one) for a
/// NeuronCore target, a kernel compiled without provenance (KernelSource::tileProgram), a plan made for another
/// style, or an op Pallas cannot write.
std::string emitPallas(const KernelSource &kernel, PallasStyle style = PallasStyle::Auto);

} // namespace tessera::backends
