#pragma once
/// \file
/// One DMA queue: runs its stream of transfers one at a time on its DMA engine (isa::dmaEngineOf). Each transfer
/// reserves that engine and the HBM pool (memory/DmaEngines.h has the model, isa/DmaCost.h each transfer's
/// figures) and completes when the reservation says; the data moves at completion. A transfer's figures depend on
/// its shape alone (InstructionShape.h), so the queue computes them once per shape.

#include "engines/StreamEngine.h"
#include "memory/DmaEngines.h"

#include <deque>
#include <vector>

namespace tessera::sim {

class DmaQueue final : public StreamEngine {
public:
  DmaQueue(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env);

private:
  /// Reserves the DMA engine and the HBM pool; returns how long the transfer is in flight.
  uint64_t begin(const isa::Instruction &inst) override;
  /// Moves the data (unless timing only).
  void complete(const isa::Instruction &inst) override;

  unsigned engine_ = 0;  ///< the DMA engine serving this queue
  /// The shapes met so far: the first transfer of each and its figures; an open-addressing index into them.
  struct Shape {
    const isa::Instruction *first;
    DmaEngines::TransferTimes times;
    uint64_t flops = 0;  ///< isa::flops
    isa::PeakDtype peak = isa::PeakDtype::Bf16;
  };
  /// The figures of `inst`'s shape, computed on its first transfer.
  const Shape &shapeOf(const isa::Instruction &inst);

  std::deque<Shape> shapes_;
  std::vector<int32_t> slots_ = std::vector<int32_t>(16, -1);
  const Shape *last_ = nullptr; ///< the shape of the previous transfer: transfers come in runs of one shape
};

} // namespace tessera::sim
