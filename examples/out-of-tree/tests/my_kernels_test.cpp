// Tests of my kernels on simulated targets, with Tessera's GoogleTest helper and its C++ API.

#include "references.h"

#include "tessera/KernelTest.h"
#include "tessera/Tessera.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using namespace tessera::driver;

TEST(MySwiglu, MatchesItsReferenceOnANeuronCoreAndATpu) {
  EXPECT_TESSERA_MATCHES_REFERENCE("my_swiglu", "trn2");
  EXPECT_TESSERA_MATCHES_REFERENCE("my_swiglu", "tpu-v5e", {{"T", 128}, {"F", 384}});
}

TEST(MyLinearRelu, MatchesItsReferenceAtEveryBlockWidth) {
  for (int64_t bn : {128, 256, 512})
    EXPECT_TESSERA_MATCHES_REFERENCE("my_linear_relu", "trn2", {{"N", 1024}}, {{"bn", bn}});
}

TEST(MyLinearRelu, ABlockWidthThatDoesNotDivideNIsRefused) {
  const testing::AssertionResult r = matchesReference("my_linear_relu", "trn2", {{"N", 768}}, {{"bn", 512}});
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("bn must divide N"), std::string::npos) << r.message();
}

TEST(MyLinearRelu, GivenInputsGiveTheOutputsWorkedOutByHand) {
  // a_t = I, so c = relu(w); w's values i/8 - 3 are exact in bf16, so c is exactly max(w, 0).
  const int64_t M = 128, N = 512, K = 128;
  HostArray identity{{K, M}, std::vector<float>(K * M, 0.0f)}, w{{K, N}, std::vector<float>(K * N)};
  for (int64_t i = 0; i < K; ++i) identity.values[i * M + i] = 1;
  for (size_t i = 0; i < w.values.size(); ++i) w.values[i] = float(i % 48) / 8 - 3;
  RunRequest request{.kernel = "my_linear_relu", .target = "trn2", .shape = {{"M", M}, {"N", N}, {"K", K}}};
  request.inputs = {{"a_t", identity}, {"w", w}};
  const RunReport report = runKernel(request);
  HostArray expected = w;
  for (float &v : expected.values) v = std::max(v, 0.0f);
  EXPECT_TRUE(outputMatches(report, "c", expected));
  EXPECT_EQ(report.outputs.at("c").values, expected.values);
  EXPECT_TRUE(report.ok);
  EXPECT_GT(report.timeUs(), 0);
}

TEST(MyLinearRelu, WiderBlocksAreNotSlowerOnTrn2) {
  // The report's simulated time: one bn=512 matmul per k step instead of four of 128 columns.
  auto timeWith = [](int64_t bn) {
    RunRequest request{
        .kernel = "my_linear_relu", .target = "trn2", .shape = {{"N", 2048}}, .kernelParams = {{"bn", bn}}};
    request.timingOnly = true;
    return runKernel(request).timeUs();
  };
  EXPECT_LE(timeWith(512), timeWith(128));
}

} // namespace
