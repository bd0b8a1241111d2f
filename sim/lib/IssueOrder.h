#pragma once
/// \file
/// The TPU TensorCore's in-order issue: its MXU, VPU and scalar-unit instructions carry their place in one program
/// order (isa::Instruction::issue, 1-based), and instruction n starts no earlier than instruction n - 1 started plus
/// isa::issueCycles(n - 1) (the scalar core's own instructions hold issue for their whole duration, an MXU or VPU
/// instruction for tpuCost.vpuIssueCycles). An instruction takes its turn before it waits for its semaphores and
/// holds it while it waits, so a wait (on a DMA, say) blocks everything behind it, as the core's `.wait()` does.
/// DMA queues and NeuronCore engines (issue 0) never take part.
///
/// One object per run, shared by the engines: one event, notified when the turn moves on; nothing is allocated
/// while the run goes, and a waiting engine wakes once per instruction issued, never per cycle.

#include <systemc>

#include <cstdint>

namespace tessera::sim {

class IssueOrder {
public:
  /// Blocks the calling SC_THREAD until it is `issue`'s turn: `issue - 1` has started and its issue cycles have
  /// passed.
  void awaitTurn(uint32_t issue);

  /// Instruction `issue`, whose turn it is, has started: the turn moves to the next, which may start at `nextAtPs`
  /// (this one's start plus its issue cycles).
  void issued(uint32_t issue, uint64_t nextAtPs);

  /// The issue number whose turn it is: the first instruction in issue order that has not started.
  uint32_t next() const { return next_; }

private:
  uint32_t next_ = 1;
  uint64_t nextAtPs_ = 0;   ///< when `next_` may start, in ps
  uint32_t waiters_ = 0;    ///< threads blocked in awaitTurn: issued() notifies only when some are
  sc_core::sc_event advanced_;
};

} // namespace tessera::sim
