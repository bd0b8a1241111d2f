#include "engines/StreamEngine.h"

#include "ProgramChecks.h"
#include "tessera/sim/SimulatedTimeOverflow.h"

#include "tessera/isa/Cost.h"

namespace tessera::sim {

/// Room for isa::execute's frames on each engine's coroutine stack.
constexpr size_t kEngineStackBytes = 256 * 1024;

/// Asks the cache for every line of `inst`.
void prefetch(const isa::Instruction *inst) {
  const char *bytes = reinterpret_cast<const char *>(inst);
  for (size_t line = 0; line < sizeof(isa::Instruction); line += 64)
    __builtin_prefetch(bytes + line);
}

StreamEngine::StreamEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : sc_core::sc_module(name), env_(env), stream_(stream),
      streamIndex_(static_cast<uint32_t>(&stream - env.program.streams.data())) {
  SC_HAS_PROCESS(StreamEngine);
  SC_THREAD(run);
  set_stack_size(kEngineStackBytes);
  firstInvalid_ = firstInvalidInstruction(env.program, env.target, stream);
}

void StreamEngine::run() {
  try {
    const auto &instructions = stream_.instructions;
    Semaphores &semaphores = env_.semaphores;
    KernelBugChecks *checks = env_.checks;
    for (; position_ < instructions.size(); ++position_) {
      const isa::Instruction &inst = instructions[position_];
      // An instruction is several cache lines, and between two of one stream's instructions the other engines run:
      // without a prefetch, reading the next one is a cache miss that costs more than the rest of its dispatch.
      if (position_ + 1 < instructions.size())
        prefetch(&instructions[position_ + 1]);
      const uint64_t waitedBefore = waitedPs_, busyBefore = busyPs_;
      if (position_ == firstInvalid_) [[unlikely]]
        checkInstruction(env_.program, env_.target, stream_, position_); // throws
      if (inst.step != 0)
        awaitStep(inst);
      if (inst.waitCount != 0)
        awaitSemaphores(inst);
      currentWaitPs_ = waitedPs_ - waitedBefore;
      if (checks)
        checks->start(streamIndex_, position_);
      perform(inst);
      if (env_.timeline)
        record(waitedPs_ - waitedBefore, busyPs_ - busyBefore);
      for (uint32_t sem : env_.program.signalsOf(inst)) {
        semaphores.signal(sem);
        if (checks)
          checks->signal(streamIndex_, sem);
      }
      if (inst.step != 0)
        env_.stepBarrier.finished(inst);
      if (const uint64_t flops = isa::flops(inst); flops > 0) {
        flops_ += flops;
        flopsByPeak_[static_cast<unsigned>(isa::peakDtypeOf(inst))] += flops;
      }
      hbmBytes_ += isa::hbmBytes(inst);
      if (env_.progress && ++env_.retired % SimOptions::kProgressInterval == 0)
        (*env_.progress)(static_cast<double>(sc_core::sc_time_stamp().value()) / 1000.0, env_.retired,
                         env_.program.instructionCount());
    }
    lastCompletion_ = sc_core::sc_time_stamp();
    finished_ = true;
  } catch (const sc_core::sc_unwind_exception &) {
    throw; // SystemC is killing or resetting this thread: let it.
  } catch (const SimulatedTimeOverflow &e) { // say which instruction, at its kernel line
    const isa::Instruction &inst = stream_.instructions[position_];
    stopRun(std::make_exception_ptr(SimulatedTimeOverflow(
        describeInstruction(stream_, position_) + ": " + e.message(), locationOf(env_.program, inst), e.hint())));
  } catch (const std::exception &) {
    stopRun(std::current_exception());
  }
}

void StreamEngine::stopRun(std::exception_ptr failure) {
  if (env_.failure)
    return; // another engine failed first in this delta cycle and has stopped the run
  env_.failure = std::move(failure);
  sc_core::sc_stop();
}

void StreamEngine::record(uint64_t waitedPs, uint64_t busyPs) {
  // perform() ends with the engine's one wait, so the instruction started busyPs before now and was issued (became
  // the next of its stream) waitedPs before that.
  const uint64_t endPs = sc_core::sc_time_stamp().value();
  const uint64_t startPs = endPs - busyPs;
  env_.timeline->push_back({.stream = streamIndex_,
                            .index = static_cast<uint32_t>(position_),
                            .issueNs = static_cast<double>(startPs - waitedPs) / 1000.0,
                            .startNs = static_cast<double>(startPs) / 1000.0,
                            .endNs = static_cast<double>(endPs) / 1000.0,
                            .hbmFromNs = static_cast<double>(hbmFromPs_) / 1000.0,
                            .hbmToNs = static_cast<double>(hbmToPs_) / 1000.0});
}

void StreamEngine::awaitStep(const isa::Instruction &inst) {
  const sc_core::sc_time before = sc_core::sc_time_stamp();
  awaitingStep_ = true;
  env_.stepBarrier.awaitStart(inst);
  awaitingStep_ = false;
  waitedPs_ += (sc_core::sc_time_stamp() - before).value();
}

void StreamEngine::awaitSemaphores(const isa::Instruction &inst) {
  const sc_core::sc_time before = sc_core::sc_time_stamp();
  Semaphores &semaphores = env_.semaphores;
  for (const isa::SemWait &w : env_.program.waitsOf(inst)) {
    if (semaphores.count(w.sem) >= w.count)
      continue;
    blockedOn_ = &w;
    semaphores.waitUntil(w.sem, w.count);
  }
  blockedOn_ = nullptr;
  waitedPs_ += (sc_core::sc_time_stamp() - before).value();
}

} // namespace tessera::sim
