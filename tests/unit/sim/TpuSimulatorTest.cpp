/// TPU TensorCore programs through tessera::sim::simulate() on the tpu-v5e target: values moved through VMEM by
/// DMA, added on the VPU and multiplied on the MXU against plain C++ references; the in-order issue of the MXU,
/// VPU and scalar-unit instructions (Instruction::issue); the MXU's weight load exposed after idling; the stream
/// names, timeline and prints of a TPU run. Every expected time is the model's arithmetic from the target's
/// figures (isa::engineCycles, isa::issueCycles, tpuCost), never a literal.

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

/// The weight load the MXU pays when nothing hid it, in ns, for a matmul of `inst`'s operand types.
double exposedLoadNs(const isa::Instruction &inst) {
  const bool fp32 = inst.src0.dtype == DType::F32 || inst.src1.dtype == DType::F32;
  return unitNs(uint64_t{target().tpuCost.mxuWeightLoadCycles} * (fp32 ? target().tpuCost.mxuFp32Passes : 1),
                Engine::Mxu);
}

/// How long the first instruction of `unit`'s stream in `b`'s program holds the issue slot, in ns.
double issueNs(const TpuProgramBuilder &b, Engine unit) {
  const isa::Instruction &inst = b.program.streams[b.streamIndex(unit)].instructions[0];
  EXPECT_NE(inst.issue, 0u);
  return unitNs(isa::issueCycles(inst, unit, target()), unit);
}

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
  const isa::Instruction add = testing::vpuBinary(bufZ, bufX, bufY);
  b.issue(Engine::Vpu, add, {{loaded, 2}}, {added});
  b.dma(2, testing::hbmTensor(z, DType::F32, rows, cols), bufZ, {{added, 1}});

  const std::vector<float> xs = testing::randomValues(rows * cols, DType::F32, 11);
  const std::vector<float> ys = testing::randomValues(rows * cols, DType::F32, 12);
  HbmImage hbm{testing::encoded(DType::F32, xs), testing::encoded(DType::F32, ys), {}};
  const SimResult result = simulate(b.program, target(), hbm, withTimeline());

  const std::vector<float> zs = testing::decoded(DType::F32, hbm[2]);
  ASSERT_EQ(zs.size(), xs.size());
  for (size_t i = 0; i < zs.size(); ++i)
    ASSERT_EQ(zs[i], xs[i] + ys[i]) << "element " << i;
  // The add starts when the later load lands and takes its cycles; the store starts when it completes.
  const uint32_t vpu = b.streamIndex(Engine::Vpu);
  const double landed = std::max(eventOf(result, b.streamIndex(Engine::Dma, 0)).endNs,
                                 eventOf(result, b.streamIndex(Engine::Dma, 1)).endNs);
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
  const isa::Instruction matmul = testing::mxuMatmul(acc, lhsT, rhs);
  b.issue(Engine::Mxu, matmul, {{loaded, 2}}, {multiplied});
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
  // The MXU's first instruction: nothing hid its first weight load.
  const InstructionEvent &mxu = eventOf(result, b.streamIndex(Engine::Mxu));
  EXPECT_NEAR(mxu.endNs - mxu.startNs, testing::engineNs(matmul, Engine::Mxu, target()) + exposedLoadNs(matmul),
              kPsTolerance);
  EXPECT_EQ(result.flops, isa::flops(matmul));
}

// ---- in-order issue ----------------------------------------------------------------------------------------

