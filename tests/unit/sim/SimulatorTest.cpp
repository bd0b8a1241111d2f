/// Whole programs through tessera::sim::simulate(): values against plain C++ references, time against the
/// model's arithmetic (written out from the target's figures), and the errors a program can stop with.

#include "ProgramBuilder.h"

#include "tessera/isa/Error.h"
#include "tessera/sim/Simulator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using isa::Opcode;
using testing::ProgramBuilder;

/// Time tolerance: every duration is rounded to a whole picosecond.
constexpr double kPsTolerance = 0.01;

/// C[M, N] = A_t[K, M]^T @ B[K, N] in BF16 with two K tiles: four loads on dma0, two matmuls accumulating in
/// PSUM, a PSUM -> SBUF BF16 copy on the vector engine, a store on dma1.
struct MatmulKernel {
  static constexpr int64_t kTile = 128, m = 64, n = 256, k = 2 * kTile;
  static constexpr int64_t aOffset[2] = {0, 2048}, bOffset[2] = {1024, 3072}, cOffset = 4096;

  ProgramBuilder b{"matmul"};
  int32_t a = b.tensor("a_t", {k, m}, DType::BF16);
  int32_t bMatrix = b.tensor("b", {k, n}, DType::BF16);
  int32_t c = b.tensor("c", {m, n}, DType::BF16, /*isOutput=*/true);
  isa::Instruction loads[4], matmuls[2], copy, store;

  MatmulKernel() {
    const uint32_t tileLoaded[2] = {b.semaphore(), b.semaphore()};
    const uint32_t accumulated = b.semaphore(), copied = b.semaphore();
    for (int t = 0; t < 2; ++t) {
      loads[2 * t] = testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, kTile, aOffset[t], m),
                                      testing::hbmTile(a, DType::BF16, m, t * kTile, kTile, 0, m));
      loads[2 * t + 1] = testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, kTile, bOffset[t], n),
                                          testing::hbmTile(bMatrix, DType::BF16, n, t * kTile, kTile, 0, n));
      b.add(Engine::Dma, loads[2 * t], {}, {tileLoaded[t]});
      b.add(Engine::Dma, loads[2 * t + 1], {}, {tileLoaded[t]});
    }
    for (int t = 0; t < 2; ++t) {
      isa::Instruction &mm = matmuls[t];
      mm.op = Opcode::Matmul;
      mm.accumulate = t > 0;
      mm.dst = testing::onChip(MemSpace::Psum, DType::F32, 0, m, 0, n);
      mm.src0 = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, kTile, aOffset[t], m);
      mm.src1 = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, kTile, bOffset[t], n);
      const std::vector<uint32_t> signals = t == 1 ? std::vector<uint32_t>{accumulated} : std::vector<uint32_t>{};
      b.add(Engine::Tensor, mm, {{tileLoaded[t], 2}}, signals);
    }
    copy.op = Opcode::TensorCopy;
    copy.dst = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, m, cOffset, n);
    copy.src0 = matmuls[0].dst;
    b.add(Engine::Vector, copy, {{accumulated, 1}}, {copied});
    store = testing::dmaCopy(testing::hbmTile(c, DType::BF16, n, 0, m, 0, n), copy.dst);
    b.add(Engine::Dma, store, {{copied, 1}}, {}, {}, /*queue=*/1);
  }

  /// Matmul t's time on the tensor engine, with its LoadStationary when nothing hid it.
  double matmulNs(int t, bool loadExposed, const isa::Target &target) const {
    const uint64_t load = loadExposed ? isa::loadStationaryCycles(matmuls[t], target) : 0;
    return testing::engineNs(matmuls[t], Engine::Tensor, target) + load / target.tensor.clockGhz;
  }

  std::vector<float> aValues = testing::randomValues(k * m, DType::BF16, 1);
  std::vector<float> bValues = testing::randomValues(k * n, DType::BF16, 2);

  HbmImage inputs() const {
    return {testing::encoded(DType::BF16, aValues), testing::encoded(DType::BF16, bValues), {}};
  }

  /// The plain C++ reference: FP32 sums over k in ascending order, rounded to BF16.
  std::vector<float> expected() const {
    std::vector<float> out(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          sum += aValues[kk * m + i] * bValues[kk * n + j];
        out[i * n + j] = isa::roundTo(DType::BF16, sum);
      }
    return out;
  }

  /// The model's arithmetic: dma0's four transfers back to back on DMA engine 0 (each its streaming time at the
  /// engine's efficiency for its bytes per partition + the fixed latency; the HBM share is far from full), matmul
  /// t starts when its tiles and the previous matmul are done (with its LoadStationary when it is the first or had
  /// to wait: no multiply hid the load), then the copy, then the store.
  double expectedTimeNs(const isa::Target &target) const {
    double dmaDone = 0, loaded[2];
    for (int t = 0; t < 2; ++t) {
      dmaDone += testing::dmaNs(loads[2 * t], target);
      dmaDone += testing::dmaNs(loads[2 * t + 1], target);
      loaded[t] = dmaDone;
    }
    double tensorDone = 0;
    for (int t = 0; t < 2; ++t)
      tensorDone = std::max(tensorDone, loaded[t]) + matmulNs(t, loaded[t] > tensorDone, target);
    const double copied = tensorDone + testing::engineNs(copy, Engine::Vector, target);
    return copied + testing::dmaNs(store, target);
  }
};

