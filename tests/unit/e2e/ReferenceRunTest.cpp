// The golden model and the kernel's reference on their threads (tools/tessera/ReferenceRun.h): the golden model
// compiles from the traced kernel before the inputs exist, runs once they are given, and a run given up before
// then (the compiler refused the kernel) ends its thread.

#include "tessera/ReferenceRun.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

namespace {

using namespace tessera;
using namespace tessera::driver;

/// y = x + x over one [128, 8] FP32 tile, with a reference.
tsr::KernelInfo doubling() {
  tsr::KernelInfo k;
  k.name = "test_reference_run_doubling";
  k.signature = [](const tsr::Params &) {
    return std::vector<tsr::TensorSpec>{tsr::input("x", {128, 8}, tsr::f32), tsr::output("y", {128, 8}, tsr::f32)};
  };
  k.body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
    tsr::Tile t = tsr::load(x.tile(0, 0, {128, 8}));
    tsr::store(y.tile(0, 0, {128, 8}), t + t);
  });
  k.reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
    for (size_t i = 0; i < in[0].size(); ++i) out[0][i] = in[0][i] + in[0][i];
  };
  return k;
}

constexpr size_t kElements = 128 * 8;

std::vector<std::byte> bytesOf(const std::vector<float> &values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> floatsOf(const std::vector<std::byte> &bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

/// Polls `run.pending()` until it equals `what` or a minute passes; the last value seen.
std::string waitForPending(const ReferenceRun &run, const std::string &what) {
  const auto start = std::chrono::steady_clock::now();
  std::string seen = run.pending();
  while (seen != what && std::chrono::steady_clock::now() - start < std::chrono::minutes(1)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    seen = run.pending();
  }
  return seen;
}

// Compiled before start(): the thread says so while it waits for the inputs, then runs on what start() gives.
TEST(ReferenceRun, TheGoldenModelCompilesBeforeItsInputsAreGiven) {
  const tsr::KernelInfo k = doubling();
  auto graph = std::make_shared<const tsr::graph::KernelGraph>(tsr::trace(k, {}));
  ReferenceRun run(graph, k, {}, /*withGolden=*/true);
  EXPECT_EQ(waitForPending(run, "golden model (compiled; waiting for the inputs)"),
            "golden model (compiled; waiting for the inputs)");
  std::vector<float> x(kElements);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 300.5f;
  run.start(sim::HbmImage{bytesOf(x), std::vector<std::byte>(kElements * sizeof(float))}, {tsr::HostTensor(x)},
            {tsr::HostTensor(kElements)});
  ASSERT_TRUE(run.waitUntil(std::nullopt));
  ReferenceResults results = run.results();
  ASSERT_TRUE(results.golden.has_value()) << results.goldenUnavailable;
  const std::vector<float> y = floatsOf((*results.golden)[1]);
  for (size_t i = 0; i < kElements; ++i) {
    ASSERT_EQ(y[i], x[i] + x[i]) << i;
    ASSERT_EQ(results.expected[0][i], x[i] + x[i]) << i;
  }
  EXPECT_GT(results.goldenSeconds, 0.0);
}

// The compiler refused the kernel: the inputs never come, and giving the run up ends the golden model's thread
// (without it, this test would wait for ever).
TEST(ReferenceRun, ARunGivenUpBeforeItsInputsEndsTheGoldenModelsThread) {
  const tsr::KernelInfo k = doubling();
  auto graph = std::make_shared<const tsr::graph::KernelGraph>(tsr::trace(k, {}));
  for (const bool waitForCompilation : {false, true}) {
    ReferenceRun run(graph, k, {}, /*withGolden=*/true);
    if (waitForCompilation)
      EXPECT_EQ(waitForPending(run, "golden model (compiled; waiting for the inputs)"),
                "golden model (compiled; waiting for the inputs)");
  }
}

// Without the golden model only the reference runs, once started.
TEST(ReferenceRun, WithoutTheGoldenModelOnlyTheReferenceRuns) {
  const tsr::KernelInfo k = doubling();
  auto graph = std::make_shared<const tsr::graph::KernelGraph>(tsr::trace(k, {}));
  ReferenceRun run(graph, k, {}, /*withGolden=*/false);
  EXPECT_EQ(run.pending(), "");
  run.start(std::nullopt, {tsr::HostTensor(kElements, 2.0f)}, {tsr::HostTensor(kElements)});
  ReferenceResults results = run.results();
  EXPECT_FALSE(results.golden.has_value());
  EXPECT_EQ(results.expected[0][0], 4.0f);
  EXPECT_EQ(results.goldenSeconds, 0.0);
}

} // namespace
