#pragma once
/// \file
/// The golden model and the kernel's own reference, each computed on a thread of its own while the simulator runs:
/// a run takes the longest of the three instead of their sum, and `--timeout` bounds the wait for them too. The
/// golden model needs only the traced kernel to be compiled, so its thread starts before the kernel's own
/// compilation and compiles it meanwhile; it runs once the inputs are given (start()). At a kernel's default shapes
/// compiling the golden model is a run's critical path: conv2d on trn2, on a 2-core host, lowers in 25 ms and
/// JIT-compiles in 60 ms, runs in 5 ms, while the kernel compiles in 25 ms and simulates in 12 ms.

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
  /// Host wall time of each: the golden model's compiling and running (not its wait for the inputs).
  double goldenSeconds = 0, referenceSeconds = 0;
};

class ReferenceRun {
public:
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  /// Starts compiling `graph`'s golden model on a thread of its own when `withGolden`.
  ReferenceRun(std::shared_ptr<const tsr::graph::KernelGraph> graph, const tsr::KernelInfo &kernel,
               tsr::Params params, bool withGolden);
  /// Without results() (the compiler or the simulation failed), the threads skip what they have not begun, and this
  /// waits for what they are doing: the golden model stops between its stages (lowering, compiling), not within
  /// one. After abandon() or a waitUntil() that saw its deadline pass it does not wait: the threads finish alone
  /// (they own all they read), and a process that exits meanwhile must do so with std::_Exit, as the CLI does on
  /// --timeout, so that no static destructor runs under it.
  ~ReferenceRun();
  ReferenceRun(const ReferenceRun &) = delete;
  ReferenceRun &operator=(const ReferenceRun &) = delete;

  /// Gives the threads their inputs, once: the golden model runs on `golden` (the tensors as the simulator starts
  /// from them; nullopt: not run) as soon as it is compiled, and the kernel's reference starts from `inputs` into
  /// `expected` (sized, one per output).
  void start(std::optional<sim::HbmImage> golden, std::vector<tsr::HostTensor> inputs,
             std::vector<tsr::HostTensor> expected);
  /// Waits for the threads, until `deadline` if there is one: false when the deadline came first.
  bool waitUntil(const Deadline &deadline);
  /// Gives the threads up without waiting for them (the simulation stopped on --timeout).
  void abandon() { timedOut_ = true; }
  /// What is still computing, for a progress line: "golden model (compiling for the host)", "kernel's reference",
  /// both joined by " and the ", or "" when nothing is.
  std::string pending() const;
  /// The results, once start() was called and the threads are done; rethrows what one threw.
  ReferenceResults results();

  /// The threads of all ReferenceRuns that have not finished their work: a run that failed must leave none behind
  /// unless it was abandoned (TimeoutTest checks it).
  static int threadsRunning();

private:
  struct State;
  std::shared_ptr<State> state_;
  std::future<void> done_[2]; ///< the golden model's thread, the reference's
  bool started_ = false, collected_ = false, timedOut_ = false;
};

} // namespace tessera::driver