TEST(Simulator, MatmulPipelineComputesValuesAndTime) {
  MatmulKernel kernel;
  HbmImage hbm = kernel.inputs();
  const SimResult result = simulate(kernel.b.program, testing::trn2(), hbm);

  EXPECT_EQ(testing::decoded(DType::BF16, hbm[kernel.c]), kernel.expected());
  EXPECT_NEAR(result.timeNs, kernel.expectedTimeNs(testing::trn2()), kPsTolerance);
  EXPECT_EQ(result.instructions, 8u);
  EXPECT_EQ(result.flops, 2u * kernel.k * kernel.m * kernel.n);
  EXPECT_EQ(result.hbmBytes, uint64_t(kernel.k * kernel.m + kernel.k * kernel.n + kernel.m * kernel.n) * 2);

  ASSERT_EQ(result.streams.size(), 4u);
  EXPECT_EQ(result.streams[0].name, "dma0");
  EXPECT_EQ(result.streams[0].instructions, 4u);
  EXPECT_EQ(result.streams[1].name, "tensor");
  EXPECT_EQ(result.streams[1].engine, Engine::Tensor);
  EXPECT_EQ(result.streams[2].name, "vector");
  EXPECT_EQ(result.streams[3].name, "dma1");
  // Both matmuls wait for their tiles with the tensor engine idle, so both load their stationary unhidden.
  const double matmulNs =
      kernel.matmulNs(0, true, testing::trn2()) + kernel.matmulNs(1, true, testing::trn2());
  EXPECT_NEAR(result.streams[1].busyNs, matmulNs, kPsTolerance);
  // The vector engine waits from 0 until the accumulation is done, then works: its busy + wait is its end.
  const double copyNs = testing::engineNs(kernel.copy, Engine::Vector, testing::trn2());
  EXPECT_NEAR(result.streams[2].busyNs, copyNs, kPsTolerance);
  EXPECT_NEAR(result.streams[3].busyNs + result.streams[3].waitNs, result.timeNs, kPsTolerance);
}

TEST(Simulator, TimingOnlyGivesTheSameTimeAndComputesNothing) {
  MatmulKernel kernel;
  HbmImage withValues = kernel.inputs(), timingOnly = kernel.inputs();
  const SimResult full = simulate(kernel.b.program, testing::trn2(), withValues);
  const SimResult timed = simulate(kernel.b.program, testing::trn2(), timingOnly, {.computeValues = false});

  EXPECT_EQ(timed.timeNs, full.timeNs);
  EXPECT_EQ(timed.instructions, full.instructions);
  EXPECT_EQ(timed.flops, full.flops);
  EXPECT_EQ(timed.hbmBytes, full.hbmBytes);
  ASSERT_EQ(timed.streams.size(), full.streams.size());
  for (size_t s = 0; s < full.streams.size(); ++s) {
    EXPECT_EQ(timed.streams[s].busyNs, full.streams[s].busyNs);
    EXPECT_EQ(timed.streams[s].waitNs, full.streams[s].waitNs);
  }
  EXPECT_TRUE(std::ranges::all_of(timingOnly[kernel.c], [](std::byte x) { return x == std::byte{0}; }));
}

