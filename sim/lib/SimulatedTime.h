#pragma once
/// \file
/// Picosecond arithmetic that stops at the simulator's horizon (kMaxSimulatedPs) instead of wrapping.

#include "tessera/sim/SimulatedTimeOverflow.h"

#include <cstdint>
#include <string_view>

namespace tessera::sim {

/// `ns` as whole picoseconds (nearest); throws SimulatedTimeOverflow past the horizon. `what` names the duration
/// in the message ("a DMA transfer's fixed latency").
uint64_t picosecondsOf(double ns, std::string_view what);

/// `cycles` at `psPerCycle` as whole picoseconds (nearest), with the same horizon.
uint64_t picosecondsOfCycles(uint64_t cycles, double psPerCycle, std::string_view what);

/// `nowPs + durationPs`, the time an instruction ends; throws SimulatedTimeOverflow past the horizon.
uint64_t endOf(uint64_t nowPs, uint64_t durationPs, std::string_view what);

} // namespace tessera::sim
