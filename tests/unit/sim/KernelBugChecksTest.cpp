/// The simulator's kernel-bug checks (SimOptions::checks): races between streams that no semaphore chain orders,
/// and reads of never-written memory, on small programs built by hand. Compiled kernels, and each of their
/// semaphores taken away in turn, are in tests/unit/e2e/RaceTest.cpp.

#include "ProgramBuilder.h"

#include "tessera/isa/Error.h"
#include "tessera/sim/Simulator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using isa::Opcode;
using testing::ProgramBuilder;

isa::AccessPattern sbuf(int64_t offset, int64_t n, uint32_t partition0 = 0, uint32_t partitions = 128) {
  return testing::onChip(MemSpace::Sbuf, DType::F32, partition0, partitions, offset, n);
}

isa::Instruction memset(const isa::AccessPattern &dst, float value = 1.0f) {
  isa::Instruction inst;
  inst.op = Opcode::Memset;
  inst.value = value;
  inst.dst = dst;
  return inst;
}

isa::Instruction copy(const isa::AccessPattern &dst, const isa::AccessPattern &src) {
  isa::Instruction inst;
  inst.op = Opcode::TensorCopy;
  inst.dst = dst;
  inst.src0 = src;
  return inst;
}

/// The tile every test races on: SBUF partitions [0, 128), bytes [0, 2048).
const isa::AccessPattern kTile = sbuf(0, 512);

/// The vector engine fills kTile and signals; the GpSimd engine first keeps itself busy elsewhere (so the fill
/// has certainly happened in simulated time), then reads kTile, after waiting for the fill only if `synchronised`.
ProgramBuilder readAfterFill(bool synchronised) {
  ProgramBuilder b("race");
  const uint32_t filled = b.semaphore();
  b.add(Engine::Vector, memset(kTile), {}, {filled}, {"producer.cpp", 7});
  b.add(Engine::GpSimd, memset(sbuf(16384, 8192)));
  std::vector<isa::SemWait> waits;
  if (synchronised)
    waits.push_back({filled, 1});
  b.add(Engine::GpSimd, copy(sbuf(4096, 512), kTile), waits, {}, {"consumer.cpp", 42});
  return b;
}