TEST(Simulator, RepeatedRunsInOneProcessAgree) {
  MatmulKernel kernel;
  HbmImage first = kernel.inputs(), second = kernel.inputs();
  const SimResult a = simulate(kernel.b.program, testing::trn2(), first);
  const SimResult b = simulate(kernel.b.program, testing::trn2(), second);
  EXPECT_EQ(a.timeNs, b.timeNs);
  EXPECT_EQ(a.instructions, b.instructions);
  EXPECT_EQ(first, second);
  ASSERT_EQ(a.streams.size(), b.streams.size());
  for (size_t s = 0; s < a.streams.size(); ++s) {
    EXPECT_EQ(a.streams[s].busyNs, b.streams[s].busyNs);
    EXPECT_EQ(a.streams[s].waitNs, b.streams[s].waitNs);
  }
}

/// A vector memset signals; a scalar activation waits for it.
ProgramBuilder producerConsumer(uint32_t waitCount) {
  ProgramBuilder b("handoff");
  const uint32_t ready = b.semaphore();
  isa::Instruction produce;
  produce.op = Opcode::Memset;
  produce.value = 2.0f;
  produce.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 0, 512);
  b.add(Engine::Vector, produce, {}, {ready}, {"producer.cpp", 7});
  isa::Instruction consume;
  consume.op = Opcode::Activation;
  consume.func = isa::ActFunc::Exp;
  consume.scale = 0.5f;
  consume.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 4096, 512);
  consume.src0 = produce.dst;
  b.add(Engine::Scalar, consume, {{ready, waitCount}}, {}, {"consumer.cpp", 42});
  return b;
}

TEST(Simulator, ConsumerStartsWhenProducerCompletes) {
  ProgramBuilder b = producerConsumer(1);
  HbmImage hbm;
  const SimResult result = simulate(b.program, testing::trn2(), hbm);
  const isa::Stream &vector = b.program.streams[0], &scalar = b.program.streams[1];
  const double produceNs = testing::engineNs(vector.instructions[0], Engine::Vector, testing::trn2());
  const double consumeNs = testing::engineNs(scalar.instructions[0], Engine::Scalar, testing::trn2());
  ASSERT_EQ(result.streams.size(), 2u);
  EXPECT_EQ(result.streams[1].name, "scalar");
  EXPECT_NEAR(result.streams[1].waitNs, produceNs, kPsTolerance);
  EXPECT_NEAR(result.streams[1].busyNs, consumeNs, kPsTolerance);
  EXPECT_NEAR(result.streams[0].waitNs, 0.0, kPsTolerance);
  EXPECT_NEAR(result.timeNs, produceNs + consumeNs, kPsTolerance);
}

/// Runs `program` expecting an Error; returns it.
Error simulationError(const isa::Program &program, HbmImage hbm = {}) {
  try {
    simulate(program, testing::trn2(), hbm);
  } catch (const Error &e) {
    return e;
  }
  ADD_FAILURE() << "simulate() did not throw";
  return Error("");
}

TEST(Simulator, DeadlockNamesTheBlockedStreamSemaphoreAndLine) {
  ProgramBuilder b = producerConsumer(2); // one signal never reaches two
  const Error e = simulationError(b.program);
  const std::string message = e.what();
  EXPECT_NE(message.find("deadlock"), std::string::npos) << message;
  EXPECT_NE(message.find("stream 'scalar', instruction 0 (activation)"), std::string::npos) << message;
  EXPECT_NE(message.find("consumer.cpp:42"), std::string::npos) << message;
  EXPECT_NE(message.find("waits for semaphore 0 to reach 2; it stands at 1"), std::string::npos) << message;
  EXPECT_EQ(message.find("'vector'"), std::string::npos) << "a finished stream is not blocked: " << message;
  EXPECT_EQ(e.where().file, "consumer.cpp");
  EXPECT_EQ(e.where().line, 42u);
  EXPECT_FALSE(e.hint().empty());
}

TEST(Simulator, DeadlockOfTwoEnginesWaitingOnEachOtherNamesBoth) {
  ProgramBuilder b("cycle");
  const uint32_t first = b.semaphore(), second = b.semaphore();
  isa::Instruction fill;
  fill.op = Opcode::Memset;
  fill.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 1, 0, 1);
  b.add(Engine::Vector, fill, {{second, 1}}, {first});
  fill.dst.offset = 64;
  b.add(Engine::GpSimd, fill, {{first, 1}}, {second});
  const std::string message = simulationError(b.program).what();
  EXPECT_NE(message.find("stream 'vector', instruction 0 (memset) waits for semaphore 1 to reach 1; it stands at 0"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("stream 'gpsimd', instruction 0 (memset) waits for semaphore 0 to reach 1; it stands at 0"),
            std::string::npos)
      << message;
}

