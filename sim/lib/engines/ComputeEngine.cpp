#include "engines/ComputeEngine.h"

#include "tessera/isa/Cost.h"

namespace tessera::sim {

ComputeEngine::ComputeEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : StreamEngine(name, stream, env) {
  psPerCycle_ = 1000.0 / isa::clockGhz(stream.engine, env.target); // checkTarget() made it positive
}

void ComputeEngine::perform(const isa::Instruction &inst) {
  if (env_.computeValues)
    isa::execute(inst, env_.memories);
  const uint64_t cycles = isa::engineCycles(inst, stream().engine, env_.target);
  const auto ps = static_cast<uint64_t>(static_cast<double>(cycles) * psPerCycle_ + 0.5); // nearest ps
  busyPs_ += ps;
  wait(sc_core::sc_time::from_value(ps));
}

} // namespace tessera::sim
