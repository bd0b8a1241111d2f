// --timeout (RunRequest::deadline) stops a run in each of its phases: after compiling (limits.test), in the
// simulation at its next check (every 64 retired instructions), and while the golden model and the reference
// compute on their thread, which the run then stops waiting for (issue 24: the reference alone once took a
// 2-second limit to 4.6 s; a deadline passed during the simulation waited 35 s for the golden model).

#include "tessera/Driver.h"
#include "tessera/ReferenceRun.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace {

using namespace tessera::driver;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

TEST(Timeout, TheSimulationStopsAtItsFirstCheckAfterTheDeadline) {
  RunRequest r{.kernel = "matmul"};
  r.shape = {{"M", 1024}, {"N", 1024}, {"K", 1024}};
  r.timeoutSeconds = 3;
  r.deadline = Clock::now() + 3s;
  r.progress = [&](double, uint64_t retired, uint64_t) {
    if (retired == 64) std::this_thread::sleep_until(*r.deadline + 100ms); // the deadline passes here
  };
  try {
    runKernel(r);
    FAIL() << "the run finished past its deadline";
  } catch (const TimeoutError &e) {
    EXPECT_EQ(e.retired, 64u);
    EXPECT_EQ(e.total, 304u);
    EXPECT_EQ(std::string(e.what()).find(" while "), std::string::npos) << e.what(); // the simulation's own stop
  }
}

TEST(Timeout, TheRunStopsWaitingForAReferenceStillComputing) {
  tsr::KernelInfo slow = findKernel("add");
  slow.reference = [](const auto &, const auto &, auto &) { std::this_thread::sleep_for(8s); };
  RunRequest r{.kernel = "add"};
  r.kernelInfo = &slow;
  r.timeoutSeconds = 2;
  r.deadline = Clock::now() + 2s;
  const Clock::time_point start = Clock::now();
  try {
    runKernel(r);
    FAIL() << "the run finished past its deadline";
  } catch (const TimeoutError &e) {
    EXPECT_NE(std::string(e.what()).find("while the golden model and the reference computed the outputs to check"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.retired, e.total); // the simulation itself had finished
  }
  // It did not wait for the 8-second reference (a margin of seconds, not a speed check).
  EXPECT_LT(Clock::now() - start, 6s);
}

// A run that fails for another reason once its deadline has passed (here its instruction limit, while compiling)
// still waits for the golden model's thread, which compiles meanwhile: the CLI leaves such a failure by returning
// from main, whose static destructors crashed under a thread still inside LLVM (SIGSEGV in 1 of 10 runs of
// `tessera run matmul --shape M=2048,N=2048,K=2048 --max-instructions 100 --timeout 0.01`).
TEST(Timeout, AnErrorAfterTheDeadlineStillWaitsForTheGoldenModel) {
  RunRequest r{.kernel = "matmul"};
  r.shape = {{"M", 512}, {"N", 512}, {"K", 512}};
  r.maxInstructions = 10;
  r.timeoutSeconds = 1;
  r.deadline = Clock::now(); // passed before anything runs
  const int before = ReferenceRun::threadsRunning(); // an earlier test's abandoned reference may still sleep
  EXPECT_THROW(runKernel(r), LimitError);
  EXPECT_LE(ReferenceRun::threadsRunning(), before);
}

} // namespace
