// End-to-end: each kernel of the library traced, compiled, simulated and checked against its reference, on
// every NeuronCore target and on TPU v5e and v6e at several shapes (softmax's narrow rows padded in VMEM; the
// row-wise kernels with a last block of fewer than 128 rows); and the matmul time checked against the bounds a
// reader can compute by hand from the target file. Kernel-specific checks: LibraryKernelsTest.cpp.

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/DmaCost.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace {

using tessera::driver::RunReport;
using tessera::driver::RunRequest;
using tessera::driver::runKernel;

struct Case {
  std::string kernel, target;
  std::map<std::string, int64_t> shape;
  std::map<std::string, int64_t> kernelParams = {};
  std::map<std::string, double> scalarParams = {};
};

std::string caseName(const testing::TestParamInfo<Case> &info) {
  std::string target = info.param.target;
  std::replace(target.begin(), target.end(), '-', '_'); // "tpu-v5e": test names take letters, digits and _
  std::string name = info.param.kernel + "_" + target;
  for (auto &[k, v] : info.param.shape) name += "_" + k + std::to_string(v);
  for (auto &[k, v] : info.param.kernelParams) name += "_" + k + std::to_string(v);
  for (auto &[k, v] : info.param.scalarParams) name += "_" + k + std::to_string(int64_t(v * 1000)) + "m";
  return name;
}

class KernelRuns : public testing::TestWithParam<Case> {};

TEST_P(KernelRuns, MatchReference) {
  const Case &c = GetParam();
  RunReport r = runKernel({.kernel = c.kernel,
                           .target = c.target,
                           .shape = c.shape,
                           .kernelParams = c.kernelParams,
                           .scalarParams = c.scalarParams,
                           .seed = 7});
  ASSERT_FALSE(r.checks.empty());
  for (const auto &check : r.checks)
    EXPECT_TRUE(check.ok) << check.name << ": max rel err " << check.maxRelErr << " > " << check.tolerance;
  EXPECT_TRUE(r.ok);
  EXPECT_GT(r.sim.timeNs, 0);
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (std::string target : {"trn1", "trn2", "trn3", "tpu-v5e", "tpu-v6e"}) {
    all.push_back({"add", target, {{"M", 128}, {"N", 128}}});
    all.push_back({"add", target, {{"M", 256}, {"N", 3072}}});
    all.push_back({"matmul", target, {{"M", 128}, {"N", 512}, {"K", 128}}});
    all.push_back({"matmul", target, {{"M", 256}, {"N", 256}, {"K", 384}}});
    all.push_back({"matmul", target, {{"M", 384}, {"N", 1024}, {"K", 256}}});
    all.push_back({"matmul_tiled", target, {{"M", 256}, {"N", 1024}, {"K", 384}}});
    all.push_back({"softmax", target, {{"R", 128}, {"C", 64}}});
    all.push_back({"softmax", target, {{"R", 384}, {"C", 1000}}});
    // Row-wise kernels at a multiple of 128 rows, with a last block of fewer rows (200 = 128 + 72), and with
    // fewer than 128 rows in all (no loop); columns not a multiple of 128 or 512.
    all.push_back({"rmsnorm", target, {{"R", 256}, {"C", 512}}});
    all.push_back({"rmsnorm", target, {{"R", 200}, {"C", 1000}}});
    all.push_back({"rmsnorm", target, {{"R", 64}, {"C", 96}}});
    all.push_back({"layernorm", target, {{"R", 256}, {"C", 1024}}});
    all.push_back({"layernorm", target, {{"R", 300}, {"C", 640}}});
    all.push_back({"layernorm", target, {{"R", 40}, {"C", 200}}});
    all.push_back({"gelu", target, {{"R", 128}, {"C", 1024}}});
    all.push_back({"gelu", target, {{"R", 200}, {"C", 4096}}});
    all.push_back({"gelu", target, {{"R", 72}, {"C", 1000}}});
    // mlp: one tile of each dimension; D of 384 (128-wide down-projection tiles); a token block of 384 (the
    // moving tiles of the gate and up projections) with one weight block of 384 hidden units.
    all.push_back({"mlp", target, {{"T", 128}, {"D", 128}, {"F", 128}}});
    all.push_back({"mlp", target, {{"T", 256}, {"D", 384}, {"F", 512}}});
    all.push_back({"mlp", target, {{"T", 384}, {"D", 256}, {"F", 384}}});
  }
  // The kernels of issue 7's second part, on trn1, trn2 and tpu-v5e (the default shapes run on tpu-v6e too:
  // LibraryKernelsTest's DefaultShape), at shapes that are not multiples of their tiles where they allow that.
  for (std::string target : {"trn1", "trn2", "tpu-v5e"}) {
    // transpose2d: one block; edges of 44 rows and 72 columns; DMA transposes with a 188-column edge.
    all.push_back({"transpose2d", target, {{"R", 128}, {"C", 128}}});
    all.push_back({"transpose2d", target, {{"R", 300}, {"C", 200}}});
    all.push_back({"transpose2d", target, {{"R", 640}, {"C", 700}}, {{"engine", 2}}});
    // matmul_fp8: tiles of every kind, and no dimension a multiple of its tile (a 44-row contraction tail).
    all.push_back({"matmul_fp8", target, {{"M", 128}, {"N", 512}, {"K", 256}}});
    all.push_back({"matmul_fp8", target, {{"M", 200}, {"N", 700}, {"K", 300}}, {{"bm", 128}}, {{"scale_a", 0.5}}});
    // attention_fwd: head dimension 128 and 64; causal; two sections of 512 keys (the online rescaling); two heads;
    // a softmax scale of its own.
    all.push_back({"attention_fwd", target, {{"H", 1}, {"S", 512}, {"D", 128}}});
    all.push_back({"attention_fwd", target, {{"H", 2}, {"S", 512}, {"D", 64}}, {}, {{"causal", 1.0}}});
    all.push_back({"attention_fwd", target, {{"H", 1}, {"S", 1024}, {"D", 64}}, {{"bk", 512}}, {{"causal", 1.0}}});
    // sections that are multiples of 512 but not of 1024 (groups of 512 keys): S=1536 at the default bk, and
    // bk=1536; 1024 keys in one section: 8 blocks of P, 3 of them transposed by DMA at the default te=5.
    all.push_back({"attention_fwd", target, {{"H", 1}, {"S", 1536}, {"D", 64}}});
    all.push_back({"attention_fwd", target, {{"H", 1}, {"S", 3072}, {"D", 64}}, {{"bk", 1536}}});
    all.push_back({"attention_fwd", target, {{"H", 1}, {"S", 1024}, {"D", 64}}});
    // causal over three sections: groups of query tiles that see one, two and three of them, two heads.
    all.push_back({"attention_fwd", target, {{"H", 2}, {"S", 1536}, {"D", 64}}, {{"bk", 512}}, {{"causal", 1.0}}});
    all.push_back({"attention_fwd", target, {{"H", 1}, {"S", 1024}, {"D", 128}}, {{"bk", 512}}, {{"scale", 0.05}}});
    // conv2d: 3x3 at stride 1 and 2, 1x1 at stride 1 and 2; channels beyond a multiple of 128, odd image sizes.
    all.push_back({"conv2d", target, {{"N", 1}, {"C", 64}, {"F", 64}, {"H", 16}, {"W", 16}}});
    // blocks of rows in a loop between the unrolled top and bottom ones, at stride 1 and 2.
    all.push_back({"conv2d", target, {{"N", 1}, {"C", 64}, {"F", 64}, {"H", 64}, {"W", 64}}});
    all.push_back({"conv2d", target, {{"N", 1}, {"C", 64}, {"F", 64}, {"H", 112}, {"W", 112}}, {{"stride", 2}}});
    all.push_back({"conv2d", target, {{"N", 2}, {"C", 200}, {"F", 136}, {"H", 17}, {"W", 23}}, {{"stride", 2}}});
    all.push_back({"conv2d", target, {{"N", 1}, {"C", 130}, {"F", 70}, {"H", 9}, {"W", 40}}, {{"k", 1}}});
    all.push_back({"conv2d", target, {{"N", 1}, {"C", 96}, {"F", 160}, {"H", 15}, {"W", 15}},
                   {{"k", 1}, {"stride", 2}}});
    // avgpool2d: 2x2, 3x3 (126-row blocks, a last block of 78 rows, 3 column blocks) and 4x4.
    all.push_back({"avgpool2d", target, {{"N", 1}, {"C", 8}, {"H", 16}, {"W", 16}}});
    all.push_back({"avgpool2d", target, {{"N", 2}, {"C", 5}, {"H", 33}, {"W", 300}}, {{"k", 3}}});
    all.push_back({"avgpool2d", target, {{"N", 1}, {"C", 3}, {"H", 8}, {"W", 260}}, {{"k", 4}}});
    // mamba_scan: one channel block and chunk; 200 channels (a block of 72), two chunks (512 + 188), 2 batches.
    all.push_back({"mamba_scan", target, {{"N", 1}, {"D", 128}, {"S", 16}, {"L", 256}}});
    all.push_back({"mamba_scan", target, {{"N", 2}, {"D", 200}, {"S", 8}, {"L", 700}}});
  }
  all.push_back({"matmul_fp8", "trn2", {{"M", 256}, {"N", 600}, {"K", 600}}, {{"rows", 2}}}); // double row, tail
  return all;
}

INSTANTIATE_TEST_SUITE_P(Library, KernelRuns, testing::ValuesIn(cases()), caseName);

/// The DMA lower bound of a program, from the target's figures (docs/memory.md): each queue runs its transfers one
/// at a time (streaming at the efficiency of its bytes per partition, then the fixed latency), each DMA engine
/// streams one transfer at a time, and together they never exceed the core's HBM share.
double dmaBoundNs(const tessera::isa::Program &program, const tessera::isa::Target &t) {
  std::map<uint32_t, double> queueNs, engineNs;
  double hbmNs = 0;
  for (const tessera::isa::Stream &s : program.streams) {
    if (s.engine != tessera::isa::Engine::Dma) continue;
    for (const tessera::isa::Instruction &inst : s.instructions) {
      const tessera::isa::DmaTransferCost cost = tessera::isa::dmaTransferCost(inst, t);
      queueNs[s.queue] += cost.streamingNs + t.dma.fixedLatencyNs;
      engineNs[tessera::isa::dmaEngineOf(s.queue, t)] += cost.streamingNs;
      hbmNs += cost.hbmNs;
    }
  }
  double bound = hbmNs;
  for (const auto &[queue, ns] : queueNs) bound = std::max(bound, ns);
  for (const auto &[engine, ns] : engineNs) bound = std::max(bound, ns);
  return bound;
}

// The issue's acceptance arithmetic, from the target's figures alone:
//   tensor bound = number of matmuls x max(N_moving, matmul_min_cycles) / tensor clock
//   DMA bound    = the busiest DMA queue, DMA engine or the HBM share (dmaBoundNs above)
// and the simulated time must lie in [max bound, 3 x max bound].
class MatmulTiming : public testing::TestWithParam<std::string> {};

TEST_P(MatmulTiming, WithinThreeTimesTheLargerBound) {
  const int64_t M = 1024, N = 1024, K = 1024, tm = 128, tn = 512, tk = 128;
  RunReport r = runKernel({.kernel = GetParam(), .target = "trn2", .shape = {{"M", M}, {"N", N}, {"K", K}}});
  ASSERT_TRUE(r.ok);
  const tessera::isa::Target &t = r.target;

  const int64_t matmuls = (M / tm) * (N / tn) * (K / tk);
  double tensorBoundNs = double(matmuls) * std::max<int64_t>(tn, t.cost.matmulMinCycles) / t.tensor.clockGhz;
  const int64_t bf16 = 2, stores = M * N * bf16;
  // matmul_tiled: every (m, n, k) step loads a [tk, tm] and a [tk, tn] tile. matmul: B crosses HBM once, A once
  // per 512-wide column block of B.
  int64_t hbmBytes = GetParam() == "matmul_tiled" ? matmuls * (tk * tm + tk * tn) * bf16 + stores
                                                  : (K * N + (N / tn) * K * M) * bf16 + stores;
  EXPECT_EQ(r.sim.hbmBytes, static_cast<uint64_t>(hbmBytes));
  const double dmaNs = dmaBoundNs(*r.program, t);
  // Never below HBM bytes at the aggregate peak: the efficiency curve and fixed costs only add.
  const double peakDmaNs = double(hbmBytes) / t.dma.bytesPerNs();
  EXPECT_GE(dmaNs, peakDmaNs);
  double bound = std::max(tensorBoundNs, dmaNs);

  EXPECT_GE(r.sim.timeNs, bound);
  EXPECT_LE(r.sim.timeNs, 3 * bound);
  EXPECT_DOUBLE_EQ(r.sim.flops, 2.0 * M * N * K);
  // Busy shares tell the same story: the tensor engine was busy for its bound plus one LoadStationary (its
  // [tk, tm] stationary's columns at load_stationary_factor per cycle) for each matmul that no multiply hid: the
  // first, and those that waited with the engine idle (each instruction's time is rounded to the simulator's 1 ps
  // resolution).
  const double resolutionNs = 1e-3 * matmuls;
  const double loadNs = double((tm + t.cost.loadStationaryFactor - 1) / t.cost.loadStationaryFactor) /
                        t.tensor.clockGhz;
  auto busy = r.busyPercent();
  const double tensorBusyNs = busy.at("tensor") / 100.0 * r.sim.timeNs;
  const double exposedLoads = (tensorBusyNs - tensorBoundNs) / loadNs;
  EXPECT_NEAR(exposedLoads, std::round(exposedLoads), resolutionNs / loadNs);
  EXPECT_GE(std::round(exposedLoads), 1.0);
  EXPECT_LE(std::round(exposedLoads), double(matmuls));
  EXPECT_NEAR(busy.at("dma") / 100.0 * r.sim.timeNs, peakDmaNs, 1e-9 * peakDmaNs); // the report's: at peak
  EXPECT_NEAR(r.tensorBoundUs() * 1000.0, tensorBusyNs, resolutionNs);
}

INSTANTIATE_TEST_SUITE_P(Kernels, MatmulTiming, testing::Values("matmul", "matmul_tiled"));

// add at 1024 x 4096 on trn2 is bound by its bytes: [128, 1024] FP32 tiles, 4 KiB per partition, stream longer than
// their fixed cost (docs/memory.md). Overlapping iterations keeps the bottleneck busy (within 5% of the DMA bound)
// and beats the same kernel with one copy of each tile (no overlap), which leaves DMA idle while the adds run.
// Timing only: values are checked above.
TEST(MatmulPipelining, BottleneckBusyAndFasterThanSerial) {
  RunRequest request{.kernel = "add", .target = "trn2", .shape = {{"M", 1024}, {"N", 4096}}, .timingOnly = true};
  RunReport pipelined = runKernel(request);
  request.compile.loopBuffers = 1;
  RunReport serial = runKernel(request);
  const double dmaNs = dmaBoundNs(*pipelined.program, pipelined.target);
  EXPECT_LT(pipelined.sim.timeNs, 1.05 * dmaNs);
  EXPECT_LT(pipelined.sim.timeNs, 0.8 * serial.sim.timeNs);
}

// Overlapping iterations (rotating tile copies) must pay off: one copy serialises a step's loads and matmuls
// (matmul_blocked: a step loads two [128, 256] rows of a_t and of b, 4 of each, then runs 16 matmuls).
TEST(MatmulPipelining, RotatingBuffersBeatOneCopy) {
  RunRequest request{.kernel = "matmul_blocked", .target = "trn2", .shape = {{"M", 1024}, {"N", 2048}, {"K", 1024}},
                     .kernelParams = {{"bm", 512}, {"bn", 1024}, {"bk", 256}}};
  request.compile.loopBuffers = 1;
  RunReport serial = runKernel(request);
  request.compile.loopBuffers = 4;
  RunReport pipelined = runKernel(request);
  ASSERT_TRUE(serial.ok && pipelined.ok);
  EXPECT_LT(pipelined.sim.timeNs, 0.8 * serial.sim.timeNs);
}

// A kernel whose output disagrees with its reference must be reported as not ok.
const tsr::Registration wrongReference{{
    .name = "test_wrong_reference",
    .summary = "copies its input, but its reference doubles it",
    .params = {{"N", 128}},
    .signature = [](const tsr::Params &p) {
      return std::vector<tsr::TensorSpec>{tsr::input("x", {128, p["N"]}, tsr::f32),
                                          tsr::output("y", {128, p["N"]}, tsr::f32)};
    },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      tsr::store(y.tile(0, 0, {128, y.dim(1)}), tsr::load(x.tile(0, 0, {128, x.dim(1)})));
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      for (size_t i = 0; i < in[0].size(); ++i) out[0][i] = 2 * in[0][i];
    },
}};

