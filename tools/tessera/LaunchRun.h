#pragma once
/// \file
/// An SPMD launch through the driver: each core's share of the kernel compiled on its own (compiler::coreShare),
/// the cores simulated at once on one chip (sim::simulateChip), and their results put together as one run whose
/// streams are named by core ("core1.vector"), for the report, the trace and the checks.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tessera::driver {

/// What one core of an SPMD launch did.
struct CoreRun {
  unsigned core = 0;
  int64_t firstProgram = 0, programs = 0; ///< its block of the launch grid's axis 0
  double timeNs = 0;                      ///< when its last instruction completed
  uint64_t instructions = 0;
  uint64_t hbmBytes = 0;
};

/// Simulates `cores` (one program per core, compiled from the same kernel) on one chip of `target`, and returns
/// the run as one SimResult: the streams of every core in core order, named by core, the timeline's stream indices
/// into mergeCores(cores)'s streams, the prints of every core in time order, the totals, and the chip's time (its
/// slowest core). `perCore`, when given, holds one entry per core (its block of programs), whose time,
/// instructions and HBM bytes the run fills in. One program is simulated alone, as sim::simulate does.
sim::SimResult simulateLaunch(std::span<const isa::Program> cores, const isa::Target &target, sim::HbmImage &hbm,
                              const sim::SimOptions &options, std::vector<CoreRun> *perCore = nullptr);

} // namespace tessera::driver
