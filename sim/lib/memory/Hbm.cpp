#include "memory/Hbm.h"

#include <algorithm>

namespace tessera::sim {
namespace {

/// Nanoseconds as an sc_time at the simulator's picosecond resolution (FreshSimContext sets it).
sc_core::sc_time nanoseconds(double ns) {
  return sc_core::sc_time::from_value(static_cast<uint64_t>(ns * 1000.0 + 0.5));
}

} // namespace

Hbm::Hbm(HbmImage &image, const isa::Target &target) : engineFreeAt_(std::max(1u, target.dma.engines)) {
  tensorBases_.reserve(image.size());
  for (auto &tensor : image)
    tensorBases_.push_back(tensor.data());
  fixedLatency_ = nanoseconds(target.dma.fixedLatencyNs);
}

sc_core::sc_time Hbm::reserveTransfer(const sc_core::sc_time &ready, unsigned engine,
                                      const isa::DmaTransferCost &cost) {
  sc_core::sc_time &engineFreeAt = engineFreeAt_[engine % engineFreeAt_.size()];
  const sc_core::sc_time start = std::max(ready, engineFreeAt);
  engineFreeAt = start + nanoseconds(cost.streamingNs);
  sc_core::sc_time streamed = engineFreeAt;
  if (cost.hbmBytes != 0) {
    hbmFreeAt_ = std::max(start, hbmFreeAt_) + nanoseconds(cost.hbmNs);
    streamed = std::max(streamed, hbmFreeAt_);
  }
  return streamed + fixedLatency_;
}

} // namespace tessera::sim