TEST(Simulator, RunsNormallyAfterADeadlock) {
  ProgramBuilder stuck = producerConsumer(2), fine = producerConsumer(1);
  simulationError(stuck.program);
  HbmImage hbm;
  const SimResult result = simulate(fine.program, testing::trn2(), hbm);
  EXPECT_EQ(result.instructions, 2u);
}

TEST(Simulator, SbufByteRangeOutOfBounds) {
  ProgramBuilder b("oob");
  isa::Instruction fill;
  fill.op = Opcode::Memset;
  const int64_t partitionBytes = static_cast<int64_t>(testing::trn2().sbufBytesPerPartition);
  fill.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, partitionBytes - 8, 4);
  b.add(Engine::GpSimd, fill, {}, {}, {"oob.cpp", 3});
  const Error e = simulationError(b.program);
  const std::string message = e.what();
  EXPECT_NE(message.find("stream 'gpsimd', instruction 0 (memset)"), std::string::npos) << message;
  EXPECT_NE(message.find(fmt::format("operand dst touches bytes [{}, {}) of each sbuf partition, which holds {} bytes",
                                     partitionBytes - 8, partitionBytes + 8, partitionBytes)),
            std::string::npos)
      << message;
  EXPECT_EQ(e.where().str(), "oob.cpp:3");
}

TEST(Simulator, RunsNormallyAfterAnOutOfBoundsStop) {
  ProgramBuilder b("oob");
  isa::Instruction fill;
  fill.op = Opcode::Memset;
  fill.dst = testing::onChip(MemSpace::Psum, DType::F32, 0, 128, 0, 512);
  b.add(Engine::Vector, fill); // in bounds, runs first
  fill.dst.offset = static_cast<int64_t>(testing::trn2().psumBytesPerPartition);
  b.add(Engine::Vector, fill); // starts just past the end
  const std::string message = simulationError(b.program).what();
  EXPECT_NE(message.find("stream 'vector', instruction 1 (memset)"), std::string::npos) << message;
  ProgramBuilder fine = producerConsumer(1);
  HbmImage hbm;
  EXPECT_EQ(simulate(fine.program, testing::trn2(), hbm).instructions, 2u);
}

// A compute stream's instructions are checked in full once per different work (ProgramChecks.h): one that repeats an
// earlier one's work still has its semaphores checked, and one that differs from it in an operand alone is
// checked in full.
TEST(Simulator, RepeatedWorkStillHasItsSemaphoresAndNewOperandsChecked) {
  isa::Instruction fill;
  fill.op = Opcode::Memset;
  fill.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 0, 512);
  ProgramBuilder badSemaphore("repeat");
  badSemaphore.add(Engine::Vector, fill);
  badSemaphore.add(Engine::Vector, fill, {{7, 1}}); // the same work, a semaphore the program does not have
  std::string message = simulationError(badSemaphore.program).what();
  EXPECT_NE(message.find("stream 'vector', instruction 1 (memset): it waits on semaphore 7 but the program has 0"),
            std::string::npos)
      << message;

  ProgramBuilder badOperand("repeat");
  for (int i = 0; i < 3; ++i) // three of one work, then its offset moved past the end
    badOperand.add(Engine::Vector, fill);
  fill.dst.offset = static_cast<int64_t>(testing::trn2().sbufBytesPerPartition);
  badOperand.add(Engine::Vector, fill);
  message = simulationError(badOperand.program).what();
  EXPECT_NE(message.find("stream 'vector', instruction 3 (memset)"), std::string::npos) << message;
  EXPECT_NE(message.find("out of bounds"), std::string::npos) << message;
}

TEST(Simulator, ZeroClockIsAnErrorNamingTheEngine) {
  isa::Target target = testing::trn2();
  target.scalar.clockGhz = 0;
  ProgramBuilder b = producerConsumer(1);
  HbmImage hbm;
  try {
    simulate(b.program, target, hbm);
    ADD_FAILURE() << "simulate() did not throw";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("scalar engine's clock is 0 GHz"), std::string::npos) << e.what();
  }
}

