/// \file
/// DMA transfer costs (see DmaCost.h); every coefficient is read from the target.

#include "tessera/isa/DmaCost.h"

#include "tessera/isa/Family.h"

#include "tessera/isa/AccessRules.h"
#include "tessera/isa/Cost.h"

#include <algorithm>

namespace tessera::isa {

double dmaEfficiency(double bytesPerPartition, const DmaSpec &dma) {
  const auto saturated = static_cast<double>(dma.saturatedBytesPerPartition);
  if (bytesPerPartition >= saturated)
    return 1.0;
  if (bytesPerPartition <= 0)
    return dmaEfficiency(1.0, dma); // an empty transfer still pays for one packet
  const double knee = dma.efficiencyKneeBytes;
  return std::min(1.0, bytesPerPartition * (saturated + knee) / (saturated * (bytesPerPartition + knee)));
}

namespace {

/// The side of a transfer in on-chip memory (its destination unless that is HBM), whose partitions it moves.
const AccessPattern &onChipSide(const Instruction &inst) {
  return inst.dst.space != MemSpace::Hbm ? inst.dst : inst.src0;
}

} // namespace

DmaTransferCost dmaTransferCost(const Instruction &inst, const Target &target) {
  DmaTransferCost cost;
  const AccessPattern &streamed = inst.src0.space == MemSpace::Hbm ? inst.src0 : inst.dst;
  cost.bytes = static_cast<uint64_t>(std::max<int64_t>(streamed.bytes(), 0));
  cost.hbmBytes = hbmBytes(inst);
  // Partitions of the transfer: the on-chip side's (rows of the HBM side are the same number).
  const uint32_t rows = std::max<uint32_t>(1, onChipSide(inst).partitions);
  cost.bytesPerPartition = static_cast<double>(cost.bytes) / rows;
  cost.efficiency = dmaEfficiency(cost.bytesPerPartition, target.dma);
  // The stride penalty is the NeuronCore's (NKI); a TPU target's [cost] has no strided_access_* keys.
  if (familyOf(target).stridedDmaPenalty() && (isStridedAccess(inst.src0, target) || isStridedAccess(inst.dst, target)))
    cost.efficiency /= target.cost.stridedAccessFactor;
  // A DMA transpose streams at a documented fraction of a copy's rate, by where its source is (NeuronCore).
  if (inst.op == Opcode::DmaTranspose) {
    const double transpose = inst.src0.space == MemSpace::Hbm ? target.dma.transposeHbmEfficiency
                                                              : target.dma.transposeSbufEfficiency;
    if (transpose > 0) cost.efficiency *= transpose;
  }
  // NeuronCore: the engines of its partitions, each moving its partitions' share (the fullest engine's share sets
  // the streaming time); TPU: the queue's engine moves it all.
  double engineBytes = static_cast<double>(cost.bytes);
  if (const unsigned per = target.dma.partitionsPerEngine; per > 0) {
    const uint32_t first = onChipSide(inst).partitionStart, last = first + rows - 1;
    cost.firstEngine = first / per;
    cost.engines = last / per - first / per + 1;
    uint32_t fullest = 0;
    for (uint32_t e = first / per; e <= last / per; ++e)
      fullest = std::max(fullest, std::min(last, (e + 1) * per - 1) - std::max(first, e * per) + 1);
    engineBytes = static_cast<double>(cost.bytes) * fullest / rows;
  }
  cost.streamingNs = engineBytes / (target.dma.bytesPerNsPerEngine * cost.efficiency);
  cost.leastNs = std::max({target.dma.fixedLatencyNs, target.dma.descriptorNs, cost.streamingNs});
  const double hbmShare = target.dma.hbmGBps;
  cost.hbmNs = hbmShare > 0 ? static_cast<double>(cost.hbmBytes) / hbmShare : 0;
  return cost;
}

unsigned dmaEngineOf(uint32_t queue, const Target &target) {
  return target.dma.engines ? queue % target.dma.engines : 0;
}

} // namespace tessera::isa
