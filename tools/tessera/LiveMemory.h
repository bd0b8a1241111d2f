#pragma once
/// \file
/// How much SBUF and PSUM holds live data over a run: what the trace's occupancy counters and the HTML report's
/// memory chart show.

#include "tessera/isa/Program.h"
#include "tessera/sim/Simulator.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace tessera::driver {

/// Bytes per partition of SBUF and PSUM that hold live data, over time. A byte is live from the start of the
/// instruction that writes it to the end of the last instruction that reads that value (a value nothing reads
/// is live while it is written). Counted per address within a partition: a byte live in any partition counts.
struct LiveBytes {
  /// Steps: from `first` ns on, `second` bytes are live, until the next step. Starts at time 0.
  std::vector<std::pair<double, int64_t>> sbuf, psum;
  int64_t sbufPeak = 0, psumPeak = 0;
};

/// Live SBUF and PSUM bytes over time, from a run's timeline and its program's access patterns.
LiveBytes liveBytesOverTime(const isa::Program &program, const std::vector<sim::InstructionEvent> &timeline);

} // namespace tessera::driver
