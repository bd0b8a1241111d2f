#include "memory/Hbm.h"

#include "SimulatedTime.h"

#include "tessera/sim/SimulatedTimeOverflow.h"

#include <algorithm>
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
}

Hbm::Reservation Hbm::reserveTransfer(uint64_t readyPs, unsigned engine, const TransferTimes &times) {
  // In the order the conversions and sums would fail, so a transfer past the horizon fails with the same message.
  uint64_t &engineFreeAt = engineFreeAtPs_[engine % engineFreeAtPs_.size()];
  const uint64_t start = std::max(readyPs, engineFreeAt);
  const uint64_t streamingPs = times.streamingKnown ? times.streamingPs : picosecondsOf(times.cost.streamingNs, kStreaming);
  engineFreeAt = endOf(start, streamingPs, "a DMA transfer");
  uint64_t streamed = engineFreeAt;
  Reservation r;
  if (times.cost.hbmBytes != 0) {
    r.hbmFromPs = std::max(start, hbmFreeAtPs_);
    const uint64_t hbmPs = times.hbmKnown ? times.hbmPs : picosecondsOf(times.cost.hbmNs, kHbmTime);
    hbmFreeAtPs_ = r.hbmToPs = endOf(r.hbmFromPs, hbmPs, "a DMA transfer");
    streamed = std::max(streamed, hbmFreeAtPs_);
  }
  r.donePs = endOf(streamed, fixedLatencyPs_, "a DMA transfer");
  return r;
}

} // namespace tessera::sim
