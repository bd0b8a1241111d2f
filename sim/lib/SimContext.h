#pragma once
/// \file
/// A fresh SystemC simulation context for each simulate() call. SystemC elaborates and runs once per context, and
/// its context is a process-wide global; the simulator swaps in a new one for every run (and deletes it after),
/// so tests and the CLI can simulate any number of programs in one process.

#include <mutex>

namespace sc_core {
class sc_simcontext;
}

namespace tessera::sim {

/// Installs a new sc_simcontext as SystemC's current one for its lifetime and restores the previous one after.
/// Sets the time resolution to 1 ps and keeps SystemC silent on stdout (stdout stays clean for --json output).
/// Runs are serialised: SystemC keeps its current context in a global, so two host threads cannot simulate at
/// once.
class FreshSimContext {
public:
  FreshSimContext();
  ~FreshSimContext();
  FreshSimContext(const FreshSimContext &) = delete;
  FreshSimContext &operator=(const FreshSimContext &) = delete;

private:
  std::unique_lock<std::mutex> exclusive_;
  sc_core::sc_simcontext *context_ = nullptr;
  sc_core::sc_simcontext *previous_ = nullptr;
  sc_core::sc_simcontext *previousDefault_ = nullptr;
};

} // namespace tessera::sim