// The scalar core's grid step holds the issue for its whole duration: the VPU fill behind it in program order
// starts only when it ends, though the two use different units. Without issue numbers they would overlap.
TEST(TpuIssueOrder, GridStepHoldsIssueUntilItEnds) {
  for (bool ordered : {true, false}) {
    TpuProgramBuilder b("grid_then_fill");
    const isa::Instruction fill = testing::vpuFill(b.buffer(DType::F32, 64, 512), 1.0f);
    b.issue(Engine::ScalarUnit, testing::gridStep());
    b.issue(Engine::Vpu, fill);
    if (!ordered)
      for (isa::Stream &s : b.program.streams)
        s.instructions[0].issue = 0;
    HbmImage hbm;
    const SimResult result = simulate(b.program, target(), hbm, timingOnly());

    const double gridNs = testing::engineNs(testing::gridStep(), Engine::ScalarUnit, target());
    const double fillNs = testing::engineNs(fill, Engine::Vpu, target());
    const StreamStats &vpu = result.streams[b.streamIndex(Engine::Vpu)];
    if (ordered) {
      EXPECT_NEAR(result.timeNs, gridNs + fillNs, kPsTolerance);
      EXPECT_NEAR(eventOf(result, b.streamIndex(Engine::Vpu)).startNs, gridNs, kPsTolerance);
      EXPECT_NEAR(vpu.waitNs, gridNs, kPsTolerance) << "waiting for the turn counts as waited";
    } else {
      EXPECT_NEAR(result.timeNs, std::max(gridNs, fillNs), kPsTolerance);
      EXPECT_NEAR(vpu.waitNs, 0.0, kPsTolerance);
    }
    EXPECT_NEAR(vpu.busyNs, fillNs, kPsTolerance);
  }
}

// An MXU matmul and a VPU fill of unrelated buffers: the fill issues one issue slot after the matmul started and
// runs beside it, so the kernel takes the longer of the two, not their sum.
TEST(TpuIssueOrder, IndependentMxuAndVpuInstructionsOverlap) {
  TpuProgramBuilder b("overlap");
  const isa::Instruction matmul = testing::mxuMatmul(b.buffer(DType::F32, 64, 256), b.buffer(DType::BF16, 128, 64),
                                                     b.buffer(DType::BF16, 128, 256));
  const isa::Instruction fill = testing::vpuFill(b.buffer(DType::F32, 256, 1024), 0.0f);
  b.issue(Engine::Mxu, matmul);
  b.issue(Engine::Vpu, fill);
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, timingOnly());

  const double matmulNs = testing::engineNs(matmul, Engine::Mxu, target()) + exposedLoadNs(matmul);
  const double fillStart = issueNs(b, Engine::Mxu);
  const double fillNs = testing::engineNs(fill, Engine::Vpu, target());
  EXPECT_NEAR(eventOf(result, b.streamIndex(Engine::Vpu)).startNs, fillStart, kPsTolerance);
  EXPECT_NEAR(result.timeNs, std::max(matmulNs, fillStart + fillNs), kPsTolerance);
  EXPECT_LT(result.timeNs + kPsTolerance, matmulNs + fillNs);
}

// A VPU add waits for a DMA; the MXU matmul behind it in issue order, though independent of the DMA, cannot start
// before the add has: a semaphore wait holds the issue. In the other program order the matmul starts at once.
TEST(TpuIssueOrder, ASemaphoreWaitBlocksTheInstructionsBehindIt) {
  for (bool addFirst : {true, false}) {
    TpuProgramBuilder b("blocked");
    const int32_t x = b.tensor("x", {64, 512}, DType::F32);
    const isa::AccessPattern bufX = b.buffer(DType::F32, 64, 512), sum = b.buffer(DType::F32, 64, 512);
    const isa::Instruction matmul = testing::mxuMatmul(
        b.buffer(DType::F32, 64, 128), b.buffer(DType::BF16, 128, 64), b.buffer(DType::BF16, 128, 128));
    const isa::Instruction add = testing::vpuBinary(sum, bufX, bufX);
    const uint32_t loaded = b.semaphore();
    b.dma(0, bufX, testing::hbmTensor(x, DType::F32, 64, 512), {}, {loaded});
    if (addFirst)
      b.issue(Engine::Vpu, add, {{loaded, 1}});
    b.issue(Engine::Mxu, matmul);
    if (!addFirst)
      b.issue(Engine::Vpu, add, {{loaded, 1}});
    HbmImage hbm;
    const SimResult result = simulate(b.program, target(), hbm, timingOnly());

    const double landed = eventOf(result, b.streamIndex(Engine::Dma)).endNs;
    const InstructionEvent &addEvent = eventOf(result, b.streamIndex(Engine::Vpu));
    const InstructionEvent &matmulEvent = eventOf(result, b.streamIndex(Engine::Mxu));
    EXPECT_NEAR(addEvent.startNs, landed, kPsTolerance);
    if (addFirst) {
      EXPECT_NEAR(matmulEvent.startNs, landed + issueNs(b, Engine::Vpu), kPsTolerance);
      EXPECT_NEAR(result.streams[b.streamIndex(Engine::Mxu)].waitNs, matmulEvent.startNs, kPsTolerance);
    } else {
      EXPECT_NEAR(matmulEvent.startNs, 0.0, kPsTolerance);
    }
  }
}

