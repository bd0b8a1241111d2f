#include "memory/Hbm.h"

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

Hbm::TransferTimes::TransferTimes(const isa::DmaTransferCost &c) : cost(c) {
  if (const std::optional<uint64_t> ps = knownPicoseconds(cost.streamingNs, kStreaming)) {
    streamingPs = *ps;
    streamingKnown = true;
  }
  if (const std::optional<uint64_t> ps = knownPicoseconds(cost.hbmNs, kHbmTime)) {
    hbmPs = *ps;
    hbmKnown = true;
  }
}

Hbm::Hbm(HbmImage &image, const isa::Target &target) : engineFreeAtPs_(std::max(1u, target.dma.engines)) {
  tensorBases_.reserve(image.size());
  for (auto &tensor : image)
    tensorBases_.push_back(tensor.data());
  fixedLatencyPs_ = picosecondsOf(target.dma.fixedLatencyNs, "the DMA fixed latency (dma.fixed_latency_ns)");
  descriptorPs_ = picosecondsOf(target.dma.descriptorNs, "the DMA descriptor time (dma.descriptor_ns)");
}

Hbm::Reservation Hbm::reserveTransfer(uint64_t readyPs, unsigned queueEngine, const TransferTimes &times) {
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
    r.hbmFromPs = std::max(start, hbmFreeAtPs_);
    const uint64_t hbmPs = times.hbmKnown ? times.hbmPs : picosecondsOf(cost.hbmNs, kHbmTime);
    hbmFreeAtPs_ = r.hbmToPs = endOf(r.hbmFromPs, hbmPs, "a DMA transfer");
    streamed = std::max(streamed, hbmFreeAtPs_);
  }
  r.donePs = std::max(endOf(readyPs, fixedLatencyPs_, "a DMA transfer"), streamed);
  return r;
}

} // namespace tessera::sim
