#include "StepBarrier.h"

#include <algorithm>

namespace tessera::sim {

StepBarrier::StepBarrier(const isa::Program &program) {
  uint32_t steps = 0;
  for (const isa::Stream &stream : program.streams)
    if (!stream.instructions.empty()) // a stream's steps never decrease (checkStreams)
      steps = std::max(steps, stream.instructions.back().step);
  unfinished_.assign(size_t{steps} + 1, 0);
  for (const isa::Stream &stream : program.streams)
    for (const isa::Instruction &inst : stream.instructions)
      if (inst.step != 0)
        ++unfinished_[inst.step];
}

void StepBarrier::finished(const isa::Instruction &inst) {
  if (inst.op == isa::Opcode::GridStep) {
    opened_ = inst.step;
    if (openWaiters_ != 0)
      stepOpened_.notify();
  }
  if (--unfinished_[inst.step] == 0 && drainWaiters_ != 0)
    stepDrained_.notify();
}

} // namespace tessera::sim