TEST(Simulator, PartitionRangeOutOfBounds) {
  ProgramBuilder b("oob");
  isa::Instruction copy;
  copy.op = Opcode::TensorCopy;
  copy.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 64, 0, 16);
  copy.src0 = testing::onChip(MemSpace::Psum, DType::F32, 96, 64, 0, 16);
  b.add(Engine::Vector, copy);
  const std::string message = simulationError(b.program).what();
  EXPECT_NE(message.find("operand src0 touches psum partitions [96, 160) but psum has 128"), std::string::npos)
      << message;
}

TEST(Simulator, HbmTensorOutOfBounds) {
  ProgramBuilder b("oob");
  const int32_t x = b.tensor("x", {128, 64}, DType::BF16);
  // Rows 64..191 of a 128-row tensor.
  b.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, 128, 0, 64),
                                      testing::hbmTile(x, DType::BF16, 64, 64, 128, 0, 64)));
  const std::string message = simulationError(b.program).what();
  EXPECT_NE(message.find("stream 'dma0', instruction 0 (dma_copy)"), std::string::npos) << message;
  EXPECT_NE(message.find("operand src0 touches bytes [8192, 24576) of HBM tensor 'x', which holds 16384 bytes"),
            std::string::npos)
      << message;
}

// A DMA queue's transfers are checked in full once per shape (ProgramChecks.h: their work, offsets aside); a later
// transfer of a checked shape still has its bounds checked, on either side, and one of a new shape in full.
TEST(Simulator, TransfersOfACheckedShapeStillHaveTheirBoundsChecked) {
  ProgramBuilder hbmSide("oob");
  const int32_t x = hbmSide.tensor("x", {256, 64}, DType::BF16);
  for (int64_t row0 : {0, 128, 128 + 64}) // the third reads rows 192..319 of a 256-row tensor
    hbmSide.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, 128, 0, 64),
                                              testing::hbmTile(x, DType::BF16, 64, row0, 128, 0, 64)));
  std::string message = simulationError(hbmSide.program).what();
  EXPECT_NE(message.find("stream 'dma0', instruction 2 (dma_copy)"), std::string::npos) << message;
  EXPECT_NE(message.find("operand src0 touches bytes [24576, 40960) of HBM tensor 'x', which holds 32768 bytes"),
            std::string::npos)
      << message;

  ProgramBuilder sbufSide("oob");
  const int32_t y = sbufSide.tensor("y", {128, 64}, DType::BF16);
  const int64_t partitionBytes = static_cast<int64_t>(testing::trn2().sbufBytesPerPartition);
  for (int64_t offset : {int64_t{0}, int64_t{128}, partitionBytes - 64}) // the third's 128 bytes pass the end
    sbufSide.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, 128, offset, 64),
                                               testing::hbmTile(y, DType::BF16, 64, 0, 128, 0, 64)));
  message = simulationError(sbufSide.program).what();
  EXPECT_NE(message.find("stream 'dma0', instruction 2 (dma_copy)"), std::string::npos) << message;
  EXPECT_NE(message.find("out of bounds"), std::string::npos) << message;
}

// A DMA queue computes each shape's figures once (DmaQueue.h): transfers of two shapes, interleaved, each take what
// their own shape costs, as in a queue of that shape alone.
TEST(Simulator, InterleavedTransferShapesEachTakeTheirOwnTime) {
  auto transfer = [](ProgramBuilder &b, int32_t t, int64_t cols) {
    b.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, 128, 0, cols),
                                        testing::hbmTile(t, DType::BF16, 8192, 0, 128, 0, cols)));
  };
  auto timeOf = [](const ProgramBuilder &b) {
    HbmImage hbm;
    return simulate(b.program, testing::trn2(), hbm, {.computeValues = false}).timeNs;
  };
  ProgramBuilder wide("wide"), narrow("narrow"), both("both");
  for (ProgramBuilder *b : {&wide, &narrow, &both})
    b->tensor("x", {128, 8192}, DType::BF16);
  // 16 KiB per partition streams for longer than a transfer's fixed cost; 32 bytes take just the fixed cost.
  for (int i = 0; i < 2; ++i) {
    transfer(wide, 0, 8192);
    transfer(narrow, 0, 16);
    transfer(both, 0, 8192);
    transfer(both, 0, 16);
  }
  const double wideNs = timeOf(wide), narrowNs = timeOf(narrow);
  EXPECT_GT(wideNs, narrowNs);
  // One queue runs its transfers one at a time, so the mixed queue takes the sum of the two alone.
  EXPECT_NEAR(timeOf(both), wideNs + narrowNs, 1e-3);
}

