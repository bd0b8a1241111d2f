#include "memory/DmaEngines.h"

#include "SimulatedTime.h"

#include "tessera/sim/SimulatedTimeOverflow.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>

namespace tessera::sim {
namespace {

constexpr std::string_view kStreaming = "a DMA transfer's streaming time", kHbmTime = "a DMA transfer's HBM time";

/// `ns` in whole picoseconds, or nothing where that would pass the horizon (picosecondsOf throws).
std::optional<uint64_t> knownPicoseconds(double ns, std::string_view what) {
  try {
    return picosecondsOf(ns, what);
  } catch (const SimulatedTimeOverflow &) {
    return std::nullopt;
  }
}

} // namespace

DmaEngines::TransferTimes::TransferTimes(const isa::DmaTransferCost &c, const Hbm &hbm)
    : cost(c), poolHbmNs(hbm.poolNs(c.hbmNs)) {
  if (const std::optional<uint64_t> ps = knownPicoseconds(cost.streamingNs, kStreaming)) {
    streamingPs = *ps;
    streamingKnown = true;
  }
  if (const std::optional<uint64_t> ps = knownPicoseconds(poolHbmNs, kHbmTime)) {
    hbmPs = *ps;
    hbmKnown = true;
  }
}

DmaEngines::DmaEngines(Hbm &hbm, const isa::Target &target)
    : hbm_(hbm), engineFreeAtPs_(std::max(1u, target.dma.engines)) {
  fixedLatencyPs_ = picosecondsOf(target.dma.fixedLatencyNs, "the DMA fixed latency (dma.fixed_latency_ns)");
  descriptorPs_ = picosecondsOf(target.dma.descriptorNs, "the DMA descriptor time (dma.descriptor_ns)");
}

DmaEngines::Reservation DmaEngines::reserveTransfer(uint64_t readyPs, unsigned queueEngine,
                                                    const TransferTimes &times) {
  // Its slot on the descriptor generator, in the order transfers arrive; it may complete no earlier.
  uint64_t described = readyPs;
  if (descriptorPs_ != 0)
    descriptorFreeAtPs_ = described = endOf(std::max(readyPs, descriptorFreeAtPs_), descriptorPs_, "a DMA transfer");
  const uint64_t streamingPs =
      times.streamingKnown ? times.streamingPs : picosecondsOf(times.cost.streamingNs, kStreaming);
  const isa::DmaTransferCost &cost = times.cost;
  const unsigned first = cost.engines ? cost.firstEngine : queueEngine, count = std::max(1u, cost.engines);
  uint64_t start = std::numeric_limits<uint64_t>::max(), streamed = described;
  for (unsigned k = 0; k < count; ++k) {
    uint64_t &engineFreeAt = engineFreeAtPs_[(first + k) % engineFreeAtPs_.size()];
    const uint64_t from = std::max(readyPs, engineFreeAt);
    start = std::min(start, from);
    engineFreeAt = endOf(from, streamingPs, "a DMA transfer");
    streamed = std::max(streamed, engineFreeAt);
  }
  Reservation r;
  if (cost.hbmBytes != 0) {
    const uint64_t hbmPs = times.hbmKnown ? times.hbmPs : picosecondsOf(times.poolHbmNs, kHbmTime);
    const Hbm::Slot slot = hbm_.reserve(start, hbmPs);
    r.hbmFromPs = slot.fromPs;
    r.hbmToPs = slot.toPs;
    streamed = std::max(streamed, slot.toPs);
  }
  r.donePs = std::max(endOf(readyPs, fixedLatencyPs_, "a DMA transfer"), streamed);
  return r;
}

} // namespace tessera::sim
