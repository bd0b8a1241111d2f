#pragma once
/// \file
/// What one DMA transfer costs a DMA engine (every coefficient from the target's [dma], [hbm] and [cost] tables):
///   efficiency e(b) = min(1, b (S + k) / (S (b + k))), b = bytes per partition, S = saturated_bytes_per_partition,
///                     k = efficiency_knee_bytes (a saturation curve fitted to the DMA bandwidth guide's
///                     ">= 2 KiB per partition approaches peak, >= 4 KiB saturates"), divided by
///                     strided_access_factor when either side's minor stride exceeds strided_access_bytes
///                     (NeuronCore only; on a TPU a partition is a VMEM row and no stride penalty applies);
///   streaming time    bytes / (bytes_per_ns_per_engine x e) on the transfer's engine;
///   HBM time          HBM-side bytes / the core's HBM share (chip_gbps / cores_per_chip);
/// plus fixed_latency_ns per transfer. How transfers share engines and HBM over time is the simulator's model
/// (sim/lib/memory/Hbm.h); the trace and report read the per-transfer figures from here.

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
  double streamingNs = 0;         ///< bytes / (per-engine bandwidth x efficiency): its time on its DMA engine
  double hbmNs = 0;               ///< hbmBytes / the core's HBM share: its time on the shared HBM
};

/// The figures of DMA transfer `inst` (a DmaCopy) on `target`.
DmaTransferCost dmaTransferCost(const Instruction &inst, const Target &target);

/// The DMA engine that serves DMA queue `queue`: queues are spread round robin over the engines.
unsigned dmaEngineOf(uint32_t queue, const Target &target);

} // namespace tessera::isa
