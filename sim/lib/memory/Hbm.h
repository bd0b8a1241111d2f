#pragma once
/// \file
/// HBM as every core of one run shares it: the kernel's tensors (the caller's HbmImage, one copy for all cores)
/// and the one HBM bandwidth server that every DMA transfer's HBM-side bytes go through. Each core's own DMA
/// engines and descriptor generator are memory/DmaEngines.h.
///
/// Bandwidth. The target gives one core's share, dma.hbmGBps = hbm.chip_gbps / hbm.cores_per_chip. A run of N cores
/// (simulateChip) pools the launched cores' shares into one server at N x that share. *Assumption*: the launched
/// cores' shares form one pool, so a core may use what an idle core leaves, up to what its own DMA engines stream;
/// cores that all stream at once get about one share each. With one core the server runs at the core's share, as a
/// core simulated alone always did. Reservations are served in the order they are made (first come, first served),
/// each from max(its start, when the server has served every byte reserved before).

#include "tessera/sim/Simulator.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tessera::sim {

class Hbm {
public:
  /// `image` must already hold one correctly sized buffer per tensor and outlive this object; `cores` (at least 1)
  /// is how many cores run, and so how many shares the bandwidth pool holds.
  Hbm(HbmImage &image, unsigned cores);

  /// Base address of each tensor, in Program::tensors order.
  std::span<std::byte *const> tensorBases() const { return tensorBases_; }

  /// A transfer's time on the pool, from its time on one core's share (isa::DmaTransferCost::hbmNs).
  double poolNs(double shareNs) const { return shareNs / cores_; }

  /// When the server holds a reservation, in picoseconds.
  struct Slot {
    uint64_t fromPs = 0, toPs = 0;
  };
  /// Reserves `ps` of the server from max(`fromPs`, when it frees).
  Slot reserve(uint64_t fromPs, uint64_t ps);

private:
  std::vector<std::byte *> tensorBases_;
  unsigned cores_ = 1;
  uint64_t freeAtPs_ = 0; ///< when the pool has served every reserved byte
};

} // namespace tessera::sim
