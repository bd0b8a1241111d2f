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

  /// Reserves the descriptor generator, the DMA engines (`queueEngine`, the transfer's queue's, when its cost
  /// names none) and the HBM share for a transfer taking `times` that is ready at `readyPs`.
  Reservation reserveTransfer(uint64_t readyPs, unsigned queueEngine, const TransferTimes &times);

private:
  std::vector<std::byte *> tensorBases_;
  std::vector<uint64_t> engineFreeAtPs_; ///< per DMA engine: when its last transfer's final byte streamed
  uint64_t hbmFreeAtPs_ = 0;             ///< when the HBM share has served every reserved byte
  uint64_t descriptorFreeAtPs_ = 0;      ///< when the descriptor generator has issued every transfer
  uint64_t fixedLatencyPs_ = 0, descriptorPs_ = 0;
};

} // namespace tessera::sim
