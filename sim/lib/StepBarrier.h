#pragma once
/// \file
/// The TPU TensorCore's grid steps: the scalar core runs a grid step's bookkeeping (its GridStep), then the step's
/// body, then the next step's bookkeeping once the whole body has finished. Each MXU, VPU and scalar-unit
/// instruction carries the step it belongs to (isa::Instruction::step, 1-based): one of step s other than its
/// GridStep starts only after GridStep s completed; GridStep s > 1 starts only after every instruction of step
/// s - 1 completed. Within a step the units run concurrently, ordered only by their streams and semaphores. DMA
/// queues and NeuronCore engines (step 0) are never held: the queues run ahead into rotating buffers.
///
/// One object per run, shared by the engines: each step's count of unfinished instructions, counted once when the
/// machine is built, and two events, notified only when some engine waits; nothing is allocated while the run
/// goes, and a waiting engine wakes once per step, never per cycle.

#include "tessera/isa/Program.h"

#include <systemc>

#include <cstdint>
#include <vector>

namespace tessera::sim {

class StepBarrier {
public:
  /// Counts the instructions of each step of `program`, which must have passed checkStreams().
  explicit StepBarrier(const isa::Program &program);

  /// Whether `inst` (its step != 0) may start now: a GridStep once the step before its own has finished, anything
  /// else once its step's GridStep has completed. An engine for which it may not calls startWaiting(), sets
  /// next_trigger(eventFor()) and asks again when it runs; stopWaiting() once it may.
  bool mayStart(const isa::Instruction &inst) const {
    if (inst.op == isa::Opcode::GridStep)
      return inst.step == 1 || unfinished_[inst.step - 1] == 0;
    return opened_ >= inst.step;
  }
  void startWaiting(const isa::Instruction &inst) {
    ++(inst.op == isa::Opcode::GridStep ? drainWaiters_ : openWaiters_);
  }
  void stopWaiting(const isa::Instruction &inst) {
    --(inst.op == isa::Opcode::GridStep ? drainWaiters_ : openWaiters_);
  }
  const sc_core::sc_event &eventFor(const isa::Instruction &inst) const {
    return inst.op == isa::Opcode::GridStep ? stepDrained_ : stepOpened_;
  }

  /// `inst` (its step != 0) has completed.
  void finished(const isa::Instruction &inst);

  /// The step whose GridStep completed last (0: none yet).
  uint32_t opened() const { return opened_; }
  /// How many instructions of `step` (1-based) have not completed.
  uint32_t unfinished(uint32_t step) const { return unfinished_[step]; }

private:
  std::vector<uint32_t> unfinished_;  ///< per step (index 0 unused)
  uint32_t opened_ = 0;
  uint32_t openWaiters_ = 0, drainWaiters_ = 0;  ///< engines blocked on each event: notified only when some are
  sc_core::sc_event stepOpened_;   ///< a GridStep completed
  sc_core::sc_event stepDrained_;  ///< a step's last instruction completed
};

} // namespace tessera::sim
