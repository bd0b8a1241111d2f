#include "tessera/ReferenceRun.h"

#include "tessera/compiler/Golden.h"

#include <atomic>
#include <thread>

namespace tessera::driver {

struct ReferenceRun::State {
  std::shared_ptr<const tsr::graph::KernelGraph> graph;
  /// A copy: the thread may outlive the registry entry it came from (a process exiting on --timeout).
  decltype(tsr::KernelInfo::reference) reference;
  tsr::Params params;
  ReferenceResults results;
  std::atomic<bool> abandoned = false;

  void run() {
    using Clock = std::chrono::steady_clock;
    const auto secondsSince = [](Clock::time_point start) {
      return std::chrono::duration<double>(Clock::now() - start).count();
    };
    if (results.golden && !abandoned) {
      const Clock::time_point start = Clock::now();
      try {
        compiler::runGolden(*graph, *results.golden);
      } catch (const compiler::GoldenUnsupported &e) {
        results.golden.reset();
        results.goldenUnavailable = e.message();
      }
      results.goldenSeconds = secondsSince(start);
    }
    results.hasReference = static_cast<bool>(reference);
    if (results.hasReference && !abandoned) {
      const Clock::time_point start = Clock::now();
      reference(params, results.inputs, results.expected);
      results.referenceSeconds = secondsSince(start);
    }
  }
};

ReferenceRun::ReferenceRun(std::shared_ptr<const tsr::graph::KernelGraph> graph, std::optional<sim::HbmImage> golden,
                           const tsr::KernelInfo &kernel, tsr::Params params, std::vector<tsr::HostTensor> inputs,
                           std::vector<tsr::HostTensor> expected)
    : state_(std::make_shared<State>()) {
  state_->graph = std::move(graph);
  state_->reference = kernel.reference;
  state_->params = std::move(params);
  state_->results.golden = std::move(golden);
  state_->results.inputs = std::move(inputs);
  state_->results.expected = std::move(expected);
  std::packaged_task<void()> task([state = state_] { state->run(); });
  done_ = task.get_future();
  std::thread(std::move(task)).detach();
}

ReferenceRun::~ReferenceRun() {
  if (collected_) return;
  state_->abandoned = true;
  if (!timedOut_) done_.wait();
}

bool ReferenceRun::waitUntil(const std::optional<std::chrono::steady_clock::time_point> &deadline) {
  if (!deadline) {
    done_.wait();
    return true;
  }
  timedOut_ = done_.wait_until(*deadline) != std::future_status::ready;
  return !timedOut_;
}

ReferenceResults ReferenceRun::results() {
  done_.get();
  collected_ = true;
  return std::move(state_->results);
}

} // namespace tessera::driver
