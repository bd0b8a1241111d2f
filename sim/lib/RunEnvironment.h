#pragma once
/// \file
/// What every engine of one run shares: the program, the target, the memories, the semaphores, the TPU's grid-step
/// barrier, the kernel-bug checks, the first failure a thread hit, and the timeline when one is recorded.

#include "Semaphores.h"
#include "StepBarrier.h"
#include "checks/KernelBugChecks.h"
#include "memory/Hbm.h"
#include "memory/MemoryPorts.h"

#include "tessera/isa/Program.h"
#include "tessera/isa/Semantics.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <exception>
#include <vector>

namespace tessera::sim {

struct RunEnvironment {
  const isa::Program &program;
  const isa::Target &target;
  bool computeValues = true;   ///< false: timing only, isa::execute is never called
  isa::Memories memories;      ///< what isa::execute reads and writes
  Semaphores &semaphores;
  Hbm &hbm;
  MemoryPorts &ports;  ///< SBUF/PSUM ports that engines share (NeuronCore-v2)
  StepBarrier &stepBarrier; ///< the TPU TensorCore's grid steps (instructions with Instruction::step != 0)
  KernelBugChecks *checks = nullptr;  ///< races and uninitialised reads; null when SimOptions::checks is off
  std::exception_ptr failure;  ///< set by the first thread that fails; the run then stops and rethrows it
  /// Where engines append an InstructionEvent as each instruction retires; null unless SimOptions::recordTimeline.
  std::vector<InstructionEvent> *timeline = nullptr;
  /// What Print instructions logged (tsr::device_print), in simulated-time order.
  std::vector<DevicePrint> prints = {};
  /// SimOptions::progress (empty: no reports), and the instructions retired by every engine so far.
  const std::function<void(double, uint64_t, uint64_t)> *progress = nullptr;
  uint64_t retired = 0;
};

} // namespace tessera::sim
