#include "engines/StreamEngine.h"

#include "ProgramChecks.h"
#include "tessera/sim/SimulatedTimeOverflow.h"

#include "tessera/isa/Cost.h"

namespace tessera::sim {
namespace {

/// Asks the cache for every line of `inst`.
void prefetch(const isa::Instruction *inst) {
  const char *bytes = reinterpret_cast<const char *>(inst);
  for (size_t line = 0; line < sizeof(isa::Instruction); line += 64)
    __builtin_prefetch(bytes + line);
}

/// The current simulated time in picoseconds (the simulator's resolution, FreshSimContext).
uint64_t nowPs() { return sc_core::sc_time_stamp().value(); }

} // namespace

StreamEngine::StreamEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : sc_core::sc_module(name), env_(env), stream_(stream),
      streamIndex_(static_cast<uint32_t>(&stream - env.program.streams.data())) {
  SC_HAS_PROCESS(StreamEngine);
  SC_METHOD(step);
  firstInvalid_ = firstInvalidInstruction(env.program, env.target, stream);
}

void StreamEngine::step() {
  try {
    runUntilBlocked();
  } catch (const sc_core::sc_unwind_exception &) {
    throw; // SystemC is killing or resetting this process: let it.
  } catch (const SimulatedTimeOverflow &e) { // say which instruction, at its kernel line
    const isa::Instruction &inst = stream_.instructions[position_];
    stopRun(std::make_exception_ptr(SimulatedTimeOverflow(
        describeInstruction(stream_, position_) + ": " + e.message(), locationOf(env_.program, inst), e.hint())));
  } catch (const std::exception &) {
    stopRun(std::current_exception());
  }
}

void StreamEngine::runUntilBlocked() {
  const auto &instructions = stream_.instructions;
  if (phase_ == Phase::Performing)
    retire(instructions[position_]);
  if (position_ == instructions.size()) {
    lastCompletion_ = sc_core::sc_time_stamp();
    finished_ = true;
    return;
  }
  const isa::Instruction &inst = instructions[position_];
  if (phase_ == Phase::Issue) {
    // An instruction is several cache lines, and between two of one stream's instructions the other engines run:
    // without a prefetch, reading the next one is a cache miss that costs more than the rest of its dispatch.
    if (position_ + 1 < instructions.size())
      prefetch(&instructions[position_ + 1]);
    waitedBefore_ = waitedPs_;
    busyBefore_ = busyPs_;
    if (position_ == firstInvalid_) [[unlikely]]
      checkInstruction(env_.program, env_.target, stream_, position_); // throws
    phase_ = Phase::AwaitStep;
  }
  if (phase_ == Phase::AwaitStep) {
    if (inst.step != 0 && !stepReady(inst))
      return;
    phase_ = Phase::AwaitWaits;
    nextWait_ = 0;
  }
  if (inst.waitCount != 0 && !waitsReady(inst))
    return;
  currentWaitPs_ = waitedPs_ - waitedBefore_;
  if (env_.checks)
    env_.checks->start(streamIndex_, position_);
  const uint64_t ps = begin(inst);
  phase_ = Phase::Performing;
  next_trigger(sc_core::sc_time::from_value(ps));
}

void StreamEngine::retire(const isa::Instruction &inst) {
  complete(inst);
  if (env_.timeline)
    record(waitedPs_ - waitedBefore_, busyPs_ - busyBefore_);
  KernelBugChecks *checks = env_.checks;
  for (uint32_t sem : env_.program.signalsOf(inst)) {
    env_.semaphores.signal(sem);
    if (checks)
      checks->signal(streamIndex_, sem);
  }
  if (inst.step != 0)
    env_.stepBarrier.finished(inst);
  if (instFlops_ > 0) {
    flops_ += instFlops_;
    flopsByPeak_[static_cast<unsigned>(instPeak_)] += instFlops_;
  }
  hbmBytes_ += instHbmBytes_;
  if (ChipRun &chip = env_.chip; chip.progress && ++chip.retired % SimOptions::kProgressInterval == 0)
    (*chip.progress)(static_cast<double>(sc_core::sc_time_stamp().value()) / 1000.0, chip.retired, chip.total);
  ++position_;
  phase_ = Phase::Issue;
}

bool StreamEngine::stepReady(const isa::Instruction &inst) {
  StepBarrier &barrier = env_.stepBarrier;
  if (barrier.mayStart(inst)) {
    if (awaitingStep_) {
      awaitingStep_ = false;
      barrier.stopWaiting(inst);
      waitedPs_ += nowPs() - blockedSincePs_;
    }
    return true;
  }
  if (!awaitingStep_) {
    awaitingStep_ = true;
    barrier.startWaiting(inst);
    blockedSincePs_ = nowPs();
  }
  next_trigger(barrier.eventFor(inst));
  return false;
}

bool StreamEngine::waitsReady(const isa::Instruction &inst) {
  Semaphores &semaphores = env_.semaphores;
  const auto waits = env_.program.waitsOf(inst);
  for (; nextWait_ < waits.size(); ++nextWait_) {
    const isa::SemWait &w = waits[nextWait_];
    if (semaphores.count(w.sem) >= w.count) {
      if (blockedOn_ == &w) {
        semaphores.stopWaiting(w.sem);
        blockedOn_ = nullptr;
      }
      continue;
    }
    if (blockedOn_ != &w) {
      if (!blockedInWaits_) {
        blockedInWaits_ = true;
        blockedSincePs_ = nowPs();
      }
      blockedOn_ = &w;
      semaphores.startWaiting(w.sem);
    }
    next_trigger(semaphores.eventOf(w.sem));
    return false;
  }
  if (blockedInWaits_) {
    blockedInWaits_ = false;
    waitedPs_ += nowPs() - blockedSincePs_;
  }
  return true;
}

void StreamEngine::stopRun(std::exception_ptr failure) {
  if (env_.chip.failure)
    return; // another engine (of any core) failed first in this delta cycle and has stopped the run
  env_.chip.failure = std::move(failure);
  env_.chip.failedCore = env_.core;
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

} // namespace tessera::sim
