#pragma once
/// \file
/// One core's DMA engines and descriptor generator, as its DMA queues reserve them; the HBM bandwidth they stream
/// through is the run's shared pool (memory/Hbm.h).
///
/// Bandwidth model (built from the target's [dma] and [hbm] figures, docs/memory.md; isa/DmaCost.h gives each
/// transfer's figures). A transfer ready at time t (its queue runs one at a time, in order):
///   - streams on its engines (NeuronCore: those of its partitions, 8 partitions each; TPU: its queue's engine,
///     queue q mod engines), each from max(t, when that engine frees) for streamingNs, one transfer at a time;
///   - reserves its HBM time on the HBM pool (the launched cores' shares together, memory/Hbm.h), from max(its
///     first engine's start, when the pool frees), so that together the engines of all cores never exceed it;
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
/// SystemC's process order, which is deterministic (the cores in order, each core's streams in order).

#include "memory/Hbm.h"

#include "tessera/isa/DmaCost.h"
#include "tessera/isa/Target.h"

#include <cstdint>
#include <vector>

namespace tessera::sim {

class DmaEngines {
public:
  /// `hbm` is the run's shared HBM and must outlive this object; the target's DMA figures must have passed
  /// checkTarget().
  DmaEngines(Hbm &hbm, const isa::Target &target);

  /// When a transfer completes and when it held the HBM pool (hbmFromPs == hbmToPs: it moves no HBM bytes), in
  /// picoseconds.
  struct Reservation {
    uint64_t donePs = 0, hbmFromPs = 0, hbmToPs = 0;
  };

  /// A transfer's figures (isa::DmaTransferCost) and its times in whole picoseconds, as the reservation takes them:
  /// its streaming on each engine, and its HBM time on `hbm`'s pool. A time that would pass the simulator's
  /// horizon is left to reserveTransfer, which then throws SimulatedTimeOverflow where the run reaches it.
  struct TransferTimes {
    TransferTimes(const isa::DmaTransferCost &cost, const Hbm &hbm);
    isa::DmaTransferCost cost;
    double poolHbmNs = 0; ///< cost.hbmNs (on one core's share) on the pool
    uint64_t streamingPs = 0, hbmPs = 0;
    bool streamingKnown = false, hbmKnown = false;
  };

  /// Reserves the descriptor generator, the DMA engines (`queueEngine`, the transfer's queue's, when its cost
  /// names none) and the HBM pool for a transfer taking `times` that is ready at `readyPs`.
  Reservation reserveTransfer(uint64_t readyPs, unsigned queueEngine, const TransferTimes &times);

private:
  Hbm &hbm_;
  std::vector<uint64_t> engineFreeAtPs_; ///< per DMA engine: when its last transfer's final byte streamed
  uint64_t descriptorFreeAtPs_ = 0;      ///< when the descriptor generator has issued every transfer
  uint64_t fixedLatencyPs_ = 0, descriptorPs_ = 0;
};

} // namespace tessera::sim
