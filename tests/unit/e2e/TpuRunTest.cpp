// The library's kernels on a TPU TensorCore, end to end: what the report says about the machine (MXU, VPU,
// scalar core, DMA queues, VMEM), the compiler's notes, the bounds a reader can check by hand from the target
// file, the roofline of Pallas-style block sizes, and the clear refusal of a kernel written with NeuronCore
// instructions. Numerics on every kernel are in RunKernelTest and MatmulLadderTest.

#include "tessera/Driver.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/Cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace {

using namespace tessera;
using driver::RunReport;
using driver::RunRequest;
using driver::runKernel;

// y = 3 everywhere, through a tile filled at the language level (tsr::fill), which runs on every target.
const tsr::Registration fillKernel{{
    .name = "test_fill",
    .summary = "tsr::fill of a loaded tile, stored",
    .params = {{"P", 128}, {"N", 200}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["N"]}, tsr::f32),
                                              tsr::output("y", {p["P"], p["N"]}, tsr::bf16)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      tsr::Tile t = tsr::load(x.tile(0, 0, {x.dim(0), x.dim(1)}));
      tsr::fill(t.slice(0, x.dim(1) / 2), 3.0f);
      tsr::store(y.tile(0, 0, {x.dim(0), x.dim(1)}), tsr::copy<tsr::bf16>(t));
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r)
            for (int64_t c = 0; c < N; ++c) out[0][r * N + c] = c < N / 2 ? 3.0f : in[0][r * N + c];
        },
}};

TEST(TpuRun, FillRunsOnBothFamilies) {
  for (const char *target : {"trn2", "tpu-v5e"}) {
    RunReport r = runKernel({.kernel = "test_fill", .target = target, .seed = 3});
    EXPECT_TRUE(r.ok) << target;
    EXPECT_EQ(r.reference, "golden+reference") << target;
  }
}

TEST(TpuRun, ReportsTheTensorCoresUnitsAndVmem) {
  RunReport r = runKernel({.kernel = "matmul", .target = "tpu-v5e", .shape = {{"M", 256}, {"N", 512}, {"K", 256}}});
  ASSERT_TRUE(r.ok);
  std::vector<std::string> names;
  for (const sim::StreamStats &s : r.sim.streams) names.push_back(s.name);
  for (const char *unit : {"mxu", "vpu", "scalar", "dma0"})
    EXPECT_NE(std::find(names.begin(), names.end(), unit), names.end()) << unit;
  for (const char *neuronCore : {"tensor", "vector", "gpsimd"})
    EXPECT_EQ(std::find(names.begin(), names.end(), neuronCore), names.end()) << neuronCore;
  const auto busy = r.busyPercent();
  EXPECT_GT(busy.at("mxu"), 0);
  EXPECT_GT(busy.at("scalar"), 0); // the grid steps' bookkeeping
  EXPECT_GT(r.tensorBoundUs(), 0);  // the MXUs' busy time
  EXPECT_GT(r.vmemPeakBytes, 0);
  EXPECT_LE(r.vmemPeakBytes, static_cast<int64_t>(r.target.tpu.vmemBytes));
  EXPECT_EQ(r.sbufPeakBytes, -1);
}

// softmax's [128, 1] row statistics and C = 1000 columns are not whole (8, 128) tiles: VMEM pads them, and the
// compiler says so at the kernel's line; the values are right all the same.
TEST(TpuRun, PaddedTilesAreNotedAtTheKernelLine) {
  RunReport r = runKernel({.kernel = "softmax", .target = "tpu-v5e", .shape = {{"R", 128}, {"C", 1000}}});
  EXPECT_TRUE(r.ok);
  const bool paddedRow = std::any_of(r.notes.begin(), r.notes.end(), [](const std::string &n) {
    return n.find("softmax.cpp:") != std::string::npos && n.find("[128, 1000] f32 is padded to [128, 1024]") !=
                                                                 std::string::npos;
  });
  EXPECT_TRUE(paddedRow) << (r.notes.empty() ? "no notes" : r.notes.front());
}

// A kernel written with tsr::isa calls (NeuronCore engine instructions) is refused on a TPU at its first such call,
// as bad input (exit 2: the kernel's source must change), which `tessera compare` shows as that target's row.
TEST(TpuRun, NeuronCoreInstructionsAreRefusedAtTheKernelLine) {
  try {
    runKernel({.kernel = "test_isa_calls", .target = "tpu-v5e"});
    FAIL() << "expected an error";
  } catch (const driver::CompileRefused &e) {
    EXPECT_NE(e.message().find("tsr::isa::tensor_copy is a NeuronCore instruction; target tpu-v5e is a TPU"),
              std::string::npos)
        << e.message();
    EXPECT_NE(e.where().file.find("IsaCallTest.cpp"), std::string::npos) << e.where().str();
  }
}