// ---- the MXU's weight load ----------------------------------------------------------------------------------

// Two matmuls back to back: the first pays its first weight load, the second's hides behind the first's rows.
TEST(TpuMxuTiming, BackToBackMatmulsHideTheWeightLoad) {
  TpuProgramBuilder b("back_to_back");
  const isa::AccessPattern lhsT = b.buffer(DType::BF16, 128, 64), rhs = b.buffer(DType::BF16, 128, 128);
  const isa::Instruction first = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
  const isa::Instruction second = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
  b.issue(Engine::Mxu, first);
  b.issue(Engine::Mxu, second);
  HbmImage hbm;
  const SimResult result = simulate(b.program, target(), hbm, timingOnly());

  const uint32_t mxu = b.streamIndex(Engine::Mxu);
  const double firstNs = testing::engineNs(first, Engine::Mxu, target()) + exposedLoadNs(first);
  ASSERT_GT(exposedLoadNs(first), 0.0);
  EXPECT_NEAR(eventOf(result, mxu, 0).endNs, firstNs, kPsTolerance);
  EXPECT_NEAR(eventOf(result, mxu, 1).startNs, firstNs, kPsTolerance);
  EXPECT_NEAR(eventOf(result, mxu, 1).endNs - eventOf(result, mxu, 1).startNs,
              testing::engineNs(second, Engine::Mxu, target()), kPsTolerance);
  EXPECT_NEAR(result.streams[mxu].busyNs, firstNs + testing::engineNs(second, Engine::Mxu, target()),
              kPsTolerance);
}

// The second matmul waits for a DMA that lands after the first matmul ended: the MXU sat idle, nothing hid the
// weight load, and it pays it again. With FP32 operands each of the mxu_fp32_passes loads its weights.
TEST(TpuMxuTiming, AMatmulAfterIdlePaysTheWeightLoad) {
  for (DType type : {DType::BF16, DType::F32}) {
    TpuProgramBuilder b("after_idle");
    const int32_t x = b.tensor("x", {128, 2048}, DType::F32);
    const isa::AccessPattern lhsT = b.buffer(type, 128, 64), rhs = b.buffer(type, 128, 128);
    const isa::Instruction first = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
    const isa::Instruction second = testing::mxuMatmul(b.buffer(DType::F32, 64, 128), lhsT, rhs);
    const uint32_t landed = b.semaphore();
    b.dma(0, b.buffer(DType::F32, 128, 2048), testing::hbmTensor(x, DType::F32, 128, 2048), {}, {landed});
    b.issue(Engine::Mxu, first);
    b.issue(Engine::Mxu, second, {{landed, 1}});
    HbmImage hbm;
    const SimResult result = simulate(b.program, target(), hbm, timingOnly());

    const uint32_t mxu = b.streamIndex(Engine::Mxu);
    const double dmaEnd = eventOf(result, b.streamIndex(Engine::Dma)).endNs;
    ASSERT_GT(dmaEnd, eventOf(result, mxu, 0).endNs) << "the DMA must land after the first matmul";
    EXPECT_NEAR(eventOf(result, mxu, 1).startNs, dmaEnd, kPsTolerance);
    EXPECT_NEAR(eventOf(result, mxu, 1).endNs - dmaEnd,
                testing::engineNs(second, Engine::Mxu, target()) + exposedLoadNs(second), kPsTolerance);
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
  b.issue(Engine::ScalarUnit, testing::gridStep());
  b.issue(Engine::Vpu, testing::vpuFill(tile, 2.5f), {}, {filled});
  isa::Instruction print;
  print.op = isa::Opcode::Print;
  print.src0 = tile;
  b.program.texts.push_back("tile");
  b.issue(Engine::Vpu, print, {}, {}, {"names.cpp", 9});
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
