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

/// How the kernel's data movement is written.
enum class PallasStyle {
  /// One statement per instruction the simulator ran, in program order. HBM tensors stay in HBM (pl.ANY), tiles
  /// are VMEM scratch buffers, and every DMA is a pltpu async copy with its own DMA semaphore, started as soon as
  /// the simulated program's semaphores allow it and waited on just before anything needs it: the program's
  /// synchronisation, which Pallas' race detector then checks. Every TPU kernel can be written so.
  Manual,
  /// The kernel's loops as the pallas_call grid and its loads and stores as BlockSpecs, which Pallas pipelines
  /// (the reduction loop of a matmul-like kernel the last, "arbitrary" grid dimension): what a Pallas author
  /// writes. Only for kernels whose loops are a grid (PallasGrid.cpp says which); an error names why not.
  Grid,
  /// Grid where the kernel's loops are a grid, else Manual.
  Auto,
};

/// "manual", "grid", "auto"; nullopt for another name.
std::optional<PallasStyle> parsePallasStyle(std::string_view name);

/// The Python source of the Pallas kernel. Throws tessera::Error (at the kernel's line where there is one) for a
/// NeuronCore target, a kernel compiled without provenance, or an operand Pallas cannot name.
std::string emitPallas(const KernelSource &kernel, PallasStyle style = PallasStyle::Manual);

} // namespace tessera::backends
