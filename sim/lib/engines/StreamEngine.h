#pragma once
/// \file
/// What every engine does with its instruction stream, whatever the engine: one SC_METHOD, a state machine that,
/// for each instruction, checks it (operands inside their memories, shapes, semaphores: every instruction is
/// checked once before the run, and the first one that fails stops the run when its engine reaches it), waits at
/// the TPU's grid-step barrier (StepBarrier.h; instructions with Instruction::step != 0), waits for its semaphores,
/// hands it to the kernel-bug checks (races, uninitialised reads; when on), lets the engine occupy itself with it
/// (begin(): how long, and unless timing only the instruction's semantics; then one next_trigger(sc_time) for that
/// long; complete() when it is up), then signals its semaphores and tells the barrier it completed. A failed check
/// stops the whole run (every core) with that Error. With SimOptions::recordTimeline it appends an InstructionEvent
/// to the timeline as each instruction retires (off: one branch per instruction, nothing else).
///
/// Why a method and not an SC_THREAD: a thread pays a coroutine switch (its own stack) on every wait, one per
/// instruction; a method is a function call from SystemC's scheduler. Every point where the thread would have
/// called wait() is a point where the method sets next_trigger() and returns, and SystemC 2.3.4 treats the two
/// alike (the same timeout events, the same dynamic sensitivity, runnable queues run in the same order), so the
/// schedule, ties included, and every result are those of the one-thread-per-engine model.

#include "RunEnvironment.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/Program.h"

#include <systemc>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>

namespace tessera::sim {

class StreamEngine : public sc_core::sc_module {
public:
  StreamEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env);

  const isa::Stream &stream() const { return stream_; }
  /// True once every instruction has completed.
  bool finished() const { return finished_; }
  /// Index of the instruction the engine is at (the number retired so far).
  size_t position() const { return position_; }
  /// The semaphore wait it is blocked on, or null.
  const isa::SemWait *blockedOn() const { return blockedOn_; }
  /// Whether it waits at the grid-step barrier (StepBarrier.h) for its instruction's step.
  bool awaitingStep() const { return awaitingStep_; }

  /// When its last retired instruction completed.
  const sc_core::sc_time &lastCompletion() const { return lastCompletion_; }
  /// Time spent occupied by instructions (DMA queues: with a transfer in flight).
  sc_core::sc_time busy() const { return sc_core::sc_time::from_value(busyPs_); }
  /// Time spent blocked: at the grid-step barrier, on semaphores, on a memory port another engine held, on a producer's
  /// commit.
  sc_core::sc_time waited() const { return sc_core::sc_time::from_value(waitedPs_); }
  /// Floating-point operations and HBM bytes of the retired instructions (isa::flops, isa::hbmBytes).
  uint64_t flops() const { return flops_; }
  /// Those FLOPs by the peak they are measured against (isa::peakDtypeOf).
  const std::array<uint64_t, isa::kPeakDtypeCount> &flopsByPeak() const { return flopsByPeak_; }
  uint64_t hbmBytes() const { return hbmBytes_; }

protected:
  /// Starts `inst` at the current time: how many picoseconds it occupies the engine from now (the engine then waits
  /// that long), and its semantics unless the run is timing only and they happen at the start. Adds the time it
  /// occupies the engine to busyPs_ and sets instFlops_, instPeak_ and instHbmBytes_.
  virtual uint64_t begin(const isa::Instruction &inst) = 0;
  /// `inst`, begun before, completes now (a DMA transfer moves its data).
  virtual void complete(const isa::Instruction &) {}

  /// Counts `ps` the instruction being performed spent stalled before it started (a shared port, a producer's
  /// commit) as waited, not busy; begin() includes it in the time it returns.
  void stalled(uint64_t ps) { waitedPs_ += ps; }

  RunEnvironment &env_;
  uint64_t busyPs_ = 0;
  uint64_t currentWaitPs_ = 0; ///< how long the instruction being performed waited for its semaphores
  /// What the instruction begun last counts for as it retires: isa::flops, isa::peakDtypeOf, isa::hbmBytes (begin()
  /// sets them).
  uint64_t instFlops_ = 0, instHbmBytes_ = 0;
  isa::PeakDtype instPeak_ = isa::PeakDtype::Bf16;
  /// When the DMA transfer just performed held the HBM pool (DmaQueue sets them; 0 for anything else).
  uint64_t hbmFromPs_ = 0, hbmToPs_ = 0;

private:
  /// Where the engine is within its instruction at position_ when SystemC next runs it.
  enum class Phase : uint8_t {
    Issue,       ///< about to start it (checks, barrier, semaphores)
    AwaitStep,   ///< waiting at the grid-step barrier
    AwaitWaits,  ///< waiting for its semaphores (blockedOn_), the first nextWait_ of them satisfied
    Performing,  ///< begun; its time is up when SystemC runs the engine again
  };

  /// The SC_METHOD: runs the stream from where it stands until it must wait, then sets next_trigger and returns.
  void step();
  void runUntilBlocked();
  /// Completes the instruction at position_ (its time is up) and moves past it.
  void retire(const isa::Instruction &inst);
  /// Records the run's first failure, on any core (a later one in the same delta cycle is dropped), and stops the
  /// simulation of every core.
  void stopRun(std::exception_ptr failure);
  /// Whether `inst` may start now as far as the grid-step barrier goes; if not, waits for the barrier's event.
  bool stepReady(const isa::Instruction &inst);
  /// Whether every semaphore wait of `inst` holds now; if not, waits for the first that does not.
  bool waitsReady(const isa::Instruction &inst);
  /// Appends the instruction at position_, just performed, to the timeline: it waited `waitedPs` (semaphores and
  /// stalls) and then occupied the engine for `busyPs`.
  void record(uint64_t waitedPs, uint64_t busyPs);

  const isa::Stream &stream_;
  uint32_t streamIndex_ = 0;  ///< in Program::streams
  size_t position_ = 0;
  Phase phase_ = Phase::Issue;
  uint32_t nextWait_ = 0;          ///< AwaitWaits: the waits before it hold
  uint64_t blockedSincePs_ = 0;    ///< when the current wait at the barrier or on semaphores began
  bool blockedInWaits_ = false;    ///< AwaitWaits: it has blocked on some semaphore of this instruction
  uint64_t waitedBefore_ = 0, busyBefore_ = 0; ///< waitedPs_ and busyPs_ when the current instruction issued
  size_t firstInvalid_ = 0; ///< firstInvalidInstruction() of the stream, found before the run
  bool finished_ = false;
  const isa::SemWait *blockedOn_ = nullptr;
  bool awaitingStep_ = false;
  sc_core::sc_time lastCompletion_;
  uint64_t waitedPs_ = 0;
  uint64_t flops_ = 0, hbmBytes_ = 0;
  std::array<uint64_t, isa::kPeakDtypeCount> flopsByPeak_{};
};

} // namespace tessera::sim
