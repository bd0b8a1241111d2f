// The matmul optimisation ladder of NKI's matrix-multiplication tutorial (docs/matmul-ladder.md): matmul_tiled,
// matmul_hoisted, matmul_blocked_free, matmul_blocked. Each kernel matches its reference and the golden model at
// small shapes and several block sizes, on trn1, trn2 and tpu-v5e; each moves exactly the HBM bytes its loop
// structure implies; and at the tutorial's size on trn1 (M=4096, K=8192, N=8192 bf16, timing only) each is
// faster than the one before, the last above 70% of the tensor engine's peak.

#include "tessera/Driver.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace {

using tessera::driver::RunReport;
using tessera::driver::runKernel;

using Values = std::map<std::string, int64_t>;

struct Case {
  std::string kernel, target;
  Values shape, params;
};

std::string caseName(const testing::TestParamInfo<Case> &info) {
  std::string target = info.param.target;
  std::replace(target.begin(), target.end(), '-', '_'); // "tpu-v5e": test names take letters, digits and _
  std::string name = info.param.kernel + "_" + target;
  for (auto &[k, v] : info.param.shape) name += "_" + k + std::to_string(v);
  for (auto &[k, v] : info.param.params) name += "_" + k + std::to_string(v);
  return name;
}

TEST(MatmulLadder, TheBlockedKernelsDeclareTheirBlockSizes) {
  const tsr::KernelInfo *blocked = tsr::Registry::instance().find("matmul_blocked");
  ASSERT_NE(blocked, nullptr);
  EXPECT_EQ(blocked->describeKernelParams(), "bm=2048, bn=1024, bk=1024, bits=16");
  const tsr::KernelInfo *free = tsr::Registry::instance().find("matmul_blocked_free");
  ASSERT_NE(free, nullptr);
  EXPECT_EQ(free->describeKernelParams(), "bm=512, bn=512, loads=1, bits=16");
  EXPECT_EQ(tsr::Registry::instance().find("matmul_hoisted")->describeKernelParams(), "bits=16");
  EXPECT_EQ(tsr::Registry::instance().find("matmul_tiled")->describeKernelParams(), "bits=16");
}

class LadderNumerics : public testing::TestWithParam<Case> {};

TEST_P(LadderNumerics, MatchTheReferenceAndTheGoldenModel) {
  const Case &c = GetParam();
  RunReport r = runKernel({.kernel = c.kernel, .target = c.target, .shape = c.shape, .kernelParams = c.params,
                           .seed = 11});
  EXPECT_EQ(r.reference, "golden+reference");
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].ok) << "max rel err " << r.checks[0].maxRelErr << " > " << r.checks[0].tolerance;
  EXPECT_TRUE(r.ok);
}