TEST(Verdict, MismatchIsReported) {
  RunReport r = runKernel({.kernel = "test_wrong_reference", .target = "trn2"});
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_GT(r.checks[0].maxRelErr, r.checks[0].tolerance);
}

TEST(Verdict, SameSeedSameAnswer) {
  RunRequest request{.kernel = "softmax", .target = "trn1", .shape = {{"R", 128}, {"C", 256}}, .seed = 3};
  RunReport a = runKernel(request), b = runKernel(request);
  EXPECT_EQ(a.sim.timeNs, b.sim.timeNs);
  EXPECT_EQ(a.checks[0].maxAbsErr, b.checks[0].maxAbsErr);
}

} // namespace

namespace {

// --timing-only computes no values and checks nothing, but its time is the full run's time.
TEST(TimingOnly, SameTimeAsTheFullRun) {
  RunRequest request{.kernel = "matmul", .target = "trn1", .shape = {{"M", 256}, {"N", 1024}, {"K", 256}}};
  RunReport full = runKernel(request);
  request.timingOnly = true;
  RunReport timing = runKernel(request);
  EXPECT_TRUE(timing.ok);
  EXPECT_TRUE(timing.checks.empty());
  EXPECT_EQ(timing.sim.timeNs, full.sim.timeNs);
  EXPECT_EQ(timing.sim.hbmBytes, full.sim.hbmBytes);
}

} // namespace

