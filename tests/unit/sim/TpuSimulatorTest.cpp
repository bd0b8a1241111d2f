/// TPU TensorCore programs through tessera::sim::simulate() on the tpu-v5e target: values moved through VMEM by
/// DMA, added on the VPU and multiplied on the MXU against plain C++ references; the grid-step barriers of the
/// MXU, VPU and scalar-unit instructions (Instruction::step) and the units overlapping within a step; the MXU's
/// pipeline fill exposed after idling; the stream names, timeline and prints of a TPU run. Every expected time is
/// the model's arithmetic from the target's figures (isa::engineCycles, tpuCost), never a literal.

#include "TpuProgramBuilder.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/DmaCost.h"
#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using testing::TpuProgramBuilder;

/// Every duration is rounded to a whole picosecond.
constexpr double kPsTolerance = 0.01;

const isa::Target &target() { return testing::tpuV5e(); }

/// Nanoseconds of `cycles` of the TensorCore's clock on `unit`.
double unitNs(uint64_t cycles, Engine unit) { return static_cast<double>(cycles) / isa::clockGhz(unit, target()); }

/// The pipeline fill the MXU pays when nothing in flight hid it, in ns, for a matmul of `inst`'s operand types: the
/// first weight load (each FP32 pass loads its weights) and the pipeline's latency.
double fillNs(const isa::Instruction &inst) {
  const isa::TpuCostModel &cost = target().tpuCost;
  const bool fp32 = inst.src0.dtype == DType::F32 || inst.src1.dtype == DType::F32;
  return unitNs(uint64_t{cost.mxuWeightLoadCycles} * (fp32 ? cost.mxuFp32Passes : 1) + cost.mxuLatencyCycles,
                Engine::Mxu);
}

/// How long the scalar core's bookkeeping of one grid step takes, in ns.
double gridStepNs() { return testing::engineNs(testing::gridStep(), Engine::ScalarUnit, target()); }

/// The event of instruction `index` of stream `stream` in a recorded timeline.
const InstructionEvent &eventOf(const SimResult &result, uint32_t stream, uint32_t index = 0) {
  for (const InstructionEvent &e : result.timeline)
    if (e.stream == stream && e.index == index)
      return e;
  ADD_FAILURE() << "no event for stream " << stream << ", instruction " << index;
  static const InstructionEvent none;
  return none;
}

SimOptions timingOnly() {
  SimOptions options;
  options.computeValues = false;
  options.checks = false;
  options.recordTimeline = true;
  return options;
}

SimOptions withTimeline() {
  SimOptions options;
  options.recordTimeline = true;
  return options;
}

// ---- values ------------------------------------------------------------------------------------------------