TEST(Simulator, WrongHbmImageSizeIsAnError) {
  ProgramBuilder b("sizes");
  b.tensor("x", {4, 4}, DType::F32);
  const std::string message = simulationError(b.program, {std::vector<std::byte>(10)}).what();
  EXPECT_NE(message.find("'x'"), std::string::npos) << message;
  EXPECT_NE(message.find("64 bytes"), std::string::npos) << message;
}

TEST(Simulator, ShapeMismatchIsAnError) {
  ProgramBuilder b("shapes");
  isa::Instruction copy;
  copy.op = Opcode::TensorCopy;
  copy.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 64, 0, 16);
  copy.src0 = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 64, 64, 32);
  b.add(Engine::Vector, copy);
  const std::string message = simulationError(b.program).what();
  EXPECT_NE(message.find("they must match"), std::string::npos) << message;
}

/// One transfer per queue in `queues`, each [partitions x cols] F32 rows of its own HBM tensor into its own SBUF
/// bytes, from partition `start` (the next one's from `start + step`).
ProgramBuilder transfersOn(const std::vector<uint32_t> &queues, int64_t cols, uint32_t partitions = 128,
                           uint32_t step = 0) {
  ProgramBuilder b("bandwidth");
  for (size_t i = 0; i < queues.size(); ++i) {
    const int32_t x = b.tensor(fmt::format("x{}", i), {partitions, cols}, DType::F32);
    b.add(Engine::Dma,
          testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::F32, uint32_t(i) * step, partitions,
                                           int64_t(i) * cols * 4, cols),
                           testing::hbmTile(x, DType::F32, cols, 0, partitions, 0, cols)),
          {}, {}, {}, queues[i]);
  }
  return b;
}

TEST(Simulator, ATransferStreamsOnTheSixteenEnginesOfItsPartitionsAtOnce) {
  // trn3 (16 x 33 B/ns, below its HBM share): a [128 x 1024] F32 transfer, 8 partitions of 4 KiB on each engine.
  const isa::Target trn3 = isa::Target::find("trn3");
  ProgramBuilder b = transfersOn({0}, 1024);
  HbmImage hbm;
  const SimResult result = simulate(b.program, trn3, hbm);
  const double streamNs = 8 * 1024 * 4 / trn3.dma.bytesPerNsPerEngine;
  ASSERT_GT(streamNs, trn3.dma.fixedLatencyNs);
  EXPECT_NEAR(result.timeNs, streamNs, kPsTolerance); // the fixed cost overlaps the streaming
  EXPECT_NEAR(result.timeNs, testing::dmaNs(b.program.streams[0].instructions[0], trn3), kPsTolerance);
}

TEST(Simulator, TransfersOnTheSameEnginesShareThemAndOnOthersOverlap) {
  isa::Target trn3 = isa::Target::find("trn3");
  trn3.dma.descriptorNs = 0; // the engines alone (the descriptor generator would space the two transfers)
  // Two queues, both transfers on all 128 partitions: the second streams after the first on every engine.
  ProgramBuilder same = transfersOn({0, 1}, 1024);
  HbmImage hbm;
  const double streamNs = 8 * 1024 * 4 / trn3.dma.bytesPerNsPerEngine;
  EXPECT_NEAR(simulate(same.program, trn3, hbm).timeNs, 2 * streamNs, kPsTolerance);
  // Partitions 0-63 and 64-127: engines 0-7 and 8-15, at once.
  ProgramBuilder apart = transfersOn({0, 1}, 1024, 64, 64);
  HbmImage hbm2;
  const SimResult result = simulate(apart.program, trn3, hbm2);
  EXPECT_NEAR(result.timeNs, streamNs, kPsTolerance);
  EXPECT_NEAR(result.streams[0].busyNs, streamNs, kPsTolerance);
  EXPECT_NEAR(result.streams[1].busyNs, streamNs, kPsTolerance);
}

