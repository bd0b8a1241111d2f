#include "tessera/ReferenceRun.h"

#include "tessera/compiler/Golden.h"

#include <atomic>
#include <mutex>
#include <thread>

namespace tessera::driver {

struct ReferenceRun::State {
  std::shared_ptr<const tsr::graph::KernelGraph> graph;
  /// A copy: the thread may outlive the registry entry it came from (a process exiting on --timeout).
  decltype(tsr::KernelInfo::reference) reference;
  tsr::Params params;
  ReferenceResults results;
  std::atomic<bool> abandoned = false;
  mutable std::mutex stageMutex;
  std::string goldenStage; ///< what the golden model is doing ("compiling for the host"), for pending()
  bool withGolden = false;  ///< whether the golden model runs (results.golden, which its thread may reset)

  using Clock = std::chrono::steady_clock;
  static double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  void runGolden() {
    if (!results.golden || abandoned) return;
    const Clock::time_point start = Clock::now();
    try {
      compiler::runGolden(*graph, *results.golden, [this](const std::string &stage) {
        const std::lock_guard<std::mutex> lock(stageMutex);
        goldenStage = stage;
      });
    } catch (const compiler::GoldenUnsupported &e) {
      results.golden.reset();
      results.goldenUnavailable = e.message();
    }
    results.goldenSeconds = secondsSince(start);
  }

  void runReference() {
    if (!results.hasReference || abandoned) return;
    const Clock::time_point start = Clock::now();
    reference(params, results.inputs, results.expected);
    results.referenceSeconds = secondsSince(start);
  }
};

ReferenceRun::ReferenceRun(std::shared_ptr<const tsr::graph::KernelGraph> graph, std::optional<sim::HbmImage> golden,
                           const tsr::KernelInfo &kernel, tsr::Params params, std::vector<tsr::HostTensor> inputs,
                           std::vector<tsr::HostTensor> expected)
    : state_(std::make_shared<State>()) {
  state_->graph = std::move(graph);
  state_->reference = kernel.reference;
  state_->params = std::move(params);
  state_->withGolden = golden.has_value();
  state_->results.golden = std::move(golden);
  state_->results.inputs = std::move(inputs);
  state_->results.expected = std::move(expected);
  state_->results.hasReference = static_cast<bool>(state_->reference);
  // Two threads, each owning the state with this object: the golden model and the reference write disjoint
  // parts of the results.
  const auto start = [this](void (State::*work)()) {
    std::packaged_task<void()> task([state = state_, work] { ((*state).*work)(); });
    std::future<void> done = task.get_future();
    std::thread(std::move(task)).detach();
    return done;
  };
  done_[0] = start(&State::runGolden);
  done_[1] = start(&State::runReference);
}

ReferenceRun::~ReferenceRun() {
  if (collected_) return;
  state_->abandoned = true;
  if (timedOut_) return;
  for (std::future<void> &done : done_) done.wait();
}

bool ReferenceRun::waitUntil(const std::optional<std::chrono::steady_clock::time_point> &deadline) {
  for (std::future<void> &done : done_) {
    if (!deadline) {
      done.wait();
      continue;
    }
    timedOut_ = done.wait_until(*deadline) != std::future_status::ready;
    if (timedOut_) return false;
  }
  return true;
}

std::string ReferenceRun::pending() const {
  const auto running = [](const std::future<void> &done) {
    return done.valid() && done.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  };
  std::string golden;
  if (running(done_[0]) && state_->withGolden) {
    const std::lock_guard<std::mutex> lock(state_->stageMutex);
    golden = state_->goldenStage.empty() ? "golden model" : "golden model (" + state_->goldenStage + ")";
  }
  const std::string reference = running(done_[1]) && state_->results.hasReference ? "kernel's reference" : "";
  if (golden.empty()) return reference;
  return reference.empty() ? golden : golden + " and the " + reference;
}

ReferenceResults ReferenceRun::results() {
  for (std::future<void> &done : done_) done.wait();
  collected_ = true;
  for (std::future<void> &done : done_) done.get();
  return std::move(state_->results);
}

} // namespace tessera::driver