// z = x + y over [16, 100] f32 tiles: x and y land in VMEM on two DMA queues (rows 128 elements apart: the pitch
// rounds 100 up to the lanes), the VPU adds them once both have landed, a third queue stores the sum.
TEST(TpuSimulator, VectorAddThroughVmemMatchesTheReference) {
  constexpr uint32_t rows = 16;
  constexpr int64_t cols = 100;
  TpuProgramBuilder b("tpu_add");
  const int32_t x = b.tensor("x", {rows, cols}, DType::F32), y = b.tensor("y", {rows, cols}, DType::F32);
  const int32_t z = b.tensor("z", {rows, cols}, DType::F32, /*isOutput=*/true);
  const isa::AccessPattern bufX = b.buffer(DType::F32, rows, cols), bufY = b.buffer(DType::F32, rows, cols),
                           bufZ = b.buffer(DType::F32, rows, cols);
  ASSERT_EQ(bufX.partitionStride, int64_t{target().tpu.lanes});
  const uint32_t loaded = b.semaphore(), added = b.semaphore();
  b.dma(0, bufX, testing::hbmTensor(x, DType::F32, rows, cols), {}, {loaded});
  b.dma(1, bufY, testing::hbmTensor(y, DType::F32, rows, cols), {}, {loaded});
  b.gridStep();
  const isa::Instruction add = testing::vpuBinary(bufZ, bufX, bufY);
  b.compute(Engine::Vpu, add, {{loaded, 2}}, {added});
  b.dma(2, testing::hbmTensor(z, DType::F32, rows, cols), bufZ, {{added, 1}});

  const std::vector<float> xs = testing::randomValues(rows * cols, DType::F32, 11);
  const std::vector<float> ys = testing::randomValues(rows * cols, DType::F32, 12);
  HbmImage hbm{testing::encoded(DType::F32, xs), testing::encoded(DType::F32, ys), {}};
  const SimResult result = simulate(b.program, target(), hbm, withTimeline());

  const std::vector<float> zs = testing::decoded(DType::F32, hbm[2]);
  ASSERT_EQ(zs.size(), xs.size());
  for (size_t i = 0; i < zs.size(); ++i)
    ASSERT_EQ(zs[i], xs[i] + ys[i]) << "element " << i;
  // The add starts when the later load lands (after the grid step's bookkeeping) and takes its cycles; the store
  // starts when it completes.
  const uint32_t vpu = b.streamIndex(Engine::Vpu);
  const double landed = std::max(eventOf(result, b.streamIndex(Engine::Dma, 0)).endNs,
                                 eventOf(result, b.streamIndex(Engine::Dma, 1)).endNs);
  ASSERT_GT(landed, gridStepNs());
  EXPECT_NEAR(eventOf(result, vpu).startNs, landed, kPsTolerance);
  EXPECT_NEAR(eventOf(result, vpu).endNs - landed, testing::engineNs(add, Engine::Vpu, target()), kPsTolerance);
  EXPECT_NEAR(eventOf(result, b.streamIndex(Engine::Dma, 2)).startNs, eventOf(result, vpu).endNs, kPsTolerance);
  // The store, alone on its DMA engine: its bytes at the engine's efficiency for 400-byte VMEM rows (a row plays
  // the role of a partition), then the fixed latency.
  const isa::Instruction &store = b.program.streams[b.streamIndex(Engine::Dma, 2)].instructions[0];
  const isa::DmaTransferCost storeCost = isa::dmaTransferCost(store, target());
  EXPECT_EQ(storeCost.bytesPerPartition, cols * 4.0);
  EXPECT_DOUBLE_EQ(storeCost.efficiency, isa::dmaEfficiency(cols * 4.0, target().dma)) << "no stride penalty on a TPU";
  const InstructionEvent &stored = eventOf(result, b.streamIndex(Engine::Dma, 2));
  EXPECT_NEAR(stored.endNs - stored.startNs, testing::dmaNs(store, target()), kPsTolerance);
  EXPECT_NEAR(result.timeNs, stored.endNs, kPsTolerance);
  EXPECT_EQ(result.hbmBytes, 3u * rows * cols * 4);
}

