#include "engines/DmaQueue.h"

#include "InstructionShape.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/DmaCost.h"
#include "tessera/isa/Semantics.h"

namespace tessera::sim {

DmaQueue::DmaQueue(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : StreamEngine(name, stream, env), engine_(isa::dmaEngineOf(stream.queue, env.target)) {}

uint64_t DmaQueue::begin(const isa::Instruction &inst) {
  const uint64_t now = sc_core::sc_time_stamp().value();
  const Shape &shape = shapeOf(inst);
  instFlops_ = shape.flops;
  instPeak_ = shape.peak;
  instHbmBytes_ = shape.times.cost.hbmBytes; // isa::hbmBytes
  const DmaEngines::Reservation reserved = env_.dma.reserveTransfer(now, engine_, shape.times);
  hbmFromPs_ = reserved.hbmFromPs;
  hbmToPs_ = reserved.hbmToPs;
  const uint64_t inFlight = reserved.donePs - now;
  busyPs_ += inFlight;
  return inFlight;
}

const DmaQueue::Shape &DmaQueue::shapeOf(const isa::Instruction &inst) {
  if (last_ && sameShape(*last_->first, inst))
    return *last_;
  const uint64_t hash = hashOfShape(inst);
  size_t slot = hash & (slots_.size() - 1);
  for (; slots_[slot] >= 0; slot = (slot + 1) & (slots_.size() - 1))
    if (const Shape &shape = shapes_[slots_[slot]]; sameShape(*shape.first, inst))
      return *(last_ = &shape);
  const uint64_t flops = isa::flops(inst);
  const Shape &shape =
      shapes_.emplace_back(&inst, DmaEngines::TransferTimes(isa::dmaTransferCost(inst, env_.target), env_.hbm), flops,
                           flops > 0 ? isa::peakDtypeOf(inst) : isa::PeakDtype::Bf16);
  if (2 * shapes_.size() > slots_.size()) { // grow, and place every shape again
    slots_.assign(slots_.size() * 2, -1);
    for (size_t at = 0; at < shapes_.size(); ++at) {
      size_t s = hashOfShape(*shapes_[at].first) & (slots_.size() - 1);
      while (slots_[s] >= 0)
        s = (s + 1) & (slots_.size() - 1);
      slots_[s] = static_cast<int32_t>(at);
    }
  } else {
    slots_[slot] = static_cast<int32_t>(shapes_.size() - 1);
  }
  return *(last_ = &shape);
}

void DmaQueue::complete(const isa::Instruction &inst) {
  if (env_.computeValues)
    isa::execute(inst, env_.memories);
}

} // namespace tessera::sim