namespace {

// A kernel whose tiles do not fit in SBUF fails to compile, naming the tile and its line; the same kernel with
// smaller tiles compiles. Three [128, F] f32 tiles live at once, each with 4 rotating copies in the loop.
const tsr::Registration bigTiles{{
    .name = "test_big_tiles",
    .summary = "adds two [128, F] tiles; F is the tile width",
    .params = {{"F", 512}},
    .signature = [](const tsr::Params &p) {
      return std::vector<tsr::TensorSpec>{tsr::input("a", {256, p["F"]}, tsr::f32),
                                          tsr::input("b", {256, p["F"]}, tsr::f32),
                                          tsr::output("c", {256, p["F"]}, tsr::f32)};
    },
    .body = tsr::body([](tsr::Hbm a, tsr::Hbm b, tsr::Hbm c) {
      const int64_t f = a.dim(1);
      for (auto i : tsr::affine_range(2)) {
        tsr::Tile x = tsr::load(a.tile(i, 0, {128, f}));
        tsr::Tile y = tsr::load(b.tile(i, 0, {128, f}));
        tsr::store(c.tile(i, 0, {128, f}), x + y);
      }
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      for (size_t i = 0; i < in[0].size(); ++i) out[0][i] = in[0][i] + in[1][i];
    },
}};

TEST(Allocation, TooMuchSbufNamesTheTile) {
  // 3 tiles x 20000 f32 = 240000 bytes per partition: more than trn2's 212984, even with one copy each.
  try {
    runKernel({.kernel = "test_big_tiles", .target = "trn2", .shape = {{"F", 20000}}});
    FAIL() << "expected an allocation error";
  } catch (const tessera::Error &e) {
    EXPECT_NE(e.message().find("tile 't2'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("needs 80000 bytes per partition of SBUF but only 52984 of 212984 are free here on "
                               "trn2. Live in SBUF here (2 tiles): 't0' [128, 20000] f32 at RunKernelTest.cpp:"),
              std::string::npos)
        << e.message();
    EXPECT_EQ(e.hint(), "SBUF on trn2 has 212984 bytes per partition for one kernel's tiles: use smaller tiles, fewer "
                        "tiles live at once (a tile made in a loop body ends with it), or fewer rotating copies of "
                        "loop tiles (--loop-buffers)");
    EXPECT_NE(e.where().file.find("RunKernelTest.cpp"), std::string::npos) << e.what();
  }
  // 3 x 16000 f32 = 192000 bytes fits with one copy each (the allocator falls back from 4 copies).
  RunReport fits = runKernel({.kernel = "test_big_tiles", .target = "trn2", .shape = {{"F", 16000}}});
  EXPECT_TRUE(fits.ok);
  EXPECT_EQ(fits.sbufPeakBytes, 192000);
  RunReport small = runKernel({.kernel = "test_big_tiles", .target = "trn2", .shape = {{"F", 512}}});
  EXPECT_TRUE(small.ok);
  EXPECT_EQ(small.sbufPeakBytes, 3 * 4 * 512 * 4);
}

// `n` [128, 512] f32 accumulators live at once: PSUM (8 banks of 2 KiB per partition on trn2) holds eight.
constexpr int kAccumulatorLine = __LINE__ + 12;
const tsr::Registration psumFull{{
    .name = "test_psum_full",
    .summary = "n matmul accumulators live at once (n = 9 is one too many for PSUM)",
    .kernelParams = {{"n", 8}},
    .signature = [](const tsr::Params &) {
      return std::vector<tsr::TensorSpec>{tsr::input("a", {128, 128}, tsr::bf16),
                                          tsr::input("b", {128, 512}, tsr::bf16),
                                          tsr::output("c", {128, 512}, tsr::f32)};
    },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm a, tsr::Hbm b, tsr::Hbm c) {
      std::vector<tsr::Tile> acc;
      for (int64_t i = 0; i < p["n"]; ++i) acc.push_back(tsr::psum<tsr::f32>({128, 512}));
      for (tsr::Tile &t : acc)
        t += tsr::matmul(tsr::load(a.tile(0, 0, {128, 128})), tsr::load(b.tile(0, 0, {128, 512})));
      tsr::Tile sum = acc[0] + acc[1];
      tsr::store(c.tile(0, 0, {128, 512}), sum);
    }),
}};