// c[32, 192] = a_t[256, 32].T @ b[256, 192] in bf16 with FP32 accumulation: two weight tiles deep (K = 2 x 128),
// two wide (N = 192 > 128 columns), loaded into VMEM, multiplied on the MXU, stored.
TEST(TpuSimulator, MxuMatmulThroughVmemMatchesTheReference) {
  constexpr uint32_t k = 256, m = 32;
  constexpr int64_t n = 192;
  TpuProgramBuilder b("tpu_matmul");
  const int32_t a = b.tensor("a_t", {k, m}, DType::BF16), w = b.tensor("b", {k, n}, DType::BF16);
  const int32_t c = b.tensor("c", {m, n}, DType::F32, /*isOutput=*/true);
  const isa::AccessPattern lhsT = b.buffer(DType::BF16, k, m), rhs = b.buffer(DType::BF16, k, n),
                           acc = b.buffer(DType::F32, m, n);
  const uint32_t loaded = b.semaphore(), multiplied = b.semaphore();
  b.dma(0, lhsT, testing::hbmTensor(a, DType::BF16, k, m), {}, {loaded});
  b.dma(1, rhs, testing::hbmTensor(w, DType::BF16, k, n), {}, {loaded});
  b.gridStep();
  const isa::Instruction matmul = testing::mxuMatmul(acc, lhsT, rhs);
  b.compute(Engine::Mxu, matmul, {{loaded, 2}}, {multiplied});
  b.dma(2, testing::hbmTensor(c, DType::F32, m, n), acc, {{multiplied, 1}});

  const std::vector<float> as = testing::randomValues(k * m, DType::BF16, 21);
  const std::vector<float> bs = testing::randomValues(k * n, DType::BF16, 22);
  HbmImage hbm{testing::encoded(DType::BF16, as), testing::encoded(DType::BF16, bs), {}};
  const SimResult result = simulate(b.program, target(), hbm, withTimeline());

  const std::vector<float> cs = testing::decoded(DType::F32, hbm[2]);
  ASSERT_EQ(cs.size(), size_t{m} * n);
  for (uint32_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0; // FP32 sums over k in ascending order
      for (uint32_t kk = 0; kk < k; ++kk)
        sum += as[kk * m + i] * bs[kk * n + j];
      ASSERT_EQ(cs[i * n + j], sum) << "c[" << i << ", " << j << "]";
    }
  // The MXU's first instruction: nothing hid its pipeline fill.
  const InstructionEvent &mxu = eventOf(result, b.streamIndex(Engine::Mxu));
  EXPECT_NEAR(mxu.endNs - mxu.startNs, testing::engineNs(matmul, Engine::Mxu, target()) + fillNs(matmul),
              kPsTolerance);
  EXPECT_EQ(result.flops, isa::flops(matmul));
}

// ---- grid steps ----------------------------------------------------------------------------------------------

// A step's instructions start once its GridStep, the scalar core's bookkeeping, has completed: the VPU fill of step
// 1 waits for it though it runs on another unit, and that wait counts as waited.
TEST(TpuGridSteps, AStepsInstructionsWaitForItsGridStep) {
  TpuProgramBuilder b("grid_then_fill");
  const isa::Instruction fill = testing::vpuFill(b.buffer(DType::F32, 64, 512), 1.0f);
  b.gridStep();
  b.compute(Engine::Vpu, fill);
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, timingOnly());

  const double fillNs = testing::engineNs(fill, Engine::Vpu, target());
  const StreamStats &vpu = result.streams[b.streamIndex(Engine::Vpu)];
  ASSERT_GT(gridStepNs(), 0.0);
  EXPECT_NEAR(eventOf(result, b.streamIndex(Engine::Vpu)).startNs, gridStepNs(), kPsTolerance);
  EXPECT_NEAR(result.timeNs, gridStepNs() + fillNs, kPsTolerance);
  EXPECT_NEAR(vpu.waitNs, gridStepNs(), kPsTolerance) << "waiting at the barrier counts as waited";
  EXPECT_NEAR(vpu.busyNs, fillNs, kPsTolerance);
}

// An MXU matmul and a VPU fill of unrelated buffers in one step: both start when the step's GridStep ends and run
// side by side, so the step takes the longer of the two, not their sum.
TEST(TpuGridSteps, IndependentMxuAndVpuInstructionsOfAStepOverlap) {
  TpuProgramBuilder b("overlap");
  const isa::Instruction matmul = testing::mxuMatmul(b.buffer(DType::F32, 64, 256), b.buffer(DType::BF16, 128, 64),
                                                     b.buffer(DType::BF16, 128, 256));
  const isa::Instruction fill = testing::vpuFill(b.buffer(DType::F32, 256, 1024), 0.0f);
  b.gridStep();
  b.compute(Engine::Mxu, matmul);
  b.compute(Engine::Vpu, fill);
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, timingOnly());

  const double matmulNs = testing::engineNs(matmul, Engine::Mxu, target()) + fillNs(matmul);
  const double fillNs = testing::engineNs(fill, Engine::Vpu, target());
  EXPECT_NEAR(eventOf(result, b.streamIndex(Engine::Mxu)).startNs, gridStepNs(), kPsTolerance);
  EXPECT_NEAR(eventOf(result, b.streamIndex(Engine::Vpu)).startNs, gridStepNs(), kPsTolerance);
  EXPECT_NEAR(result.timeNs, gridStepNs() + std::max(matmulNs, fillNs), kPsTolerance);
  EXPECT_LT(result.timeNs + kPsTolerance, gridStepNs() + matmulNs + fillNs);
}

