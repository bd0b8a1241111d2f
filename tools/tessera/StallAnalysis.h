#pragma once
/// \file
/// What each engine waited for: a run's semaphore waits attributed to the streams whose signals ended them, as the
/// HTML report's stall section and timeline show them. tests/unit/e2e/HtmlReportTest.cpp checks it on hand-worked
/// examples.

#include "tessera/isa/Program.h"
#include "tessera/sim/Simulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::driver {

/// Time one stream spent waiting for the signal of another.
struct Stall {
  uint32_t waiter = 0;    ///< stream index (Program::streams)
  int32_t producer = -1;  ///< the stream whose signal ended the wait; -1 when no signal explains it
  double waitNs = 0;
};

/// For each waiting stream, its semaphore wait time attributed to the stream it waited for, largest first. An
/// instruction's wait (InstructionEvent issueNs to startNs) goes to the producer of the semaphore signal that
/// arrived last among those it waited for: that signal is what let it start.
std::vector<Stall> stallReasons(const isa::Program &program, const sim::SimResult &result);

/// What held a run back, read from its busiest compute stream (the lead: the matrix unit for a matmul). A lead busy
/// half the run or more makes it compute-bound; else the run is bound by what the lead waited for longest, the DMA
/// queues counted together ("DMA") or another engine by name ("vector"); a lead idle more than half the run yet
/// waiting for no other engine's signal is latency-bound (fixed costs, a TPU's grid-step barriers, filled it).
struct RunBound {
  std::string verdict;      ///< "compute", "DMA", the engine waited for, or "latency"
  int32_t lead = -1;        ///< stream index of the lead; -1 when no compute stream ran
  double leadBusyShare = 0; ///< the lead's busy time over the run's, 0..1
  double waitShare = 0;     ///< the lead's wait for the verdict's streams over the run's time (0: compute-bound)
};

RunBound runBound(const isa::Program &program, const sim::SimResult &result);

/// For each timeline event (same order), the stream whose signal let it start, or -1 (it did not wait).
std::vector<int32_t> bindingProducers(const isa::Program &program, const std::vector<sim::InstructionEvent> &events);

} // namespace tessera::driver
