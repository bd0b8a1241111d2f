#include "memory/Hbm.h"

#include "SimulatedTime.h"

#include <algorithm>

namespace tessera::sim {
namespace {

/// Nanoseconds as an sc_time at the simulator's picosecond resolution (FreshSimContext sets it); `what` names the
/// duration should it pass the simulator's horizon.
sc_core::sc_time nanoseconds(double ns, std::string_view what) {
  return sc_core::sc_time::from_value(picosecondsOf(ns, what));
}

/// `start + duration`, refused past the horizon.
sc_core::sc_time after(const sc_core::sc_time &start, const sc_core::sc_time &duration) {
  return sc_core::sc_time::from_value(endOf(start.value(), duration.value(), "a DMA transfer"));
}

} // namespace

Hbm::Hbm(HbmImage &image, const isa::Target &target) : engineFreeAt_(std::max(1u, target.dma.engines)) {
  tensorBases_.reserve(image.size());
  for (auto &tensor : image)
    tensorBases_.push_back(tensor.data());
  fixedLatency_ = nanoseconds(target.dma.fixedLatencyNs, "the DMA fixed latency (dma.fixed_latency_ns)");
  descriptor_ = nanoseconds(target.dma.descriptorNs, "the DMA descriptor time (dma.descriptor_ns)");
}

Hbm::Reservation Hbm::reserveTransfer(const sc_core::sc_time &ready, unsigned queueEngine,
                                      const isa::DmaTransferCost &cost) {
  // Its slot on the descriptor generator, in the order transfers arrive; it may complete no earlier.
  sc_core::sc_time described = ready;
  if (descriptor_ != sc_core::SC_ZERO_TIME)
    descriptorFreeAt_ = described = after(std::max(ready, descriptorFreeAt_), descriptor_);
  const sc_core::sc_time streaming = nanoseconds(cost.streamingNs, "a DMA transfer's streaming time");
  const unsigned first = cost.engines ? cost.firstEngine : queueEngine, count = std::max(1u, cost.engines);
  sc_core::sc_time start = sc_core::sc_max_time(), streamed = described;
  for (unsigned k = 0; k < count; ++k) {
    sc_core::sc_time &engineFreeAt = engineFreeAt_[(first + k) % engineFreeAt_.size()];
    const sc_core::sc_time from = std::max(ready, engineFreeAt);
    start = std::min(start, from);
    engineFreeAt = after(from, streaming);
    streamed = std::max(streamed, engineFreeAt);
  }
  Reservation r;
  if (cost.hbmBytes != 0) {
    r.hbmFrom = std::max(start, hbmFreeAt_);
    hbmFreeAt_ = r.hbmTo = after(r.hbmFrom, nanoseconds(cost.hbmNs, "a DMA transfer's HBM time"));
    streamed = std::max(streamed, hbmFreeAt_);
  }
  r.done = std::max(after(ready, fixedLatency_), streamed);
  return r;
}

} // namespace tessera::sim
