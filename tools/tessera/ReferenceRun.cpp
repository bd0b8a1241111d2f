#include "tessera/ReferenceRun.h"

#include "tessera/compiler/Golden.h"
#include "tessera/isa/Error.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace tessera::driver {

struct ReferenceRun::State {
  struct Abandoned {};
  std::shared_ptr<const tsr::graph::KernelGraph> graph;
  /// A copy: the thread may outlive the registry entry it came from (a process exiting on --timeout).
  decltype(tsr::KernelInfo::reference) reference;
  tsr::Params params;
  ReferenceResults results; ///< written by start() before `given` is set, then by the threads
  std::atomic<bool> abandoned = false;
  std::promise<void> given; ///< set by start() (or the destructor, abandoning) once
  std::shared_future<void> inputs = given.get_future().share();
  mutable std::mutex stageMutex;
  std::string goldenStage; ///< what the golden model is doing ("compiling for the host"), for pending()
  bool withGolden = false;  ///< whether the golden model runs (results.golden, which its thread may reset)

  using Clock = std::chrono::steady_clock;
  static double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  void tellStage(const std::string &stage) {
    const std::lock_guard<std::mutex> lock(stageMutex);
    goldenStage = stage;
  }

  /// Compiles the golden model, waits for the inputs, runs it: a compilation error is the run's to report, after
  /// the inputs came (as if it had been compiled then).
  void runGolden() {
    if (abandoned) return;
    Clock::time_point start = Clock::now();
    std::unique_ptr<compiler::GoldenModel> model;
    std::string unsupported;
    std::exception_ptr failed;
    try {
      // Between stages, a run given up (the compiler refused the kernel) stops compiling its golden model.
      model = compiler::compileGolden(*graph, [this](const std::string &stage) {
        if (abandoned) throw Abandoned{};
        tellStage(stage);
      });
    } catch (const Abandoned &) {
      return;
    } catch (const compiler::GoldenUnsupported &e) {
      unsupported = e.message();
    } catch (...) {
      failed = std::current_exception();
    }
    const double compileSeconds = secondsSince(start);
    if (model) tellStage("compiled; waiting for the inputs");
    inputs.wait();
    if (abandoned || !results.golden) return;
    results.goldenSeconds = compileSeconds;
    if (failed) std::rethrow_exception(failed);
    if (!model) {
      results.golden.reset();
      results.goldenUnavailable = unsupported;
      return;
    }
    tellStage("running");
    start = Clock::now();
    model->run(*results.golden);
    results.goldenSeconds += secondsSince(start);
  }

  void runReference() {
    if (!results.hasReference || abandoned) return;
    const Clock::time_point start = Clock::now();
    reference(params, results.inputs, results.expected);
    results.referenceSeconds = secondsSince(start);
  }
};

namespace {

/// The threads of every ReferenceRun not yet through their work (threadsRunning()).
std::atomic<int> running = 0;

/// Runs `work` on a thread that owns `state` with the caller.
template <typename State> std::future<void> startThread(std::shared_ptr<State> state, void (State::*work)()) {
  ++running;
  std::packaged_task<void()> task([state = std::move(state), work] {
    struct Done {
      ~Done() { --running; } // before the future is ready, thrown or not
    } done;
    ((*state).*work)();
  });
  std::future<void> done = task.get_future();
  std::thread(std::move(task)).detach();
  return done;
}

} // namespace

int ReferenceRun::threadsRunning() { return running; }

ReferenceRun::ReferenceRun(std::shared_ptr<const tsr::graph::KernelGraph> graph, const tsr::KernelInfo &kernel,
                           tsr::Params params, bool withGolden)
    : state_(std::make_shared<State>()) {
  state_->graph = std::move(graph);
  state_->reference = kernel.reference;
  state_->params = std::move(params);
  state_->withGolden = withGolden;
  state_->results.hasReference = static_cast<bool>(state_->reference);
  if (withGolden) done_[0] = startThread(state_, &State::runGolden);
}

void ReferenceRun::start(std::optional<sim::HbmImage> golden, std::vector<tsr::HostTensor> inputs,
                         std::vector<tsr::HostTensor> expected) {
  if (started_) throw Error("ReferenceRun::start called twice");
  started_ = true;
  // The two threads write disjoint parts of the results.
  state_->results.golden = state_->withGolden ? std::move(golden) : std::nullopt;
  state_->results.inputs = std::move(inputs);
  state_->results.expected = std::move(expected);
  state_->given.set_value();
  done_[1] = startThread(state_, &State::runReference);
}

ReferenceRun::~ReferenceRun() {
  if (collected_) return;
  state_->abandoned = true;
  if (!started_) state_->given.set_value(); // the golden model's thread waits for inputs that will not come
  if (timedOut_) return;
  for (std::future<void> &done : done_)
    if (done.valid()) done.wait();
}

bool ReferenceRun::waitUntil(const Deadline &deadline) {
  for (std::future<void> &done : done_) {
    if (!done.valid()) continue;
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
  if (running(done_[0])) {
    const std::lock_guard<std::mutex> lock(state_->stageMutex);
    golden = state_->goldenStage.empty() ? "golden model" : "golden model (" + state_->goldenStage + ")";
  }
  const std::string reference = running(done_[1]) && state_->results.hasReference ? "kernel's reference" : "";
  if (golden.empty()) return reference;
  return reference.empty() ? golden : golden + " and the " + reference;
}

ReferenceResults ReferenceRun::results() {
  if (!started_) throw Error("ReferenceRun::results called before start");
  for (std::future<void> &done : done_)
    if (done.valid()) done.wait();
  collected_ = true;
  for (std::future<void> &done : done_)
    if (done.valid()) done.get();
  return std::move(state_->results);
}

} // namespace tessera::driver
