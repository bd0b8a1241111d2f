#include "engines/DmaQueue.h"

#include "tessera/isa/Semantics.h"

namespace tessera::sim {

DmaQueue::DmaQueue(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : StreamEngine(name, stream, env) {}

uint64_t DmaQueue::transferBytes(const isa::Instruction &inst) {
  const isa::AccessPattern &hbmSide = inst.src0.space == isa::MemSpace::Hbm ? inst.src0 : inst.dst;
  return static_cast<uint64_t>(hbmSide.bytes());
}

void DmaQueue::perform(const isa::Instruction &inst) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time inFlight = env_.hbm.reserveTransfer(now, transferBytes(inst)) - now;
  busyPs_ += inFlight.value();
  wait(inFlight);
  if (env_.computeValues)
    isa::execute(inst, env_.memories);
}

} // namespace tessera::sim
