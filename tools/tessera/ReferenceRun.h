#pragma once
/// \file
/// The golden model and the kernel's own reference, each computed on a thread of its own while the simulator runs:
/// a run takes the longest of the three instead of their sum, and `--timeout` bounds the wait for them too.

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
  /// Starts the threads: the golden model on `golden` (its tensors as the simulator starts from them; nullopt: no
  /// golden model) and `kernel`'s reference from `inputs` into `expected` (sized, one per output).
  ReferenceRun(std::shared_ptr<const tsr::graph::KernelGraph> graph, std::optional<sim::HbmImage> golden,
               const tsr::KernelInfo &kernel, tsr::Params params, std::vector<tsr::HostTensor> inputs,
               std::vector<tsr::HostTensor> expected);
  /// Without results() (the simulation failed), the threads skip what they have not begun, and this waits for what
  /// they are doing. After waitUntil() saw the deadline pass it does not wait: the threads finish alone (they own
  /// all they read), and a process that exits meanwhile must do so with std::_Exit, as the CLI does on --timeout, so
  /// that no static destructor runs under it.
  ~ReferenceRun();
  ReferenceRun(const ReferenceRun &) = delete;
  ReferenceRun &operator=(const ReferenceRun &) = delete;

  /// Waits for the threads, until `deadline` if there is one: false when the deadline came first.
  bool waitUntil(const std::optional<std::chrono::steady_clock::time_point> &deadline);
  /// Gives the threads up without waiting for it (the simulation stopped on --timeout): as when waitUntil() saw the
  /// deadline pass.
  void abandon() { timedOut_ = true; }
  /// What is still computing, for a progress line: "golden model (compiling for the host)", "kernel's reference",
  /// both joined by " and the ", or "" when nothing is.
  std::string pending() const;
  /// The results, once the threads are done; rethrows what one threw.
  ReferenceResults results();

private:
  struct State;
  std::shared_ptr<State> state_;
  std::future<void> done_[2]; ///< the golden model's thread, the reference's
  bool collected_ = false, timedOut_ = false;
};

} // namespace tessera::driver
