#include "engines/ComputeEngine.h"

#include "ProgramChecks.h"

#include "tessera/isa/Cost.h"

namespace tessera::sim {

ComputeEngine::ComputeEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : StreamEngine(name, stream, env) {
  psPerCycle_ = 1000.0 / isa::clockGhz(stream.engine, env.target); // checkTarget() made it positive
  if (stream.engine == isa::Engine::Tensor)
    tensorTiming_.emplace(env.target, psPerCycle_);
}

void ComputeEngine::perform(const isa::Instruction &inst) {
  if (inst.op == isa::Opcode::Print) [[unlikely]]
    logPrint(inst);
  if (env_.computeValues)
    isa::execute(inst, env_.memories);
  const uint64_t cycles = isa::engineCycles(inst, stream().engine, env_.target);
  uint64_t ps = static_cast<uint64_t>(static_cast<double>(cycles) * psPerCycle_ + 0.5); // nearest ps
  if (tensorTiming_) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    ps = tensorTiming_->completion(inst, cycles, now, currentWaitPs_) - now;
  }
  busyPs_ += ps;
  wait(sc_core::sc_time::from_value(ps));
}

void ComputeEngine::logPrint(const isa::Instruction &inst) {
  const isa::Program &program = env_.program;
  DevicePrint print{.name = std::string(program.textOf(inst)),
                    .timeNs = static_cast<double>(sc_core::sc_time_stamp().value()) / 1000.0,
                    .stream = stream().label(),
                    .index = static_cast<uint32_t>(position()),
                    .loc = locationOf(program, inst),
                    .dtype = inst.src0.dtype,
                    .shape = {inst.src0.partitions, inst.src0.freeElements()}};
  if (env_.computeValues)
    print.values = isa::readValues(inst.src0, env_.memories);
  env_.prints.push_back(std::move(print));
}

} // namespace tessera::sim
