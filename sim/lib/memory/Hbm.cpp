#include "memory/Hbm.h"

#include "SimulatedTime.h"

#include <algorithm>

namespace tessera::sim {

Hbm::Hbm(HbmImage &image, unsigned cores) : cores_(std::max(1u, cores)) {
  tensorBases_.reserve(image.size());
  for (auto &tensor : image)
    tensorBases_.push_back(tensor.data());
}

Hbm::Slot Hbm::reserve(uint64_t fromPs, uint64_t ps) {
  Slot slot{.fromPs = std::max(fromPs, freeAtPs_)};
  freeAtPs_ = slot.toPs = endOf(slot.fromPs, ps, "a DMA transfer");
  return slot;
}

} // namespace tessera::sim
