#pragma once
/// \file
/// One DMA queue: runs its stream of transfers one at a time on its DMA engine (isa::dmaEngineOf). Each transfer
/// reserves that engine and the HBM share (memory/Hbm.h has the model, isa/DmaCost.h each transfer's figures) and
/// completes when the reservation says; the data moves at completion.

#include "engines/StreamEngine.h"

namespace tessera::sim {

class DmaQueue final : public StreamEngine {
public:
  DmaQueue(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env);

private:
  /// Reserves the DMA engine and the HBM share; returns how long the transfer is in flight.
  uint64_t begin(const isa::Instruction &inst) override;
  /// Moves the data (unless timing only).
  void complete(const isa::Instruction &inst) override;

  unsigned engine_ = 0;  ///< the DMA engine serving this queue
};

} // namespace tessera::sim