TEST(Allocation, PsumExhaustionListsTheLiveTilesByLine) {
  try {
    runKernel({.kernel = "test_psum_full", .target = "trn2", .kernelParams = {{"n", 9}}});
    FAIL() << "expected an allocation error";
  } catch (const tessera::Error &e) {
    // In the kernel's terms (issue 21): its line, its tiles by line, shape and dtype, PSUM counted in banks, and a
    // hint with trn2's numbers from its target file.
    EXPECT_EQ(e.message(),
              "tile 't8' [128, 512] f32 needs 1 bank (2048 bytes per partition) of PSUM but all 8 banks are taken "
              "here on trn2. Live in PSUM here (8 tiles): 8 x [128, 512] f32 at RunKernelTest.cpp:" +
                  std::to_string(kAccumulatorLine) + " (1 bank each)");
    EXPECT_EQ(e.hint(),
              "PSUM on trn2 has 8 banks of 2 KiB per partition, and each PSUM tile takes whole banks: keep fewer "
              "PSUM tiles live at once (reuse one accumulator, acc += ..., across a loop rather than one per step; "
              "copy a finished result to SBUF inside the loop that made it, so that its PSUM tile ends with the loop "
              "body), use smaller PSUM tiles, or fewer rotating copies of loop tiles (--loop-buffers)");
    EXPECT_EQ(e.where().line, uint32_t(kAccumulatorLine)) << e.what();
    EXPECT_TRUE(e.where().file.ends_with("RunKernelTest.cpp")) << e.what();
  }
  EXPECT_TRUE(runKernel({.kernel = "test_psum_full", .target = "trn2"}).ok) << "eight fit";
}