/// Runs `program` expecting an Error; returns its message (and the Error through `error`).
std::string failure(const isa::Program &program, HbmImage hbm = {}, Error *error = nullptr,
                    const SimOptions &options = {}) {
  try {
    simulate(program, testing::trn2(), hbm, options);
  } catch (const Error &e) {
    if (error)
      *error = e;
    return e.what();
  }
  ADD_FAILURE() << "simulate() did not throw";
  return {};
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(KernelBugChecks, ReadAfterUnorderedWriteIsARace) {
  ProgramBuilder b = readAfterFill(false);
  Error error("");
  const std::string message = failure(b.program, {}, &error);
  EXPECT_TRUE(contains(message, "race in kernel 'race' at ")) << message;
  EXPECT_TRUE(contains(message, "(read after write)")) << message;
  EXPECT_TRUE(contains(message, "stream 'gpsimd', instruction 1 (tensor_copy) at consumer.cpp:42 reads sbuf "
                                "partitions [0, 128) bytes [0, 2048) (src0)"))
      << message;
  EXPECT_TRUE(contains(message, "which stream 'vector', instruction 0 (memset) at producer.cpp:7 writes")) << message;
  EXPECT_TRUE(contains(message, "no semaphore orders the two")) << message;
  EXPECT_EQ(error.where().str(), "consumer.cpp:42");
  EXPECT_FALSE(error.hint().empty());
  // Reported when the read starts: after the GpSimd engine's first instruction.
  const double busyNs = testing::engineNs(b.program.streams[1].instructions[0], Engine::GpSimd, testing::trn2());
  EXPECT_TRUE(contains(message, fmt::format("at {} ns", std::round(busyNs * 1000) / 1000))) << message;
}

TEST(KernelBugChecks, TheSameReadAfterAWaitIsClean) {
  ProgramBuilder b = readAfterFill(true);
  HbmImage hbm;
  EXPECT_EQ(simulate(b.program, testing::trn2(), hbm).instructions, 3u);
}

TEST(KernelBugChecks, ChecksOffRunsTheRaceAndNeverChangeTime) {
  ProgramBuilder racy = readAfterFill(false), clean = readAfterFill(true);
  HbmImage hbm;
  EXPECT_EQ(simulate(racy.program, testing::trn2(), hbm, {.checks = false}).instructions, 3u);
  const SimResult checked = simulate(clean.program, testing::trn2(), hbm);
  const SimResult unchecked = simulate(clean.program, testing::trn2(), hbm, {.checks = false});
  const SimResult timingOnly = simulate(clean.program, testing::trn2(), hbm, {.computeValues = false});
  EXPECT_EQ(checked.timeNs, unchecked.timeNs);
  EXPECT_EQ(checked.timeNs, timingOnly.timeNs);
  for (size_t s = 0; s < checked.streams.size(); ++s) {
    EXPECT_EQ(checked.streams[s].busyNs, unchecked.streams[s].busyNs);
    EXPECT_EQ(checked.streams[s].waitNs, unchecked.streams[s].waitNs);
  }
}

TEST(KernelBugChecks, TimingOnlyRunsCheckToo) {
  ProgramBuilder b = readAfterFill(false);
  EXPECT_TRUE(contains(failure(b.program, {}, nullptr, {.computeValues = false}), "race in kernel")) << "timing only";
}

/// vector fills kTile; scalar then reads it (waiting for the fill); gpsimd, also after the fill, busies itself
/// and overwrites kTile without waiting for the scalar engine's read.
TEST(KernelBugChecks, WriteAfterUnorderedReadIsARace) {
  ProgramBuilder b("war");
  const uint32_t filled = b.semaphore();
  b.add(Engine::Vector, memset(kTile), {}, {filled, filled});
  b.add(Engine::Scalar, copy(sbuf(4096, 512), kTile), {{filled, 1}}, {}, {"war.cpp", 5});
  b.add(Engine::GpSimd, memset(sbuf(16384, 8192)), {{filled, 2}});
  b.add(Engine::GpSimd, memset(kTile, 3.0f), {}, {}, {"war.cpp", 9});
  const std::string message = failure(b.program);
  EXPECT_TRUE(contains(message, "(write after read)")) << message;
  EXPECT_TRUE(contains(message, "stream 'gpsimd', instruction 1 (memset) at war.cpp:9 writes sbuf partitions [0, "
                                "128) bytes [0, 2048) (dst), which stream 'scalar', instruction 0 (tensor_copy) at "
                                "war.cpp:5 reads"))
      << message;
}

TEST(KernelBugChecks, WriteAfterUnorderedWriteIsARaceOnOverlappingBytes) {
  ProgramBuilder b("waw");
  b.add(Engine::Vector, memset(kTile));
  b.add(Engine::GpSimd, memset(sbuf(16384, 8192)));
  b.add(Engine::GpSimd, memset(sbuf(1024, 512, 64, 8))); // partitions [64, 72), bytes [1024, 3072)
  const std::string message = failure(b.program);
  EXPECT_TRUE(contains(message, "(write after write)")) << message;
  EXPECT_TRUE(contains(message, "writes sbuf partitions [64, 72) bytes [1024, 2048) (dst), which stream 'vector', "
                                "instruction 0 (memset) writes"))
      << message;
}

TEST(KernelBugChecks, DisjointPartitionsDoNotRace) {
  ProgramBuilder b("disjoint");
  b.add(Engine::Vector, memset(sbuf(0, 512, 0, 64)));
  b.add(Engine::GpSimd, memset(sbuf(0, 512, 64, 64)));
  b.add(Engine::GpSimd, memset(sbuf(2048, 512)));
  HbmImage hbm;
  EXPECT_EQ(simulate(b.program, testing::trn2(), hbm).instructions, 3u);
}

/// gpsimd writes kTile and signals `first`; vector waits for it, works, signals `second`; scalar waits for
/// `second` only, then reads and overwrites kTile: ordered after gpsimd through the vector engine.
TEST(KernelBugChecks, AChainOfTwoSemaphoresOrdersItsEnds) {
  ProgramBuilder b("chain");
  const uint32_t first = b.semaphore(), second = b.semaphore();
  b.add(Engine::GpSimd, memset(kTile), {}, {first});
  b.add(Engine::Vector, memset(sbuf(8192, 512)), {{first, 1}}, {second});
  b.add(Engine::Scalar, copy(sbuf(4096, 512), kTile), {{second, 1}});
  b.add(Engine::Scalar, copy(kTile, sbuf(4096, 512)));
  HbmImage hbm;
  EXPECT_EQ(simulate(b.program, testing::trn2(), hbm).instructions, 4u);
}

/// The same chain, but the vector engine signals before it waits: nothing orders gpsimd's write and the read.
TEST(KernelBugChecks, ASignalBeforeTheWaitDoesNotChain) {
  ProgramBuilder b("broken-chain");
  const uint32_t first = b.semaphore(), second = b.semaphore();
  b.add(Engine::GpSimd, memset(sbuf(16384, 8192)));
  b.add(Engine::GpSimd, memset(kTile), {}, {first});
  b.add(Engine::Vector, memset(sbuf(65536, 8192)), {}, {second});
  b.add(Engine::Vector, memset(sbuf(10240, 512)), {{first, 1}});
  // The scalar engine writes nothing without reading (NKI has no scalar-engine memset): it busies itself copying
  // the vector engine's first tile, which `second` orders, long enough for gpsimd's write, then reads kTile.
  b.add(Engine::Scalar, copy(sbuf(131072, 8192), sbuf(65536, 8192)), {{second, 1}});
  b.add(Engine::Scalar, copy(sbuf(131072, 8192), sbuf(65536, 8192)));
  b.add(Engine::Scalar, copy(sbuf(4096, 512), kTile));
  const std::string message = failure(b.program);
  EXPECT_TRUE(contains(message, "race in kernel 'broken-chain'")) << message;
  EXPECT_TRUE(contains(message, "stream 'gpsimd', instruction 1 (memset)")) << message;
}

/// Two streams signal one semaphore; a wait for both signals orders the waiter after both.
TEST(KernelBugChecks, AWaitForEverySignalOfASharedSemaphoreOrdersAfterAllSignallers) {
  ProgramBuilder b("shared");
  const uint32_t done = b.semaphore();
  b.add(Engine::Vector, memset(sbuf(0, 512, 0, 64)), {}, {done});
  b.add(Engine::GpSimd, memset(sbuf(0, 512, 64, 64)), {}, {done});
  b.add(Engine::Scalar, copy(sbuf(4096, 512), kTile), {{done, 2}});
  HbmImage hbm;
  EXPECT_EQ(simulate(b.program, testing::trn2(), hbm).instructions, 3u);
}

TEST(KernelBugChecks, ReadOfNeverWrittenSbufIsReported) {
  ProgramBuilder b("uninit");
  b.add(Engine::Vector, memset(sbuf(0, 256)));                         // bytes [0, 1024) of every partition
  b.add(Engine::Vector, copy(sbuf(8192, 512), kTile), {}, {}, {"uninit.cpp", 12}); // reads [0, 2048)
  Error error("");
  const std::string message = failure(b.program, {}, &error);
  EXPECT_TRUE(contains(message, "uninitialised read in kernel 'uninit'")) << message;
  EXPECT_TRUE(contains(message, "stream 'vector', instruction 1 (tensor_copy) at uninit.cpp:12 reads sbuf partition "
                                "0 bytes [1024, 2048) (src0), which no instruction has written"))
      << message;
  EXPECT_EQ(error.where().str(), "uninit.cpp:12");
}

TEST(KernelBugChecks, ReadOfNeverWrittenPsumIsReported) {
  ProgramBuilder b("uninit-psum");
  b.add(Engine::Vector, copy(kTile, testing::onChip(MemSpace::Psum, DType::F32, 0, 128, 0, 512)));
  const std::string message = failure(b.program);
  EXPECT_TRUE(contains(message, "reads psum partition 0 bytes [0, 2048) (src0), which no instruction has written"))
      << message;
}

TEST(KernelBugChecks, StridedWritesCountOnlyTheBytesTheyTouch) {
  ProgramBuilder b("strided");
  isa::AccessPattern everyOther = sbuf(0, 256, 0, 1);
  everyOther.strides[0] = 2; // elements 0, 2, 4, ...: bytes [0, 4), [8, 12), ...
  b.add(Engine::Vector, memset(everyOther));
  b.add(Engine::Vector, copy(sbuf(4096, 256, 0, 1), everyOther)); // the same elements: fine
  b.add(Engine::Vector, copy(sbuf(8192, 2, 0, 1), sbuf(0, 2, 0, 1)));
  const std::string message = failure(b.program);
  EXPECT_TRUE(contains(message, "instruction 2 (tensor_copy) reads sbuf partition 0 bytes [4, 8) (src0)")) << message;
}

/// Rows [0, 64) of y are stored; reading all 128 rows back finds row 64 ([16384, 16640)) unwritten.
TEST(KernelBugChecks, ReadOfAnUnwrittenHbmOutputIsReportedAndInputsCountAsWritten) {
  ProgramBuilder b("readback");
  const int32_t x = b.tensor("x", {128, 64}, DType::F32);
  const int32_t y = b.tensor("y", {128, 64}, DType::F32, /*isOutput=*/true);
  b.add(Engine::Dma, testing::dmaCopy(sbuf(0, 64), testing::hbmTile(x, DType::F32, 64, 0, 128, 0, 64)));
  b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(y, DType::F32, 64, 0, 64, 0, 64), sbuf(0, 64, 0, 64)));
  b.add(Engine::Dma, testing::dmaCopy(sbuf(1024, 64), testing::hbmTile(y, DType::F32, 64, 0, 128, 0, 64)), {}, {},
        {"readback.cpp", 3});
  const std::string message = failure(b.program);
  EXPECT_TRUE(contains(message, "stream 'dma0', instruction 2 (dma_copy) at readback.cpp:3 reads hbm tensor 'y' "
                                "bytes [16384, 16640) (src0), which no instruction has written (an output tensor "
                                "starts unwritten)"))
      << message;
}