TEST(Simulator, AllSixteenEnginesTogetherAreCappedByTheCoresHbmShare) {
  // trn2: 16 engines x 23 B/ns = 368 GB/s, above the 2.9 TB/s / 8 cores = 362.5 GB/s HBM share.
  const isa::Target &t = testing::trn2();
  ASSERT_GT(t.dma.engines * t.dma.bytesPerNsPerEngine, t.dma.hbmGBps);
  std::vector<uint32_t> queues(t.dma.engines);
  for (uint32_t q = 0; q < t.dma.engines; ++q)
    queues[q] = q;
  const int64_t cols = 1024;
  ProgramBuilder b = transfersOn(queues, cols);
  HbmImage hbm;
  const SimResult result = simulate(b.program, t, hbm);
  const double bytes = double(t.dma.engines) * 128 * cols * 4;
  EXPECT_NEAR(result.timeNs, bytes / t.dma.hbmGBps, kPsTolerance);
  // trn3's share (4.7 TB/s / 8 = 587.5 GB/s) is above its 16 x 33 B/ns: there the engines bind.
  const isa::Target trn3 = isa::Target::find("trn3");
  ASSERT_LT(trn3.dma.engines * trn3.dma.bytesPerNsPerEngine, trn3.dma.hbmGBps);
  HbmImage hbm3;
  const SimResult onTrn3 = simulate(b.program, trn3, hbm3);
  EXPECT_NEAR(onTrn3.timeNs, bytes / (trn3.dma.engines * trn3.dma.bytesPerNsPerEngine), kPsTolerance);
}

TEST(Simulator, SmallTransfersTakeTheFixedCost) {
  // The same 256 KiB as [128 x 512] F32 (2 KiB per partition) and [128 x 128] F32 four times (512 B each), on one
  // queue: each small one streams in 178 ns on trn2 but takes the 600 ns fixed cost.
  const isa::Target &t = testing::trn2();
  HbmImage hbm;
  ProgramBuilder one = transfersOn({0}, 512);
  const SimResult big = simulate(one.program, t, hbm);
  EXPECT_NEAR(big.timeNs, testing::dmaNs(one.program.streams[0].instructions[0], t), kPsTolerance);
  ProgramBuilder small = transfersOn({0, 0, 0, 0}, 128);
  HbmImage hbm4;
  const SimResult four = simulate(small.program, t, hbm4);
  ASSERT_LT(8 * 128 * 4 / t.dma.bytesPerNsPerEngine, t.dma.fixedLatencyNs);
  EXPECT_NEAR(four.timeNs, 4 * std::max(t.dma.fixedLatencyNs, t.dma.descriptorNs), 4 * kPsTolerance);
  EXPECT_GT(four.timeNs, 3 * big.timeNs);
}

TEST(Simulator, TheDescriptorGeneratorIssuesOneTransferAtATime) {
  // Four small transfers on four queues ([128 x 32] F32, 16 KiB): their fixed costs overlap, their descriptor
  // slots do not.
  isa::Target t = testing::trn2();
  t.dma.descriptorNs = 1000;
  ProgramBuilder b = transfersOn({0, 1, 2, 3}, 32);
  HbmImage hbm;
  const SimResult result = simulate(b.program, t, hbm);
  EXPECT_NEAR(result.timeNs, 4 * t.dma.descriptorNs, kPsTolerance);
  t.dma.descriptorNs = 0;
  HbmImage hbm0;
  EXPECT_NEAR(simulate(b.program, t, hbm0).timeNs, t.dma.fixedLatencyNs, kPsTolerance);
}

TEST(Simulator, OneQueueRunsItsTransfersOneAtATime) {
  ProgramBuilder b("serial");
  const int32_t x = b.tensor("x", {256, 512}, DType::BF16);
  for (int t = 0; t < 2; ++t)
    b.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, 128, t * 1024, 512),
                                        testing::hbmTile(x, DType::BF16, 512, t * 128, 128, 0, 512)));
  HbmImage hbm;
  const SimResult result = simulate(b.program, testing::trn2(), hbm);
  const double oneNs = testing::dmaNs(b.program.streams[0].instructions[0], testing::trn2());
  EXPECT_NEAR(result.timeNs, 2 * oneNs, kPsTolerance);
  EXPECT_NEAR(result.streams[0].busyNs, 2 * oneNs, kPsTolerance);
}

TEST(Simulator, EmptyProgramTakesNoTime) {
  ProgramBuilder b("empty");
  HbmImage hbm;
  const SimResult result = simulate(b.program, testing::trn2(), hbm);
  EXPECT_EQ(result.timeNs, 0.0);
  EXPECT_EQ(result.instructions, 0u);
}

} // namespace
} // namespace tessera::sim
