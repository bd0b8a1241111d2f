#pragma once
/// \file
/// The error a run gets when its simulated time would pass what the simulator's clock can count.

#include "tessera/isa/Error.h"

#include <cstdint>

namespace tessera::sim {

/// The latest simulated time, in picoseconds: 2^62 ps, about 53 days. SystemC counts picoseconds in 64 bits; stopping
/// at 2^62 leaves room for a sum of two times below it, so no arithmetic on the way to the check wraps.
inline constexpr uint64_t kMaxSimulatedPs = uint64_t{1} << 62;

/// Thrown by sim::simulate when an instruction would end past kMaxSimulatedPs (a DMA fixed latency of 1e18 ns, a
/// clock of 1e-12 GHz): the run stops instead of wrapping to a time near zero. The driver reports it as a limit.
class SimulatedTimeOverflow : public Error {
public:
  using Error::Error;
};

} // namespace tessera::sim