TEST(KernelBugChecks, DmaQueuesRaceOnHbm) {
  ProgramBuilder b("queues");
  const int32_t y = b.tensor("y", {128, 64}, DType::F32, /*isOutput=*/true);
  const uint32_t filled = b.semaphore();
  b.add(Engine::Vector, memset(sbuf(0, 64)), {}, {filled, filled});
  for (uint32_t queue = 0; queue < 2; ++queue)
    b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(y, DType::F32, 64, 64 * queue, 64, 0, 64),
                                        sbuf(0, 64, 0, 64)),
          {{filled, 1 + queue}}, {}, {}, queue);
  // Row blocks [0, 64) and [64, 128): disjoint, no race. A third transfer on dma1 then rewrites rows [32, 96).
  b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(y, DType::F32, 64, 32, 64, 0, 64), sbuf(0, 64, 0, 64)), {}, {},
        {}, 1);
  const std::string message = failure(b.program);
  EXPECT_TRUE(contains(message, "(write after write)")) << message;
  EXPECT_TRUE(contains(message, "stream 'dma1', instruction 1 (dma_copy) writes hbm tensor 'y' bytes [8192, 16384) "
                                "(dst), which stream 'dma0', instruction 0 (dma_copy) writes"))
      << message;
}

TEST(KernelBugChecks, RunsNormallyAfterARace) {
  ProgramBuilder racy = readAfterFill(false), clean = readAfterFill(true);
  failure(racy.program);
  HbmImage hbm;
  EXPECT_EQ(simulate(clean.program, testing::trn2(), hbm).instructions, 3u);
}

} // namespace
} // namespace tessera::sim