// In program order: a matmul, a VPU add of its result (waiting on its semaphore), then an independent matmul. The
// add waiting does not hold back the second matmul, which follows the first on the MXU back to back (no fill)
// while the add runs on the VPU.
TEST(TpuGridSteps, AVpuOpWaitingOnAMatmulDoesNotHoldBackTheNextMatmul) {
  TpuProgramBuilder b("not_blocked");
  const isa::AccessPattern lhsT = b.buffer(DType::BF16, 128, 64), rhs = b.buffer(DType::BF16, 128, 128);
  const isa::AccessPattern product = b.buffer(DType::F32, 64, 128), sum = b.buffer(DType::F32, 64, 128);
  const isa::Instruction first = testing::mxuMatmul(product, lhsT, rhs);
  const isa::Instruction second = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
  const isa::Instruction add = testing::vpuBinary(sum, product, product);
  const uint32_t multiplied = b.semaphore();
  b.gridStep();
  b.compute(Engine::Mxu, first, {}, {multiplied});
  b.compute(Engine::Vpu, add, {{multiplied, 1}});
  b.compute(Engine::Mxu, second);
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, timingOnly());

  const uint32_t mxu = b.streamIndex(Engine::Mxu);
  const double firstEnd = gridStepNs() + testing::engineNs(first, Engine::Mxu, target()) + fillNs(first);
  EXPECT_NEAR(eventOf(result, mxu, 0).endNs, firstEnd, kPsTolerance);
  EXPECT_NEAR(eventOf(result, b.streamIndex(Engine::Vpu)).startNs, firstEnd, kPsTolerance);
  EXPECT_NEAR(eventOf(result, mxu, 1).startNs, firstEnd, kPsTolerance);
  EXPECT_NEAR(eventOf(result, mxu, 1).endNs, firstEnd + testing::engineNs(second, Engine::Mxu, target()),
              kPsTolerance);
  EXPECT_NEAR(result.streams[mxu].waitNs, gridStepNs(), kPsTolerance) << "only the first GridStep held the MXU";
}

// Step 1 runs a matmul and a shorter VPU fill; GridStep 2 starts when the later of the two, the step's last
// instruction, completes (not when the fill does), and step 2's fill after it. The MXU idles meanwhile.
TEST(TpuGridSteps, TheNextGridStepWaitsForTheStepsLastInstruction) {
  TpuProgramBuilder b("two_steps");
  const isa::Instruction matmul = testing::mxuMatmul(b.buffer(DType::F32, 512, 512), b.buffer(DType::BF16, 512, 512),
                                                     b.buffer(DType::BF16, 512, 512));
  const isa::AccessPattern tile = b.buffer(DType::F32, 8, 128);
  const isa::Instruction fill = testing::vpuFill(tile, 0.0f);
  b.gridStep();
  b.compute(Engine::Mxu, matmul);
  b.compute(Engine::Vpu, fill);
  b.gridStep();
  b.compute(Engine::Vpu, testing::vpuFill(tile, 1.0f));
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, timingOnly());

  const double matmulEnd = gridStepNs() + testing::engineNs(matmul, Engine::Mxu, target()) + fillNs(matmul);
  const double fillEnd = gridStepNs() + testing::engineNs(fill, Engine::Vpu, target());
  ASSERT_GT(matmulEnd, fillEnd + 1.0) << "the matmul must be step 1's last instruction";
  const uint32_t scalar = b.streamIndex(Engine::ScalarUnit), vpu = b.streamIndex(Engine::Vpu);
  EXPECT_NEAR(eventOf(result, scalar, 1).startNs, matmulEnd, kPsTolerance);
  EXPECT_NEAR(eventOf(result, vpu, 1).startNs, matmulEnd + gridStepNs(), kPsTolerance);
  EXPECT_NEAR(result.streams[scalar].waitNs, matmulEnd - gridStepNs(), kPsTolerance);
  EXPECT_NEAR(result.timeNs, matmulEnd + gridStepNs() + testing::engineNs(fill, Engine::Vpu, target()),
              kPsTolerance);
}

