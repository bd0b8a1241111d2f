#pragma once
/// \file
/// HBM as one core's DMA queues see it: the kernel's tensors (the caller's HbmImage), the core's DMA engines and
/// its share of the chip's HBM bandwidth.
///
/// Bandwidth model (built from the target's [dma] and [hbm] figures, docs/memory.md; isa/DmaCost.h gives each
/// transfer's figures). A transfer ready at time t (its queue runs one at a time, in order):
///   - streams on its engines (NeuronCore: those of its partitions, 8 partitions each; TPU: its queue's engine,
///     queue q mod engines), each from max(t, when that engine frees) for streamingNs, one transfer at a time;
///   - reserves hbmNs of the one HBM server at the core's HBM share, from max(its first engine's start, when HBM
///     frees), so that together the engines never exceed the share;
///   - takes a slot of descriptorNs on the core's one descriptor generator, from max(t, when it frees) (NeuronCore;
///     0 on a TPU);
///   - completes at the latest of t + fixedLatencyNs, the end of its descriptor slot and the end of its streaming
///     and HBM time.
/// The fixed cost (descriptors, synchronisation, the semaphore) and the descriptor generation overlap the
/// streaming, as in a queue where each transfer's fixed cost and descriptors are prepared while the previous
/// transfer's data moves: a queue's throughput is then one transfer per max(fixed cost, descriptor time,
/// streaming time), which is how NKI's DMA overview shows it rising in proportion to the bytes per transfer until
/// the streaming takes longer than the fixed cost. (A lone transfer's latency is that too: the one-at-a-time
/// queue cannot start the next one's fixed cost early.)
/// Queues overlap their fixed costs; transfers on different engines overlap their streaming. Ties are served in
/// SystemC's process order, which is deterministic.

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

  /// Reserves the descriptor generator, the DMA engines (`queueEngine`, the transfer's queue's, when its cost names
  /// none) and the HBM share for a transfer costing `cost` that is ready at `ready`.
  Reservation reserveTransfer(const sc_core::sc_time &ready, unsigned queueEngine, const isa::DmaTransferCost &cost);

private:
  std::vector<std::byte *> tensorBases_;
  std::vector<sc_core::sc_time> engineFreeAt_;  ///< per DMA engine: when its last transfer's final byte streamed
  sc_core::sc_time hbmFreeAt_;                  ///< when the HBM share has served every reserved byte
  sc_core::sc_time descriptorFreeAt_;           ///< when the descriptor generator has issued every transfer
  sc_core::sc_time fixedLatency_, descriptor_;
};

} // namespace tessera::sim
