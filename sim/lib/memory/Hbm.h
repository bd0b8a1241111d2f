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

  /// When a transfer completes and when it held the HBM share (hbmFrom == hbmTo: it moves no HBM bytes).
  struct Reservation {
    sc_core::sc_time done, hbmFrom, hbmTo;
  };

  /// Reserves DMA engine `engine` and the HBM share for a transfer costing `cost` that is ready at `ready`.
  Reservation reserveTransfer(const sc_core::sc_time &ready, unsigned engine, const isa::DmaTransferCost &cost);

private:
  std::vector<std::byte *> tensorBases_;
  std::vector<sc_core::sc_time> engineFreeAt_;  ///< per DMA engine: when its last transfer's final byte streamed
  sc_core::sc_time hbmFreeAt_;                  ///< when the HBM share has served every reserved byte
  sc_core::sc_time fixedLatency_;
};

} // namespace tessera::sim
