/// SimOptions::recordTimeline: one InstructionEvent per retired instruction, whose issue, start and end times are
/// the model's arithmetic (written out from the target's figures, as in SimulatorTest.cpp); nothing recorded and
/// the same simulated time when it is off.

#include "ProgramBuilder.h"

#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using isa::Opcode;
using testing::ProgramBuilder;

/// Every duration is rounded to a whole picosecond.
constexpr double kPsTolerance = 0.01;

/// z = exp(x + y): loads of x and y on two DMA queues (served by two DMA engines), an add on the vector engine once
/// both have landed, an exp on the scalar engine, and the store on dma0 behind its load.
struct AddExpKernel {
  static constexpr int64_t rows = 128, cols = 256;
  ProgramBuilder b{"add_exp"};
  isa::Instruction loadX, loadY, add, exp, store;

  AddExpKernel() {
    const int32_t x = b.tensor("x", {rows, cols}, DType::F32), y = b.tensor("y", {rows, cols}, DType::F32);
    const int32_t z = b.tensor("z", {rows, cols}, DType::F32, /*isOutput=*/true);
    const uint32_t loaded = b.semaphore(), added = b.semaphore(), exped = b.semaphore();
    const auto sbuf = [](int64_t offset) { return testing::onChip(MemSpace::Sbuf, DType::F32, 0, rows, offset, cols); };
    loadX = testing::dmaCopy(sbuf(0), testing::hbmTile(x, DType::F32, cols, 0, rows, 0, cols));
    loadY = testing::dmaCopy(sbuf(1024), testing::hbmTile(y, DType::F32, cols, 0, rows, 0, cols));
    add.op = Opcode::TensorTensor;
    add.dst = sbuf(2048);
    add.src0 = loadX.dst;
    add.src1 = loadY.dst;
    exp.op = Opcode::Activation;
    exp.func = isa::ActFunc::Exp;
    exp.scale = 1.0f;
    exp.dst = sbuf(3072);
    exp.src0 = add.dst;
    store = testing::dmaCopy(testing::hbmTile(z, DType::F32, cols, 0, rows, 0, cols), exp.dst);
    b.add(Engine::Dma, loadX, {}, {loaded}, {"add_exp.cpp", 3}, /*queue=*/0);
    b.add(Engine::Dma, loadY, {}, {loaded}, {"add_exp.cpp", 4}, /*queue=*/1);
    b.add(Engine::Vector, add, {{loaded, 2}}, {added}, {"add_exp.cpp", 5});
    b.add(Engine::Scalar, exp, {{added, 1}}, {exped}, {"add_exp.cpp", 6});
    b.add(Engine::Dma, store, {{exped, 1}}, {}, {"add_exp.cpp", 7}, /*queue=*/0);
  }

  /// The stream of `engine` (and DMA `queue`) in b.program.
  uint32_t streamOf(Engine engine, uint32_t queue = 0) const {
    for (uint32_t s = 0; s < b.program.streams.size(); ++s)
      if (b.program.streams[s].engine == engine && b.program.streams[s].queue == queue)
        return s;
    return ~0u;
  }
};

const InstructionEvent &eventOf(const SimResult &result, uint32_t stream, uint32_t index) {
  const auto matches = [&](const InstructionEvent &e) { return e.stream == stream && e.index == index; };
  const auto it = std::ranges::find_if(result.timeline, matches);
  EXPECT_NE(it, result.timeline.end()) << "no event for stream " << stream << " instruction " << index;
  static const InstructionEvent none;
  return it == result.timeline.end() ? none : *it;
}

void expectTimes(const InstructionEvent &e, double issueNs, double startNs, double endNs) {
  EXPECT_NEAR(e.issueNs, issueNs, kPsTolerance) << "stream " << e.stream << " instruction " << e.index;
  EXPECT_NEAR(e.startNs, startNs, kPsTolerance) << "stream " << e.stream << " instruction " << e.index;
  EXPECT_NEAR(e.endNs, endNs, kPsTolerance) << "stream " << e.stream << " instruction " << e.index;
}

