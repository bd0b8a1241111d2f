#pragma once
/// \file
/// The golden model and the kernel's own reference, computed on a thread of their own while the simulator runs: a
/// run takes the longer of the two instead of their sum, and `--timeout` bounds the wait for them too.

#include "tessera/dsl/Kernel.h"
#include "tessera/sim/Simulator.h"

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::driver {

/// What the references computed.
struct ReferenceResults {
  std::optional<sim::HbmImage> golden; ///< the golden model's tensors; empty when it was not run or is unavailable
  std::string goldenUnavailable;       ///< why the golden model could not run this kernel (GoldenUnsupported)
  bool hasReference = false;           ///< whether the kernel has a reference, which filled `expected`
  std::vector<tsr::HostTensor> inputs, expected;
  double goldenSeconds = 0, referenceSeconds = 0; ///< host wall time of each
};

class ReferenceRun {
public:
  /// Starts the thread: the golden model on `golden` (its tensors as the simulator starts from them; nullopt: no
  /// golden model) and `kernel`'s reference from `inputs` into `expected` (sized, one per output).
  ReferenceRun(std::shared_ptr<const tsr::graph::KernelGraph> graph, std::optional<sim::HbmImage> golden,
               const tsr::KernelInfo &kernel, tsr::Params params, std::vector<tsr::HostTensor> inputs,
               std::vector<tsr::HostTensor> expected);
  /// Without results() (the simulation failed), the thread skips what it has not begun, and this waits for what it
  /// is doing. After waitUntil() saw the deadline pass it does not wait: the thread finishes alone (it owns all it
  /// reads), and a process that exits meanwhile must do so with std::_Exit, as the CLI does on --timeout, so that no
  /// static destructor runs under it.
  ~ReferenceRun();
  ReferenceRun(const ReferenceRun &) = delete;
  ReferenceRun &operator=(const ReferenceRun &) = delete;

  /// Waits for the thread, until `deadline` if there is one: false when the deadline came first.
  bool waitUntil(const std::optional<std::chrono::steady_clock::time_point> &deadline);
  /// Gives the thread up without waiting for it (the simulation stopped on --timeout): as when waitUntil() saw the
  /// deadline pass.
  void abandon() { timedOut_ = true; }
  /// The results, once the thread is done; rethrows what it threw.
  ReferenceResults results();

private:
  struct State;
  std::shared_ptr<State> state_;
  std::future<void> done_;
  bool collected_ = false, timedOut_ = false;
};

} // namespace tessera::driver