// The DMA queues belong to no step: a load for step 2, though emitted after GridStep 2, starts at once and lands
// while step 1's long fill runs, so step 2's add starts right after its GridStep, with nothing left to wait for.
TEST(TpuGridSteps, DmaOfALaterStepRunsAhead) {
  TpuProgramBuilder b("run_ahead");
  const int32_t x = b.tensor("x", {8, 128}, DType::F32);
  const isa::AccessPattern bufX = b.buffer(DType::F32, 8, 128), sum = b.buffer(DType::F32, 8, 128);
  const isa::Instruction longFill = testing::vpuFill(b.buffer(DType::F32, 2048, 2048), 0.0f);
  const uint32_t loaded = b.semaphore();
  b.gridStep();
  b.compute(Engine::Vpu, longFill);
  b.gridStep();
  b.dma(0, bufX, testing::hbmTensor(x, DType::F32, 8, 128), {}, {loaded});
  b.compute(Engine::Vpu, testing::vpuBinary(sum, bufX, bufX), {{loaded, 1}});
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, timingOnly());

  const InstructionEvent &load = eventOf(result, b.streamIndex(Engine::Dma));
  const double stepTwo = 2 * gridStepNs() + testing::engineNs(longFill, Engine::Vpu, target());
  EXPECT_NEAR(load.startNs, 0.0, kPsTolerance);
  ASSERT_LT(load.endNs, stepTwo - gridStepNs()) << "the load must land during step 1";
  EXPECT_NEAR(eventOf(result, b.streamIndex(Engine::Vpu), 1).startNs, stepTwo, kPsTolerance);
}

// ---- the MXU's pipeline fill --------------------------------------------------------------------------------

// Two matmuls back to back: the first pays the pipeline fill (its first weight load and the pipeline's latency),
// the second's hides behind the first's rows.
TEST(TpuMxuTiming, BackToBackMatmulsHideThePipelineFill) {
  TpuProgramBuilder b("back_to_back");
  const isa::AccessPattern lhsT = b.buffer(DType::BF16, 128, 64), rhs = b.buffer(DType::BF16, 128, 128);
  const isa::Instruction first = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
  const isa::Instruction second = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
  b.gridStep();
  b.compute(Engine::Mxu, first);
  b.compute(Engine::Mxu, second);
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, timingOnly());

  const uint32_t mxu = b.streamIndex(Engine::Mxu);
  const double firstNs = testing::engineNs(first, Engine::Mxu, target()) + fillNs(first);
  ASSERT_GT(unitNs(target().tpuCost.mxuLatencyCycles, Engine::Mxu), 0.0);
  ASSERT_GT(unitNs(target().tpuCost.mxuWeightLoadCycles, Engine::Mxu), 0.0);
  EXPECT_NEAR(eventOf(result, mxu, 0).endNs, gridStepNs() + firstNs, kPsTolerance);
  EXPECT_NEAR(eventOf(result, mxu, 1).startNs, gridStepNs() + firstNs, kPsTolerance);
  EXPECT_NEAR(eventOf(result, mxu, 1).endNs - eventOf(result, mxu, 1).startNs,
              testing::engineNs(second, Engine::Mxu, target()), kPsTolerance);
  EXPECT_NEAR(result.streams[mxu].busyNs, firstNs + testing::engineNs(second, Engine::Mxu, target()),
              kPsTolerance);
}

