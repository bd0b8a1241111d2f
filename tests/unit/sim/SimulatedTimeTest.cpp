/// The simulator's clock stops at its horizon instead of wrapping (issue 24: `dma.fixed_latency_ns = 1e18` once gave
/// a shorter run than the default, the picoseconds having wrapped past 2^64): the helpers refuse a duration or an
/// end past 2^62 ps, and a run that would pass it stops with SimulatedTimeOverflow naming the instruction.

#include "ProgramBuilder.h"
#include "SimulatedTime.h"

#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using testing::ProgramBuilder;

TEST(SimulatedTime, DurationsBelowTheHorizonRoundToTheNearestPicosecond) {
  EXPECT_EQ(picosecondsOf(1300.0, "x"), 1'300'000u);
  EXPECT_EQ(picosecondsOf(0.0004, "x"), 0u);
  EXPECT_EQ(picosecondsOf(0.0006, "x"), 1u);
  EXPECT_EQ(picosecondsOfCycles(512, 1000.0 / 2.4, "x"), 213'333u);
  EXPECT_EQ(picosecondsOf(1e15, "x"), uint64_t{1'000'000'000'000'000'000});
  EXPECT_EQ(endOf(kMaxSimulatedPs - 5, 5, "x"), kMaxSimulatedPs);
}

TEST(SimulatedTime, ADurationOrAnEndPastTheHorizonIsRefused) {
  EXPECT_THROW(picosecondsOf(1e18, "the latency"), SimulatedTimeOverflow);
  EXPECT_THROW(picosecondsOf(std::numeric_limits<double>::infinity(), "x"), SimulatedTimeOverflow);
  EXPECT_THROW(picosecondsOf(std::nan(""), "x"), SimulatedTimeOverflow);
  EXPECT_THROW(picosecondsOf(-1.0, "x"), SimulatedTimeOverflow);
  EXPECT_THROW(picosecondsOfCycles(uint64_t{1} << 40, 1e12, "x"), SimulatedTimeOverflow);
  EXPECT_THROW(endOf(kMaxSimulatedPs - 5, 6, "x"), SimulatedTimeOverflow);
  // Sums that would wrap 64 bits are caught, not computed.
  EXPECT_THROW(endOf(std::numeric_limits<uint64_t>::max() - 1, 10, "x"), SimulatedTimeOverflow);
  EXPECT_THROW(endOf(1, std::numeric_limits<uint64_t>::max(), "x"), SimulatedTimeOverflow);
  try {
    (void)picosecondsOf(1e18, "the DMA fixed latency");
  } catch (const SimulatedTimeOverflow &e) {
    EXPECT_NE(e.message().find("the DMA fixed latency of 1e+18 ns"), std::string::npos) << e.message();
  }
}

/// One DMA copy HBM -> SBUF of [128 x 64] FP32.
ProgramBuilder oneCopy() {
  ProgramBuilder b("one_copy");
  const int32_t a = b.tensor("a", {128, 64}, DType::F32);
  b.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 0, 64),
                                      testing::hbmTile(a, DType::F32, 64, 0, 128, 0, 64)));
  return b;
}

TEST(SimulatedTime, ALongerFixedLatencyNeverGivesAShorterRun) {
  isa::Target target = testing::trn2();
  ProgramBuilder b = oneCopy();
  double previousNs = 0;
  for (double latencyNs : {1300.0, 1e9, 1e15}) {
    target.dma.fixedLatencyNs = latencyNs;
    HbmImage none;
    const SimResult r = simulate(b.program, target, none, {.computeValues = false, .checks = false});
    EXPECT_GE(r.timeNs, latencyNs);
    EXPECT_GT(r.timeNs, previousNs);
    previousNs = r.timeNs;
  }
  for (double latencyNs : {1e18, 1e30}) {
    target.dma.fixedLatencyNs = latencyNs;
    HbmImage none;
    EXPECT_THROW(simulate(b.program, target, none, {.computeValues = false, .checks = false}), SimulatedTimeOverflow)
        << latencyNs;
  }
}

TEST(SimulatedTime, AnInstructionPastTheHorizonIsNamed) {
  isa::Target target = testing::trn2();
  target.vector.clockGhz = 1e-15; // a cycle of 1e15 ns
  ProgramBuilder b("slow_copy");
  isa::Instruction copy;
  copy.op = isa::Opcode::TensorCopy;
  copy.src0 = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 0, 64);
  copy.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 256, 64);
  b.add(Engine::Vector, copy);
  HbmImage none;
  try {
    simulate(b.program, target, none, {.computeValues = false, .checks = false});
    FAIL() << "a copy of 1e15 ns cycles ran";
  } catch (const SimulatedTimeOverflow &e) {
    EXPECT_NE(e.message().find("stream 'vector', instruction 0 (tensor_copy)"), std::string::npos) << e.message();
  }
}

} // namespace
} // namespace tessera::sim
