#pragma once
/// \file
/// The hardware semaphores engines synchronise through: counters that only grow, each with an event so that an
/// engine waiting for a count wakes as soon as a signal reaches it.

#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::sim {

/// Counting semaphores, one per Program::semaphores. An engine (an SC_METHOD) that finds a count too low calls
/// startWaiting(), sets next_trigger(eventOf()) and looks again when it runs; stopWaiting() once the count holds.
class Semaphores {
public:
  /// What one semaphore id costs the host, an event made only once something waits on it: a hand-written module
  /// naming semaphore 100,000,000 once made that many events up front and took 24 GB.
  static constexpr uint64_t kHostBytesPerSemaphore =
      sizeof(uint64_t) + sizeof(uint32_t) + sizeof(std::unique_ptr<sc_core::sc_event>);

  explicit Semaphores(uint32_t count);

  /// How many times `sem` has been signalled so far.
  uint64_t count(uint32_t sem) const { return counts_[sem]; }

  /// One more engine waits for `sem` to grow (signal() notifies its event only while some do).
  void startWaiting(uint32_t sem);
  /// One engine that waited for `sem` no longer does.
  void stopWaiting(uint32_t sem) { --waiters_[sem]; }
  /// The event signal() notifies while some engine waits on `sem` (made by its first startWaiting()).
  const sc_core::sc_event &eventOf(uint32_t sem) const { return *events_[sem]; }

  /// Adds one to `sem` and wakes its waiters (in the current delta cycle: no time passes).
  void signal(uint32_t sem) {
    ++counts_[sem];
    if (waiters_[sem] != 0)
      events_[sem]->notify();
  }

private:
  std::vector<uint64_t> counts_;
  std::vector<uint32_t> waiters_;  ///< engines blocked on each semaphore: signal() notifies only when some are
  std::vector<std::unique_ptr<sc_core::sc_event>> events_; ///< made on a semaphore's first wait
};

} // namespace tessera::sim