TEST(Timeline, EventsFollowTheModelsArithmetic) {
  AddExpKernel kernel;
  HbmImage hbm;
  const SimResult result = simulate(kernel.b.program, testing::trn2(), hbm, {.recordTimeline = true});
  ASSERT_EQ(result.timeline.size(), kernel.b.program.instructionCount());

  const isa::Target &target = testing::trn2();
  const double loadNs = testing::dmaNs(kernel.loadX, target), storeNs = testing::dmaNs(kernel.store, target);
  const double addNs = testing::engineNs(kernel.add, Engine::Vector, target);
  const double expNs = testing::engineNs(kernel.exp, Engine::Scalar, target);

  // Both loads are ready at 0 on two queues: they stream side by side and wait out their fixed costs together
  // (the HBM share is far from full), but the core's descriptor generator takes them one after the other, so the
  // second completes no earlier than two descriptor slots.
  const uint32_t dma0 = kernel.streamOf(Engine::Dma, 0), dma1 = kernel.streamOf(Engine::Dma, 1);
  const InstructionEvent &loadX = eventOf(result, dma0, 0), &loadY = eventOf(result, dma1, 0);
  const double loadsDone = std::max(loadNs, 2 * target.dma.descriptorNs);
  expectTimes(loadX, 0, 0, loadNs);
  expectTimes(loadY, 0, 0, loadsDone);

  // The add waits from 0 for both loads; the exp from 0 for the add; the store from the end of dma0's load for
  // the exp, then streams alone.
  const double addEnd = loadsDone + addNs, expEnd = addEnd + expNs;
  expectTimes(eventOf(result, kernel.streamOf(Engine::Vector), 0), 0, loadsDone, addEnd);
  expectTimes(eventOf(result, kernel.streamOf(Engine::Scalar), 0), 0, addEnd, expEnd);
  expectTimes(eventOf(result, dma0, 1), loadX.endNs, expEnd, expEnd + storeNs);
  EXPECT_NEAR(result.timeNs, expEnd + storeNs, kPsTolerance);

  // In completion order, and each stream's waits and busy times are the sums of its events'.
  EXPECT_TRUE(std::ranges::is_sorted(result.timeline, {}, &InstructionEvent::endNs));
  for (uint32_t s = 0; s < result.streams.size(); ++s) {
    double waited = 0, busy = 0;
    for (const InstructionEvent &e : result.timeline)
      if (e.stream == s) waited += e.startNs - e.issueNs, busy += e.endNs - e.startNs;
    EXPECT_NEAR(waited, result.streams[s].waitNs, kPsTolerance) << result.streams[s].name;
    EXPECT_NEAR(busy, result.streams[s].busyNs, kPsTolerance) << result.streams[s].name;
  }
}

TEST(Timeline, EmptyWhenOffAndTheSameTimeEitherWay) {
  AddExpKernel kernel;
  HbmImage off, on;
  const SimResult without = simulate(kernel.b.program, testing::trn2(), off);
  const SimResult with = simulate(kernel.b.program, testing::trn2(), on, {.recordTimeline = true});
  EXPECT_TRUE(without.timeline.empty());
  EXPECT_EQ(without.timeline.capacity(), 0u); // nothing allocated
  EXPECT_EQ(with.timeline.size(), kernel.b.program.instructionCount());
  EXPECT_EQ(without.timeNs, with.timeNs);
  ASSERT_EQ(without.streams.size(), with.streams.size());
  for (size_t s = 0; s < with.streams.size(); ++s) {
    EXPECT_EQ(without.streams[s].busyNs, with.streams[s].busyNs);
    EXPECT_EQ(without.streams[s].waitNs, with.streams[s].waitNs);
  }
  EXPECT_EQ(off, on); // the same outputs
}

TEST(Timeline, TimingOnlyRecordsTheSameEvents) {
  AddExpKernel kernel;
  HbmImage full, empty;
  const SimResult values = simulate(kernel.b.program, testing::trn2(), full, {.recordTimeline = true});
  const SimResult timing =
      simulate(kernel.b.program, testing::trn2(), empty, {.computeValues = false, .recordTimeline = true});
  ASSERT_EQ(values.timeline.size(), timing.timeline.size());
  for (size_t i = 0; i < values.timeline.size(); ++i) {
    EXPECT_EQ(values.timeline[i].stream, timing.timeline[i].stream);
    EXPECT_EQ(values.timeline[i].index, timing.timeline[i].index);
    EXPECT_EQ(values.timeline[i].endNs, timing.timeline[i].endNs);
  }
}

} // namespace
} // namespace tessera::sim
