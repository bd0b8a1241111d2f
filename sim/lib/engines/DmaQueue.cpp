#include "engines/DmaQueue.h"

#include "tessera/isa/DmaCost.h"
#include "tessera/isa/Semantics.h"

namespace tessera::sim {

DmaQueue::DmaQueue(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : StreamEngine(name, stream, env), engine_(isa::dmaEngineOf(stream.queue, env.target)) {}

uint64_t DmaQueue::begin(const isa::Instruction &inst) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const isa::DmaTransferCost cost = isa::dmaTransferCost(inst, env_.target);
  const Hbm::Reservation reserved = env_.hbm.reserveTransfer(now, engine_, cost);
  hbmFromPs_ = reserved.hbmFrom.value();
  hbmToPs_ = reserved.hbmTo.value();
  const sc_core::sc_time inFlight = reserved.done - now;
  busyPs_ += inFlight.value();
  return inFlight.value();
}

void DmaQueue::complete(const isa::Instruction &inst) {
  if (env_.computeValues)
    isa::execute(inst, env_.memories);
}

} // namespace tessera::sim
