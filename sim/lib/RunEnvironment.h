#pragma once
/// \file
/// What every engine of one core shares (RunEnvironment: the program, the target, the memories, the semaphores, the
/// TPU's grid-step barrier, the DMA engines, the kernel-bug checks, the timeline when one is recorded), and what
/// the engines of all the cores of a run share (ChipRun: the first failure, the progress count; HBM is
/// memory/Hbm.h).

#include "Semaphores.h"
#include "StepBarrier.h"
#include "checks/KernelBugChecks.h"
#include "memory/DmaEngines.h"
#include "memory/Hbm.h"
#include "memory/MemoryPorts.h"

#include "tessera/isa/Program.h"
#include "tessera/isa/Semantics.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

namespace tessera::sim {

/// What the engines of every core of one run share, HBM aside.
struct ChipRun {
  std::exception_ptr failure;  ///< set by the first engine that fails, on any core; the run then stops and rethrows it
  uint32_t failedCore = 0;     ///< the core of the engine that set `failure`
  /// SimOptions::progress (empty: no reports), the instructions retired by every engine of every core so far, and
  /// the instructions of all the cores' programs.
  const std::function<void(double, uint64_t, uint64_t)> *progress = nullptr;
  uint64_t retired = 0;
  uint64_t total = 0;
};

struct RunEnvironment {
  const isa::Program &program;
  uint32_t core = 0;           ///< this core's index in the run (simulateChip's span)
  const isa::Target &target;
  bool computeValues = true;   ///< false: timing only, isa::execute is never called
  isa::Memories memories;      ///< what isa::execute reads and writes
  Semaphores &semaphores;
  Hbm &hbm;                    ///< shared by the run's cores: the tensors and the bandwidth pool
  DmaEngines &dma;             ///< this core's DMA engines and descriptor generator
  MemoryPorts &ports;  ///< SBUF/PSUM ports that engines share (NeuronCore-v2)
  StepBarrier &stepBarrier; ///< the TPU TensorCore's grid steps (instructions with Instruction::step != 0)
  KernelBugChecks *checks = nullptr;  ///< races and uninitialised reads; null when SimOptions::checks is off
  ChipRun &chip;               ///< shared by the run's cores
  /// Where engines append an InstructionEvent as each instruction retires; null unless SimOptions::recordTimeline.
  std::vector<InstructionEvent> *timeline = nullptr;
  /// What Print instructions logged (tsr::device_print), in simulated-time order.
  std::vector<DevicePrint> prints = {};
};

} // namespace tessera::sim