// The second matmul waits for a DMA that lands after the first matmul ended: the MXU sat idle, nothing hid the
// fill, and it pays it again. With FP32 operands each of the mxu_fp32_passes loads its weights.
TEST(TpuMxuTiming, AMatmulAfterIdlePaysThePipelineFill) {
  for (DType type : {DType::BF16, DType::F32}) {
    TpuProgramBuilder b("after_idle");
    const int32_t x = b.tensor("x", {128, 2048}, DType::F32);
    const isa::AccessPattern lhsT = b.buffer(type, 128, 64), rhs = b.buffer(type, 128, 128);
    const isa::Instruction first = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
    const isa::Instruction second = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
    const uint32_t landed = b.semaphore();
    b.dma(0, b.buffer(DType::F32, 128, 2048), testing::hbmTensor(x, DType::F32, 128, 2048), {}, {landed});
    b.gridStep();
    b.compute(Engine::Mxu, first);
    b.compute(Engine::Mxu, second, {{landed, 1}});
    HbmImage hbm;
    const SimResult result = simulate(b.program, target(), hbm, timingOnly());

    const uint32_t mxu = b.streamIndex(Engine::Mxu);
    const double dmaEnd = eventOf(result, b.streamIndex(Engine::Dma)).endNs;
    ASSERT_GT(dmaEnd, eventOf(result, mxu, 0).endNs) << "the DMA must land after the first matmul";
    EXPECT_NEAR(eventOf(result, mxu, 1).startNs, dmaEnd, kPsTolerance);
    EXPECT_NEAR(eventOf(result, mxu, 1).endNs - dmaEnd,
                testing::engineNs(second, Engine::Mxu, target()) + fillNs(second), kPsTolerance);
  }
}

// ---- results, timeline, prints -----------------------------------------------------------------------------

// A grid step, a fill, a print of the filled tile and a store: the streams carry the TPU units' names, the print
// logs the VPU, its time and values, and each stream's busy and waited time add up to when it finished.
TEST(TpuSimulator, ResultsNameTheTpuUnits) {
  TpuProgramBuilder b("names");
  const int32_t out = b.tensor("out", {8, 128}, DType::F32, /*isOutput=*/true);
  const isa::AccessPattern tile = b.buffer(DType::F32, 8, 128);
  const uint32_t filled = b.semaphore();
  b.gridStep();
  b.compute(Engine::Vpu, testing::vpuFill(tile, 2.5f), {}, {filled});
  isa::Instruction print;
  print.op = isa::Opcode::Print;
  print.src0 = tile;
  b.program.texts.push_back("tile");
  b.compute(Engine::Vpu, print, {}, {}, {"names.cpp", 9});
  b.dma(3, testing::hbmTensor(out, DType::F32, 8, 128), tile, {{filled, 1}});
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, withTimeline());

  std::vector<std::string> names;
  for (const StreamStats &s : result.streams)
    names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"scalar", "vpu", "dma3"}));
  EXPECT_EQ(result.streams[0].engine, Engine::ScalarUnit);
  EXPECT_EQ(result.instructions, 4u);
  EXPECT_EQ(result.timeline.size(), 4u);
  ASSERT_EQ(result.prints.size(), 1u);
  EXPECT_EQ(result.prints[0].stream, "vpu");
  EXPECT_EQ(result.prints[0].name, "tile");
  EXPECT_EQ(result.prints[0].loc.line, 9u);
  EXPECT_EQ(result.prints[0].values, std::vector<float>(8 * 128, 2.5f));
  EXPECT_EQ(testing::decoded(DType::F32, hbm[0]), std::vector<float>(8 * 128, 2.5f));
  for (const StreamStats &s : result.streams) {
    double end = 0;
    for (const InstructionEvent &e : result.timeline)
      if (result.streams[e.stream].name == s.name)
        end = std::max(end, e.endNs);
    EXPECT_NEAR(s.busyNs + s.waitNs, end, kPsTolerance) << s.name;
  }
}

} // namespace
} // namespace tessera::sim
