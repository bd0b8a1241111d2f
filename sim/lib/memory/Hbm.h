#pragma once
/// \file
/// HBM as one core's DMA queues see it: the kernel's tensors (the caller's HbmImage), the core's DMA engines and
/// its share of the chip's HBM bandwidth.
///
/// Bandwidth model (an assumption built from the target's [dma] and [hbm] figures; isa/DmaCost.h gives each
/// transfer's figures). Queue q is served by DMA engine q mod engines; each engine streams one transfer at a time
/// at its efficiency-scaled bandwidth, and all engines share one HBM server at the core's HBM share. A transfer
/// ready at time t starts streaming at s = max(t, when its engine frees), holds its engine until
/// s + streamingNs, reserves hbmNs of the HBM server from max(s, when HBM frees), and completes fixedLatencyNs
/// after the later of the two (descriptor processing, the round trip). So a queue has one transfer in flight,
/// queues overlap their fixed latencies, transfers on different engines overlap their streaming, and together
/// they never exceed the HBM share. Ties are served in SystemC's process order, which is deterministic.

#include "tessera/isa/DmaCost.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <systemc>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tessera::sim {

class Hbm {
public:
  /// `image` must already hold one correctly sized buffer per tensor and outlive this object; the target's DMA
  /// figures must have passed checkTarget().
  Hbm(HbmImage &image, const isa::Target &target);

  /// Base address of each tensor, in Program::tensors order.
  std::span<std::byte *const> tensorBases() const { return tensorBases_; }

  /// When a transfer completes and when it held the HBM share (hbmFromPs == hbmToPs: it moves no HBM bytes), in
  /// picoseconds.
  struct Reservation {
    uint64_t donePs = 0, hbmFromPs = 0, hbmToPs = 0;
  };

  /// A transfer's figures (isa::DmaTransferCost) and its times in whole picoseconds, as the reservation takes them.
  /// A time that would pass the simulator's horizon is left to reserveTransfer, which then throws
  /// SimulatedTimeOverflow where the run reaches it.
  struct TransferTimes {
    explicit TransferTimes(const isa::DmaTransferCost &cost);
    isa::DmaTransferCost cost;
    uint64_t streamingPs = 0, hbmPs = 0;
    bool streamingKnown = false, hbmKnown = false;
  };

  /// Reserves DMA engine `engine` and the HBM share for a transfer taking `times`, ready at `readyPs`.
  Reservation reserveTransfer(uint64_t readyPs, unsigned engine, const TransferTimes &times);

private:
  std::vector<std::byte *> tensorBases_;
  std::vector<uint64_t> engineFreeAtPs_;  ///< per DMA engine: when its last transfer's final byte streamed
  uint64_t hbmFreeAtPs_ = 0;              ///< when the HBM share has served every reserved byte
  uint64_t fixedLatencyPs_ = 0;
};

} // namespace tessera::sim
