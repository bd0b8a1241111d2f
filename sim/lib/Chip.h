#pragma once
/// \file
/// The chip-level part of a run: the cores of one chip, one Core module per program, and what they share: HBM (the
/// tensors and the bandwidth pool of the launched cores' shares, memory/Hbm.h) and the run's first failure and
/// progress count (ChipRun). One sc_start() runs every core; SystemC runs their engines in the order they were
/// built (core 0's streams, then core 1's, ...), so the schedule, ties included, is deterministic. With one core
/// this is exactly the one-core machine of simulate().

#include "Core.h"
#include "RunEnvironment.h"
#include "memory/Hbm.h"

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <memory>
#include <span>
#include <vector>

namespace tessera::sim {

class Chip {
public:
  /// Builds the cores in the current sc_simcontext. Every program must have passed checkStreams() and have the
  /// tensors of the first, `hbm` must have passed prepareHbm(); all must outlive the chip.
  Chip(std::span<const isa::Program> programs, const isa::Target &target, HbmImage &hbm, const SimOptions &options);
  ~Chip();

  /// Runs every core until no engine can proceed. Rethrows the first failure of any engine (with several cores,
  /// its message starts "core N: "); throws a deadlock KernelBugError naming every blocked stream of every core
  /// when some stream has not finished.
  void run();

  /// Each core's results (their timelines moved out) and the chip's totals.
  ChipResult results();

private:
  [[noreturn]] void rethrowFailure() const;
  [[noreturn]] void throwDeadlock() const;

  Hbm hbm_;
  ChipRun run_;
  std::vector<std::unique_ptr<Core>> cores_;
};

} // namespace tessera::sim