// Tiles that die early (allocation by liveness): each step loads a tile, the Scalar engine takes its exp, a DMA
// stores that. Three straight-line steps (a C++ loop, traced step by step) of [128, 12288] f32 tiles do not fit
// SBUF when each tile keeps its bytes to the end of the kernel (6 x 48 KiB), so the allocator goes by liveness:
// each step takes the bytes of the step before, and then the steps of a static chunk loop inside an affine_range
// loop share two tiles' places. A step's load overwrites bytes the previous step's exp may still be reading: it
// must wait for that exp (write after read), or the outputs would be wrong (or the race check would stop the run).
const tsr::Registration reuseAfterLastUse{{
    .name = "test_reuse_after_last_use",
    .summary = "steps whose tiles die before the next step's: the next step reuses their bytes",
    .signature = [](const tsr::Params &) {
      return std::vector<tsr::TensorSpec>{tsr::input("a", {256, 3 * 12288}, tsr::f32),
                                          tsr::output("straight", {128, 3 * 12288}, tsr::f32),
                                          tsr::output("chunked", {256, 2048}, tsr::f32)};
    },
    .body = tsr::body([](tsr::Hbm a, tsr::Hbm straight, tsr::Hbm chunked) {
      for (int64_t step = 0; step < 3; ++step) {
        tsr::Tile x = tsr::load(a.tile(0, step, {128, 12288}));
        tsr::store(straight.tile(0, step, {128, 12288}), tsr::exp(x));
      }
      for (auto row : tsr::affine_range(2))
        for (int64_t chunk = 0; chunk < 4; ++chunk) { // static: unrolled while tracing, one loop body
          tsr::Tile x = tsr::load(a.tile(row, chunk, {128, 512}));
          tsr::store(chunked.tile(row, chunk, {128, 512}), tsr::exp(x));
        }
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
      for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = std::exp(in[0][i]);
      for (size_t row = 0; row < 256; ++row)
        for (size_t col = 0; col < 2048; ++col) out[1][row * 2048 + col] = std::exp(in[0][row * 3 * 12288 + col]);
    },
}};

TEST(Allocation, ReusedBytesKeepTheNumerics) {
  for (const char *target : {"trn1", "trn2"}) {
    RunReport r = runKernel({.kernel = "test_reuse_after_last_use", .target = target, .seed = 7});
    ASSERT_EQ(r.checks.size(), 2u) << target;
    for (const auto &check : r.checks)
      EXPECT_TRUE(check.ok) << target << " " << check.name << ": max rel err " << check.maxRelErr;
    EXPECT_TRUE(r.ok) << target;
    // By liveness the straight-line steps share two tiles' bytes (2 x 49152), which the loop then takes; its
    // chunks share two tiles' places, 4 copies each of 2048 bytes (by scope: 8 tiles' places).
    EXPECT_EQ(r.sbufPeakBytes, 2 * 49152) << target;
  }
}

} // namespace

namespace {

// `sim_seconds` is the simulation's own host time (not a speed check: only that it is measured and reported, and
// that it is part of the whole run's time), beside the instructions retired.
TEST(RunReportJson, HasSimSecondsAndInstructions) {
  const auto start = std::chrono::steady_clock::now();
  tessera::driver::RunReport r = tessera::driver::runKernel({.kernel = "add", .target = "trn2"});
  const double wholeRun = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const nlohmann::json j = tessera::driver::toJson(r);
  ASSERT_TRUE(j.contains("sim_seconds"));
  EXPECT_GT(j["sim_seconds"].get<double>(), 0.0);
  EXPECT_LE(j["sim_seconds"].get<double>(), wholeRun);
  EXPECT_EQ(j["instructions"].get<size_t>(), r.sim.instructions);
}

} // namespace