// The acceptance arithmetic, from the target's figures: matmul at 1024^3 bf16 on v5e lies between the largest of
// its three bounds (MXU: its FLOPs at the per-core peak; DMA: its HBM bytes at the core's share of the bandwidth;
// copies: the most copies one DMA queue runs, one after another, each at least the fixed cost) and 1.5 times it.
// Here the copies bind: the 128 [128, 128] tiles of A are one statement's copies on one queue (docs/memory.md).
TEST(TpuRun, MatmulWithinItsBounds) {
  RunReport r = runKernel({.kernel = "matmul", .target = "tpu-v5e", .shape = {{"M", 1024}, {"N", 1024}, {"K", 1024}}});
  ASSERT_TRUE(r.ok);
  const double computeNs = double(r.sim.flops) / (r.target.tensor.peakBf16Tflops * 1e3);
  const double memoryNs = double(r.sim.hbmBytes) / r.target.dma.bytesPerNs();
  size_t copies = 0;
  for (const isa::Stream &s : r.program->streams)
    if (s.engine == isa::Engine::Dma) copies = std::max(copies, s.instructions.size());
  const double copiesNs = double(copies) * r.target.dma.fixedLatencyNs;
  const double bound = std::max({computeNs, memoryNs, copiesNs});
  EXPECT_DOUBLE_EQ(r.sim.flops, 2.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(copies, 128u);
  EXPECT_GE(r.sim.timeNs, bound);
  EXPECT_LE(r.sim.timeNs, 1.5 * bound);
}

// v6e's MXUs are 256x256 (as modelled): the DSL's matmul tiles contract over 128 rows (a NeuronCore's partitions),
// half of an MXU's rows, and their 128 LHS rows stream in half the time a 256-row weight load takes, so they reach
// at most a quarter of the peak: the MXU instructions' cycles are four times the FLOPs at peak (docs/targets.md),
// and the MXUs' busy time (with the pipeline fills after idling) at least that.
TEST(TpuRun, NeuronCoreSizedTilesFillAQuarterOfV6eMxus) {
  RunReport r = runKernel({.kernel = "matmul", .target = "tpu-v6e", .shape = {{"M", 1024}, {"N", 1024}, {"K", 1024}}});
  ASSERT_TRUE(r.ok);
  const double computeNs = double(r.sim.flops) / (r.target.tensor.peakBf16Tflops * 1e3);
  double matmulNs = 0;
  for (const isa::Stream &s : r.program->streams)
    if (s.engine == isa::Engine::Mxu)
      for (const isa::Instruction &inst : s.instructions)
        matmulNs += double(isa::engineCycles(inst, s.engine, r.target)) / r.target.tensor.clockGhz;
  EXPECT_NEAR(matmulNs, 4 * computeNs, 0.01 * computeNs);
  EXPECT_GE(r.tensorBoundUs() * 1e3, matmulNs);
}

/// matmul_blocked on tpu-v5e at M = N = K = 4096 with Pallas-style blocks, timing only.
RunReport blockedMatmul(int64_t bm, int64_t bk, int64_t bn) {
  return runKernel({.kernel = "matmul_blocked",
                    .target = "tpu-v5e",
                    .shape = {{"M", 4096}, {"N", 4096}, {"K", 4096}},
                    .kernelParams = {{"bm", bm}, {"bn", bn}, {"bk", bk}},
                    .timingOnly = true});
}

double percentOfPeak(const RunReport &r) { return 100.0 * r.achievedTflops() / r.target.tensor.peakBf16Tflops; }

// The roofline of a blocked matmul from HBM (docs/targets.md has the whole sweep at 8192^3): each grid step moves
// (bm + bn) x bk bf16 elements for 2 bm bn bk FLOPs, an arithmetic intensity of bm bn / (bm + bn) FLOP/byte.
// 128/128/128 is far below peak: each step's work is smaller than its copies' fixed cost (the Pallas matmul guide
// measures 6% on v5e). 256/2048/1024 (205 FLOP/byte) is memory-bound: HBM streams all the time and the MXUs reach
// the intensity over v5e's ridge point (197 TFLOPS / 819 GB/s = 240 FLOP/byte) of their peak. 512/1024/1024
// (341 FLOP/byte, past the ridge) comes close to peak.
TEST(TpuRun, BlockedMatmulRoofline) {
  EXPECT_LT(percentOfPeak(blockedMatmul(128, 128, 128)), 10.0);

  const RunReport memoryBound = blockedMatmul(256, 2048, 1024);
  const double ridge = memoryBound.target.tensor.peakBf16Tflops * 1e3 / memoryBound.target.dma.bytesPerNs();
  EXPECT_NEAR(ridge, 240.5, 0.5);
  EXPECT_GT(memoryBound.busyPercent().at("dma"), 95.0);
  EXPECT_NEAR(percentOfPeak(memoryBound), 100.0 * 205 / ridge, 5.0);

  const RunReport computeBound = blockedMatmul(512, 1024, 1024);
  EXPECT_GT(percentOfPeak(computeBound), 70.0);
  EXPECT_GT(computeBound.busyPercent().at("mxu"), computeBound.busyPercent().at("dma"));
}

} // namespace
