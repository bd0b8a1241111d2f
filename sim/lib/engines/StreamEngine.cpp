#include "engines/StreamEngine.h"

#include "ProgramChecks.h"

#include "tessera/isa/Cost.h"

namespace tessera::sim {

/// Room for isa::execute's frames on each engine's coroutine stack.
constexpr size_t kEngineStackBytes = 256 * 1024;

StreamEngine::StreamEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env)
    : sc_core::sc_module(name), env_(env), stream_(stream),
      streamIndex_(static_cast<uint32_t>(&stream - env.program.streams.data())) {
  SC_HAS_PROCESS(StreamEngine);
  SC_THREAD(run);
  set_stack_size(kEngineStackBytes);
}

void StreamEngine::run() {
  try {
    const auto &instructions = stream_.instructions;
    Semaphores &semaphores = env_.semaphores;
    KernelBugChecks *checks = env_.checks;
    for (; position_ < instructions.size(); ++position_) {
      const isa::Instruction &inst = instructions[position_];
      checkInstruction(env_.program, env_.target, stream_, position_);
      if (inst.waitCount != 0)
        awaitSemaphores(inst);
      if (checks)
        checks->start(streamIndex_, position_);
      perform(inst);
      for (uint32_t sem : env_.program.signalsOf(inst)) {
        semaphores.signal(sem);
        if (checks)
          checks->signal(streamIndex_, sem);
      }
      flops_ += isa::flops(inst);
      hbmBytes_ += isa::hbmBytes(inst);
    }
    lastCompletion_ = sc_core::sc_time_stamp();
    finished_ = true;
  } catch (const sc_core::sc_unwind_exception &) {
    throw; // SystemC is killing or resetting this thread: let it.
  } catch (const std::exception &) {
    if (!env_.failure)
      env_.failure = std::current_exception();
    sc_core::sc_stop();
  }
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
