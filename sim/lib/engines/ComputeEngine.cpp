#include "engines/ComputeEngine.h"

#include "ProgramChecks.h"
#include "SimulatedTime.h"
#include "engines/MxuTiming.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/InstructionOverhead.h"

#include <algorithm>

namespace tessera::sim {

ComputeEngine::ComputeEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : StreamEngine(name, stream, env) {
  psPerCycle_ = 1000.0 / isa::clockGhz(stream.engine, env.target); // checkTarget() made it positive
  if (stream.engine == isa::Engine::Tensor)
    tensorTiming_.emplace(env.target, psPerCycle_);
}

uint64_t ComputeEngine::begin(const isa::Instruction &inst) {
  if (inst.op == isa::Opcode::Print) [[unlikely]]
    logPrint(inst);
  if (env_.computeValues)
    isa::execute(inst, env_.memories);
  instFlops_ = isa::flops(inst);
  instPeak_ = instFlops_ > 0 ? isa::peakDtypeOf(inst) : isa::PeakDtype::Bf16;
  instHbmBytes_ = isa::hbmBytes(inst);
  const isa::Engine engine = stream().engine;
  const uint64_t now = sc_core::sc_time_stamp().value();
  if (tensorTiming_) {
    const uint64_t ps =
        tensorTiming_->completion(inst, isa::engineCycles(inst, engine, env_.target), now, currentWaitPs_) - now;
    busyPs_ += ps;
    previousEndPs_ = now + ps;
    return ps;
  }
  const isa::Instruction *previous = position() ? &stream().instructions[position() - 1] : nullptr;
  uint64_t cycles = isa::engineCycles(inst, engine, env_.target) +
                    isa::staticOverheadCycles(inst, previous, engine, env_.target);
  // Stalls before the instruction starts: its producer's commit, then a memory port another engine holds.
  const uint64_t committed =
      previousEndPs_ + picoseconds(isa::dependencyCommitCycles(inst, previous, engine, env_.target));
  const uint64_t ready = std::max(now, committed);
  if (engine == isa::Engine::Mxu && (!previous || ready > previousEndPs_))
    cycles += pipelineFillCycles(inst, env_.target); // the MXU sat idle: nothing in flight hid its fill
  const uint64_t ps = picoseconds(cycles);
  const uint64_t start = env_.ports.reserve(engine, inst, ready, ps);
  const uint64_t end = endOf(start, ps, "an instruction");
  stalled(start - now);
  busyPs_ += ps;
  previousEndPs_ = end;
  return end - now;
}

uint64_t ComputeEngine::picoseconds(uint64_t cycles) const {
  return picosecondsOfCycles(cycles, psPerCycle_, "an instruction"); // nearest ps
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
