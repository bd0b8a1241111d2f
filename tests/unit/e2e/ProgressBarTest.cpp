// The progress bar of long simulations: the simulator reports progress every kProgressInterval retired
// instructions, and the bar draws it (only where asked to, only after its delay) and clears its line at the end.

#include "tessera/Driver.h"
#include "tessera/ProgressBar.h"
#include "tessera/ReferenceRun.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

namespace {

using namespace tessera;
using namespace tessera::driver;

std::string contentsOf(std::FILE *file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
  return text;
}

RunRequest bigEnough() {
  // matmul_tiled at this shape retires over 12 000 instructions: several progress reports.
  return {.kernel = "matmul_tiled", .target = "trn2", .shape = {{"M", 4096}, {"N", 4096}, {"K", 2048}},
          .timingOnly = true};
}

TEST(Progress, TheSimulatorReportsRetiredInstructionsAndTime) {
  RunRequest request = bigEnough();
  std::vector<std::pair<double, uint64_t>> reports;
  uint64_t totalSeen = 0;
  request.progress = [&](double ns, uint64_t retired, uint64_t total) {
    reports.emplace_back(ns, retired);
    totalSeen = total;
  };
  RunReport r = runKernel(request);
  ASSERT_GE(r.instructions, 2 * sim::SimOptions::kProgressInterval);
  ASSERT_EQ(reports.size(), r.instructions / sim::SimOptions::kProgressInterval);
  EXPECT_EQ(totalSeen, r.instructions);
  for (size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].second, (i + 1) * sim::SimOptions::kProgressInterval);
    EXPECT_LE(reports[i].first, r.sim.timeNs);
    if (i) EXPECT_GE(reports[i].first, reports[i - 1].first);
  }
  // Progress reports change nothing about the run.
  RunReport quiet = runKernel(bigEnough());
  EXPECT_EQ(quiet.sim.timeNs, r.sim.timeNs);
}

TEST(Progress, TheBarDrawsSimulatedTimeAndInstructionsThenClearsItsLine) {
  std::FILE *out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  RunReport r;
  {
    ProgressBar bar(out, /*enabled=*/true, std::chrono::milliseconds(0));
    RunRequest request = bigEnough();
    request.progress = bar.callback();
    r = runKernel(request);
  }
  const std::string text = contentsOf(out);
  EXPECT_NE(text.find("simulating ["), std::string::npos) << text;
  const std::string first =
      " us simulated, " + std::to_string(sim::SimOptions::kProgressInterval) + " of " + std::to_string(r.instructions);
  EXPECT_NE(text.find(first + " instructions"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K"); // the report then starts on a clean line
  std::fclose(out);
}

TEST(Progress, NothingIsDrawnWhenDisabledOrBeforeTheDelay) {
  std::FILE *out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressBar off(out, /*enabled=*/false, std::chrono::milliseconds(0));
    EXPECT_FALSE(off.callback()) << "a disabled bar costs the simulator nothing";
    ProgressBar later(out, /*enabled=*/true, std::chrono::hours(1));
    RunRequest request = bigEnough();
    request.progress = later.callback();
    runKernel(request);
  }
  EXPECT_EQ(contentsOf(out), "");
  std::fclose(out);
}

// A kernel whose own reference takes 400 ms: longer than its simulation, so the run waits for it.
const tsr::Registration slowReference{{
    .name = "test_slow_reference",
    .summary = "copies a [128, 64] tile; its reference sleeps first",
    .signature = [](const tsr::Params &) {
      return std::vector<tsr::TensorSpec>{tsr::input("a", {128, 64}, tsr::f32),
                                          tsr::output("b", {128, 64}, tsr::f32)};
    },
    .body = tsr::body([](tsr::Hbm a, tsr::Hbm b) {
      tsr::store(b.tile(0, 0, {128, 64}), tsr::load(a.tile(0, 0, {128, 64})));
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      out[0] = in[0];
    },
}};

TEST(Progress, AWaitForTheReferencesIsReportedAsItGoes) {
  RunRequest request{.kernel = "test_slow_reference", .target = "trn2"};
  std::vector<double> waits;
  std::string what;
  request.waiting = [&](const std::string &w, double seconds) {
    what = w;
    waits.push_back(seconds);
  };
  RunReport r = runKernel(request);
  EXPECT_TRUE(r.ok);
  ASSERT_GE(waits.size(), 2u) << "every 100 ms of a 400 ms wait";
  // The golden model of one copy is done long before the reference wakes up.
  EXPECT_EQ(what, "kernel's reference");
  for (size_t i = 1; i < waits.size(); ++i) EXPECT_GT(waits[i], waits[i - 1]);
}

// ReferenceRun::pending() names what is still computing: the golden model with its stage, the reference.
TEST(Progress, PendingNamesWhatIsStillComputing) {
  std::atomic<bool> release = false;
  tsr::KernelInfo k;
  k.name = "test_pending";
  k.signature = [](const tsr::Params &) {
    return std::vector<tsr::TensorSpec>{tsr::input("a", {128, 8}, tsr::f32), tsr::output("b", {128, 8}, tsr::f32)};
  };
  k.body = tsr::body([](tsr::Hbm a, tsr::Hbm b) { tsr::store(b.tile(0, 0, {128, 8}), tsr::load(a.tile(0, 0, {128, 8}))); });
  k.reference = [&](const tsr::Params &, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    out[0] = in[0];
  };
  auto graph = std::make_shared<const tsr::graph::KernelGraph>(tsr::trace(k, {}));
  const size_t bytes = 128 * 8 * 4;
  ReferenceRun run(graph, k, {}, /*withGolden=*/true);
  run.start(sim::HbmImage{std::vector<std::byte>(bytes), std::vector<std::byte>(bytes)},
            {tsr::HostTensor(128 * 8, 1.0f)}, {tsr::HostTensor(128 * 8)});
  const std::string first = run.pending();
  EXPECT_TRUE(first == "kernel's reference" || first.starts_with("golden model")) << first;
  if (first.starts_with("golden model"))
    EXPECT_TRUE(first.ends_with(") and the kernel's reference") || first == "golden model and the kernel's reference")
        << first;
  const auto start = std::chrono::steady_clock::now();
  while (run.pending() != "kernel's reference" && std::chrono::steady_clock::now() - start < std::chrono::minutes(1))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(run.pending(), "kernel's reference") << "the golden model finished, the reference waits";
  release = true;
  EXPECT_TRUE(run.waitUntil(std::nullopt));
  EXPECT_EQ(run.pending(), "");
  EXPECT_TRUE(run.results().golden.has_value());
}

TEST(Progress, TheBarSaysWhatTheRunWaitsFor) {
  std::FILE *out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressBar bar(out, /*enabled=*/true, std::chrono::milliseconds(0));
    bar.waitingCallback()("golden model (compiling for the host) and the kernel's reference", 2.25);
    ProgressBar off(out, /*enabled=*/false, std::chrono::milliseconds(0));
    EXPECT_FALSE(off.waitingCallback());
  }
  const std::string text = contentsOf(out);
  EXPECT_NE(text.find("simulation done; waiting for the golden model (compiling for the host) and the kernel's "
                      "reference to check the outputs: 2.2 s"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K");
  std::fclose(out);
}

} // namespace
