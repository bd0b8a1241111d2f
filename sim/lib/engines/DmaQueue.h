#pragma once
/// \file
/// One DMA queue: runs its stream of transfers one at a time. Each transfer reserves the bandwidth the queues
/// share (memory/Hbm.h has the model) and completes when the reservation says; the data moves at completion.

#include "engines/StreamEngine.h"

namespace tessera::sim {

class DmaQueue final : public StreamEngine {
public:
  DmaQueue(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env);

  /// Bytes a transfer streams through the shared bandwidth: its HBM side (the source when both are), or its
  /// destination when neither is in HBM.
  static uint64_t transferBytes(const isa::Instruction &inst);

private:
  void perform(const isa::Instruction &inst) override;
};

} // namespace tessera::sim
