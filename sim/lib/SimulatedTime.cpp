#include "SimulatedTime.h"

#include <fmt/format.h>

namespace tessera::sim {
namespace {

constexpr double kPsPerNs = 1000.0;

[[noreturn]] void overflow(const std::string &what) {
  throw SimulatedTimeOverflow(
      fmt::format("{}: the simulated time would pass {:.4g} us (2^62 ps, about 53 days), the latest the simulator's "
                  "clock counts to",
                  what, static_cast<double>(kMaxSimulatedPs) / 1e6),
      {}, "check the target's figures (latencies, bandwidths, clocks) and the kernel's shapes");
}

/// Whole picoseconds nearest `ps` (as the engines always rounded), or the horizon's error.
uint64_t wholePicoseconds(double ps, std::string_view what, double ns) {
  const double rounded = ps + 0.5;
  if (!(rounded >= 0) || rounded > static_cast<double>(kMaxSimulatedPs))
    overflow(fmt::format("{} of {:.4g} ns", what, ns));
  return static_cast<uint64_t>(rounded);
}

} // namespace

uint64_t picosecondsOf(double ns, std::string_view what) { return wholePicoseconds(ns * kPsPerNs, what, ns); }

uint64_t picosecondsOfCycles(uint64_t cycles, double psPerCycle, std::string_view what) {
  const double ps = static_cast<double>(cycles) * psPerCycle;
  return wholePicoseconds(ps, what, ps / kPsPerNs);
}

uint64_t endOf(uint64_t nowPs, uint64_t durationPs, std::string_view what) {
  if (durationPs > kMaxSimulatedPs || nowPs > kMaxSimulatedPs - durationPs)
    overflow(fmt::format("{} ending at {:.4g} us", what,
                         (static_cast<double>(nowPs) + static_cast<double>(durationPs)) / 1e6));
  return nowPs + durationPs;
}

} // namespace tessera::sim
