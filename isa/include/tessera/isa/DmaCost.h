#pragma once
/// \file
/// What one DMA transfer costs (every coefficient from the target's [dma], [hbm] and [cost] tables):
///   engines           NeuronCore: the engines of its partitions, partitions_per_engine each (a [128, F] transfer
///                     streams on all 16 at once, NKI's DMA overview); TPU: its queue's engine;
///   efficiency e(b) = min(1, b (S + k) / (S (b + k))), b = bytes per partition, S = saturated_bytes_per_partition,
///                     k = efficiency_knee_bytes (0 on the NeuronCore targets: e = 1; docs/memory.md), divided by
///                     strided_access_factor when either side's minor stride exceeds strided_access_bytes
///                     (NeuronCore only; on a TPU a partition is a VMEM row and no stride penalty applies);
///   streaming time    the bytes one of its engines moves / (bytes_per_ns_per_engine x e);
///   HBM time          HBM-side bytes / the core's HBM share (chip_gbps / cores_per_chip);
///   least time        max(fixed_latency_ns, descriptor_ns, streaming time): the fixed cost (synchronisation,
///                     the semaphore) and the descriptor generation overlap the streaming, as in a queue of
///                     transfers.
/// How transfers share engines, the descriptor generator and HBM over time is the simulator's model
/// (sim/lib/memory/DmaEngines.h; HBM shared by several cores: memory/Hbm.h); the trace and report read the
/// per-transfer figures from here.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>

namespace tessera::isa {

/// A DMA engine's efficiency moving `bytesPerPartition` bytes per partition, before any stride penalty: in (0, 1].
double dmaEfficiency(double bytesPerPartition, const DmaSpec &dma);

/// One transfer's figures.
struct DmaTransferCost {
  uint64_t bytes = 0;             ///< bytes the DMA engine streams: the HBM side (the source when both are), or dst
  uint64_t hbmBytes = 0;          ///< HBM traffic: each side in HBM counts (isa::hbmBytes)
  double bytesPerPartition = 0;   ///< bytes / the partitions (rows) of the transfer
  double efficiency = 1;          ///< dmaEfficiency, with the stride penalty
  double streamingNs = 0;         ///< its bytes on one engine / (per-engine bandwidth x efficiency): its time on
                                  ///< each of its DMA engines
  unsigned firstEngine = 0;       ///< the first DMA engine it streams on (NeuronCore)
  unsigned engines = 0;           ///< how many, from firstEngine (NeuronCore); 0: its queue's engine alone (TPU)
  double leastNs = 0;             ///< max(fixed_latency_ns, descriptor_ns, streamingNs): its time on its queue
                                  ///< when nothing else is in flight
  double hbmNs = 0;               ///< hbmBytes / the core's HBM share: its time on the shared HBM
};

/// The figures of DMA transfer `inst` (a DmaCopy) on `target`.
DmaTransferCost dmaTransferCost(const Instruction &inst, const Target &target);

/// The DMA engine that serves DMA queue `queue`: queues are spread round robin over the engines.
unsigned dmaEngineOf(uint32_t queue, const Target &target);

} // namespace tessera::isa
