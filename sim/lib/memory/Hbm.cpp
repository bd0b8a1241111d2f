#include "memory/Hbm.h"

#include <algorithm>

namespace tessera::sim {
namespace {

/// Picoseconds (SystemC's default time resolution, which the simulator keeps) as an sc_time.
sc_core::sc_time picoseconds(double ps) { return sc_core::sc_time::from_value(static_cast<uint64_t>(ps + 0.5)); }

} // namespace

Hbm::Hbm(HbmImage &image, const isa::DmaSpec &dma) {
  tensorBases_.reserve(image.size());
  for (auto &tensor : image)
    tensorBases_.push_back(tensor.data());
  psPerByte_ = 1000.0 / dma.bytesPerNs();
  fixedLatency_ = picoseconds(dma.fixedLatencyNs * 1000.0);
}

sc_core::sc_time Hbm::reserveTransfer(const sc_core::sc_time &ready, uint64_t bytes) {
  const sc_core::sc_time start = std::max(ready, freeAt_);
  freeAt_ = start + picoseconds(static_cast<double>(bytes) * psPerByte_);
  return freeAt_ + fixedLatency_;
}

} // namespace tessera::sim