std::vector<Case> numericCases() {
  std::vector<Case> all;
  for (std::string t : {"trn1", "trn2", "tpu-v5e"}) {
    all.push_back({"matmul_hoisted", t, {{"M", 256}, {"N", 1024}, {"K", 384}}, {}});
    all.push_back({"matmul_hoisted", t, {{"M", 128}, {"N", 256}, {"K", 128}}, {}});
    // Several blocks along M and N, more than one tile per block, and blocks the size of the matrix.
    all.push_back({"matmul_blocked_free", t, {{"M", 512}, {"N", 2048}, {"K", 256}}, {{"bm", 256}, {"bn", 1024}}});
    all.push_back({"matmul_blocked_free", t, {{"M", 384}, {"N", 1024}, {"K", 384}}, {{"bm", 128}, {"bn", 512}}});
    all.push_back({"matmul_blocked_free", t, {{"M", 128}, {"N", 256}, {"K", 128}}, {}});
    // Several steps along K as well, accumulated in SBUF.
    all.push_back({"matmul_blocked", t, {{"M", 512}, {"N", 2048}, {"K", 512}}, {{"bm", 256}, {"bn", 1024}, {"bk", 256}}});
    all.push_back({"matmul_blocked", t, {{"M", 256}, {"N", 1024}, {"K", 384}}, {{"bm", 128}, {"bn", 512}, {"bk", 128}}});
    all.push_back({"matmul_blocked", t, {{"M", 128}, {"N", 256}, {"K", 128}}, {}});
    // Pallas-style narrow blocks: bn of 128 or 256 columns takes moving tiles of that width.
    all.push_back({"matmul_blocked", t, {{"M", 256}, {"N", 1024}, {"K", 256}}, {{"bm", 128}, {"bn", 128}, {"bk", 128}}});
    all.push_back({"matmul_blocked", t, {{"M", 256}, {"N", 1024}, {"K", 256}}, {{"bm", 256}, {"bn", 256}, {"bk", 128}}});
    // NKI's tutorial loads: a DMA per [128, 128] and [128, 512] tile, side by side in the block's tiles.
    all.push_back({"matmul_blocked_free", t, {{"M", 512}, {"N", 2048}, {"K", 256}},
                   {{"bm", 256}, {"bn", 1024}, {"loads", 2}}});
  }
  // FP32 in and out (NKI's kernel-optimization guide on trn2), each rung once.
  for (std::string t : {"trn1", "trn2"}) {
    all.push_back({"matmul_tiled", t, {{"M", 256}, {"N", 1024}, {"K", 256}}, {{"bits", 32}}});
    all.push_back({"matmul_hoisted", t, {{"M", 256}, {"N", 1024}, {"K", 256}}, {{"bits", 32}}});
    all.push_back({"matmul_blocked_free", t, {{"M", 256}, {"N", 1024}, {"K", 256}},
                   {{"bits", 32}, {"bm", 128}, {"bn", 512}, {"loads", 2}}});
    all.push_back({"matmul_blocked", t, {{"M", 256}, {"N", 1024}, {"K", 256}},
                   {{"bits", 32}, {"bm", 128}, {"bn", 512}, {"bk", 128}}});
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Ladder, LadderNumerics, testing::ValuesIn(numericCases()), caseName);

// The HBM bytes each rung moves, from its loop structure (bf16, 2 bytes an element; C is written once):
//   matmul_tiled         every (m, n, k) step loads a 128 x 128 tile of A and a 128 x 512 tile of B
//   matmul_hoisted       A once; B once per 128-row block of the output
//   matmul_blocked_free  A once; B once per bm-row block
//   matmul_blocked       A once per bn-column block; B once per bm-row block
int64_t expectedHbmBytes(const std::string &kernel, int64_t M, int64_t N, int64_t K, int64_t bm, int64_t bn) {
  const int64_t a = M * K * 2, b = K * N * 2, c = M * N * 2;
  if (kernel == "matmul_tiled") return (M / 128) * (N / 512) * (K / 128) * (128 * 128 + 128 * 512) * 2 + c;
  if (kernel == "matmul_hoisted") return a + (M / 128) * b + c;
  if (kernel == "matmul_blocked_free") return a + (M / bm) * b + c;
  return (N / bn) * a + (M / bm) * b + c;
}

TEST(MatmulLadder, EachStepMovesTheBytesItsLoopsImply) {
  const int64_t M = 512, N = 2048, K = 512;
  const Values shape{{"M", M}, {"N", N}, {"K", K}};
  struct Step {
    std::string kernel;
    Values params;
    int64_t bm, bn;
  };
  for (const Step &s : std::vector<Step>{{"matmul_tiled", {}, 0, 0},
                                         {"matmul_hoisted", {}, 0, 0},
                                         {"matmul_blocked_free", {{"bm", 256}, {"bn", 1024}}, 256, 1024},
                                         {"matmul_blocked", {{"bm", 256}, {"bn", 1024}, {"bk", 256}}, 256, 1024}}) {
    RunReport r = runKernel(
        {.kernel = s.kernel, .target = "trn1", .shape = shape, .kernelParams = s.params, .timingOnly = true});
    EXPECT_EQ(r.sim.hbmBytes, static_cast<uint64_t>(expectedHbmBytes(s.kernel, M, N, K, s.bm, s.bn))) << s.kernel;
  }
}

// The tutorial's benchmark size, timing only (no values: a few seconds for all four). The full report of each:
//   tessera run <kernel> --target trn1 --shape M=4096,N=8192,K=8192 --timing-only
TEST(MatmulLadder, OnTrn1AtTheTutorialsSizeEachStepIsFasterAndTheLastAbove70PercentOfPeak) {
  const int64_t M = 4096, N = 8192, K = 8192;
  const double matmulFlops = 2.0 * double(M) * double(N) * double(K);
  double previousUs = 0;
  std::string previous;
  for (std::string kernel : {"matmul_tiled", "matmul_hoisted", "matmul_blocked_free", "matmul_blocked"}) {
    auto start = std::chrono::steady_clock::now();
    RunReport r = runKernel(
        {.kernel = kernel, .target = "trn1", .shape = {{"M", M}, {"N", N}, {"K", K}}, .timingOnly = true});
    const double wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double peakPercent = 100.0 * matmulFlops / r.sim.timeNs / 1000.0 / r.target.tensor.peakBf16Tflops;
    testing::Test::RecordProperty(kernel + "_time_us", std::to_string(r.timeUs()));
    testing::Test::RecordProperty(kernel + "_peak_percent", std::to_string(peakPercent));
    testing::Test::RecordProperty(kernel + "_wall_s", std::to_string(wallS));
    // The default blocks: bm=512, bn=512 for matmul_blocked_free; bm=2048, bn=1024 for matmul_blocked.
    const bool blocked = kernel == "matmul_blocked";
    EXPECT_EQ(r.sim.hbmBytes, static_cast<uint64_t>(expectedHbmBytes(kernel, M, N, K, blocked ? 2048 : 512,
                                                                     blocked ? 1024 : 512)))
        << kernel;
    if (!previous.empty()) EXPECT_LT(r.timeUs(), previousUs) << kernel << " is not faster than " << previous;
    if (kernel == "matmul_blocked") EXPECT_GT(peakPercent, 70.0) << kernel << " at " << r.timeUs() << " us";
    previous = kernel;
    previousUs = r.timeUs();
  }
}

} // namespace
