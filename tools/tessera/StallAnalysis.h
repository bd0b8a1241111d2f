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

/// What the busiest compute stream (the lead: the matrix unit for a matmul) waited for longest: the DMA queues
/// counted together ("DMA") or another engine by name ("vector"). It says why a run that keeps no resource busy
/// (RunReport::bound() "overhead") is slow: the README's trn2 matmul has its tensor engine busy 35.6% of the run and
/// waiting 52.2% on DMA's fixed per-transfer costs.
struct LeadWait {
  int32_t lead = -1;        ///< stream index of the lead; -1 when no compute stream ran
  double leadBusyShare = 0; ///< the lead's busy time over the run's, 0..1
  std::string waitedFor;    ///< "DMA" or an engine's stream name; empty when the lead waited for no signal
  double waitShare = 0;     ///< that wait over the run's time, 0..1
};

/// `stalls`: stallReasons(program, result), which the caller has already (the report's stall section uses it too).
LeadWait leadWait(const isa::Program &program, const sim::SimResult &result, const std::vector<Stall> &stalls);

/// For each timeline event (same order), the stream whose signal let it start, or -1 (it did not wait).
std::vector<int32_t> bindingProducers(const isa::Program &program, const std::vector<sim::InstructionEvent> &events);

} // namespace tessera::driver
