#pragma once
/// \file
/// An SPMD launch on a chip's cores: a kernel with a launch grid (tsr::graph::KernelGraph::grid) runs its programs
/// on the cores a launch uses on the target (isa::HbmSpec::launchCores), each core a contiguous block of the grid's
/// axis 0, as NKI spreads kernel[2]'s programs over a logical NeuronCore's physical cores and Mosaic splits a
/// megacore's leading parallel grid dimension. Each core's share is compiled to a program of its own; the simulator
/// runs them at once (sim::simulateChip). No MLIR here.

#include "tessera/dsl/Graph.h"
#include "tessera/isa/Target.h"

namespace tessera::compiler {

/// How many cores `kernel` runs on, on `target`: the target's launch cores, at most the programs along the grid's
/// axis 0; 1 for a kernel without a launch grid.
unsigned launchCores(const tsr::graph::KernelGraph &kernel, const isa::Target &target);

/// The block of `programs` (along the launch grid's axis 0) that core `core` of `cores` runs: [first, end), with
/// first = core * programs / cores.
struct CoreBlock {
  int64_t first = 0, end = 0;
  int64_t programs() const { return end - first; }
};
CoreBlock coreBlock(int64_t programs, unsigned core, unsigned cores);

/// The programs of `kernel` that core `core` of `cores` runs: the grid's axis-0 loop cut to that core's block,
/// programs [core * n / cores, (core + 1) * n / cores) of its n, every index of the loop shifted to match.
/// `kernel` itself when it has no launch grid or `cores` is 1.
tsr::graph::KernelGraph coreShare(const tsr::graph::KernelGraph &kernel, unsigned core, unsigned cores);

} // namespace tessera::compiler
