/// Print instructions (tsr::device_print): what the simulator logs, when, at no cost. The structured reports of
/// kernel bugs (KernelBugError): race, uninitialised read, out of bounds, deadlock, and a matmul accumulating onto
/// PSUM that a non-matmul instruction wrote, which is undefined on NeuronCore v2/v3 (the target file says so).

#include "ProgramBuilder.h"

#include "tessera/isa/Error.h"
#include "tessera/isa/Semantics.h"
#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

#include <optional>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using isa::Opcode;
using testing::ProgramBuilder;

isa::AccessPattern sbuf(int64_t offset, int64_t n, uint32_t partitions = 128, uint32_t partition0 = 0) {
  return testing::onChip(MemSpace::Sbuf, DType::F32, partition0, partitions, offset, n);
}
isa::AccessPattern psum(int64_t offset, int64_t n, uint32_t partitions = 128, uint32_t partition0 = 0) {
  return testing::onChip(MemSpace::Psum, DType::F32, partition0, partitions, offset, n);
}

isa::Instruction memset(const isa::AccessPattern &dst, float value) {
  isa::Instruction inst;
  inst.op = Opcode::Memset;
  inst.value = value;
  inst.dst = dst;
  return inst;
}

isa::Instruction print(ProgramBuilder &b, const std::string &name, const isa::AccessPattern &src) {
  isa::Instruction inst;
  inst.op = Opcode::Print;
  inst.src0 = src;
  inst.text = static_cast<uint32_t>(b.program.texts.size());
  b.program.texts.push_back(name);
  return inst;
}

/// stationary [K=128, M=128] at SBUF 0, moving [128, 512] at SBUF 512, into `dst` (PSUM [128, 512]).
isa::Instruction matmul(const isa::AccessPattern &dst, bool accumulate) {
  isa::Instruction inst;
  inst.op = Opcode::Matmul;
  inst.src0 = sbuf(0, 128);
  inst.src1 = sbuf(512, 512);
  inst.dst = dst;
  inst.accumulate = accumulate;
  return inst;
}

/// The KernelBugError `program` throws on `target`.
std::optional<KernelBugError> bugOf(const isa::Program &program, const isa::Target &target = testing::trn2(),
                                    const SimOptions &options = {}) {
  HbmImage hbm;
  try {
    simulate(program, target, hbm, options);
  } catch (const KernelBugError &e) {
    return e;
  }
  ADD_FAILURE() << "simulate() reported no kernel bug";
  return std::nullopt;
}

// ---- device_print ------------------------------------------------------------------------------------------

// The vector engine fills a [4, 3] tile with 2.5 and signals; gpsimd prints it after waiting: the log holds the
// values, the time the fill completed, the engine and the line; the print takes no engine time.
TEST(DevicePrint, LogsValuesTimeEngineAndLine) {
  ProgramBuilder b("print");
  const uint32_t filled = b.semaphore();
  const isa::Instruction fill = memset(sbuf(0, 3, 4), 2.5f);
  b.add(Engine::Vector, fill, {}, {filled});
  b.add(Engine::GpSimd, print(b, "tile", sbuf(0, 3, 4)), {{filled, 1}}, {}, {"kernel.cpp", 12});
  HbmImage hbm;
  const SimResult result = simulate(b.program, testing::trn2(), hbm);
  ASSERT_EQ(result.prints.size(), 1u);
  const DevicePrint &p = result.prints[0];
  EXPECT_EQ(p.name, "tile");
  EXPECT_EQ(p.stream, "gpsimd");
  EXPECT_EQ(p.index, 0u);
  EXPECT_EQ(p.loc.str(), "kernel.cpp:12");
  EXPECT_EQ(p.dtype, DType::F32);
  EXPECT_EQ(p.shape, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(p.values, std::vector<float>(12, 2.5f));
  const double fillNs = testing::engineNs(fill, Engine::Vector, testing::trn2());
  EXPECT_NEAR(p.timeNs, fillNs, 1e-3);
  EXPECT_NEAR(result.timeNs, fillNs, 1e-3) << "a print adds no time";
  ASSERT_EQ(result.streams.size(), 2u);
  EXPECT_EQ(result.streams[1].name, "gpsimd");
  EXPECT_EQ(result.streams[1].busyNs, 0.0) << "gpsimd ran only the print";
}

// Values decode from the tile's dtype; strided patterns print in row-major order; several prints keep their
// simulated-time order.
TEST(DevicePrint, DecodesDtypeAndKeepsTimeOrder) {
  ProgramBuilder b("print");
  isa::AccessPattern bf16 = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, 2, 0, 4);
  b.add(Engine::Vector, memset(bf16, 1.00390625f)); // rounds to 1.0 in bf16
  b.add(Engine::Vector, print(b, "first", bf16));
  b.add(Engine::Vector, memset(bf16, -3.0f));
  isa::AccessPattern everyOther = bf16;
  everyOther.sizes[0] = 2;
  everyOther.strides[0] = 2;
  b.add(Engine::Vector, print(b, "second", everyOther));
  HbmImage hbm;
  const SimResult result = simulate(b.program, testing::trn2(), hbm);
  ASSERT_EQ(result.prints.size(), 2u);
  EXPECT_EQ(result.prints[0].name, "first");
  EXPECT_EQ(result.prints[0].values, std::vector<float>(8, 1.0f));
  EXPECT_EQ(result.prints[1].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(result.prints[1].values, std::vector<float>(4, -3.0f));
  EXPECT_LT(result.prints[0].timeNs, result.prints[1].timeNs);
}

TEST(DevicePrint, TimingOnlyLogsTimesWithoutValues) {
  ProgramBuilder b("print");
  b.add(Engine::Vector, memset(sbuf(0, 8), 1.0f));
  b.add(Engine::Scalar, print(b, "t", sbuf(0, 8)));
  HbmImage hbm;
  const SimResult result = simulate(b.program, testing::trn2(), hbm, {.computeValues = false, .checks = false});
  ASSERT_EQ(result.prints.size(), 1u);
  EXPECT_TRUE(result.prints[0].values.empty());
  EXPECT_EQ(result.prints[0].shape, (std::vector<int64_t>{128, 8}));
}

// A print reads its tile like any other instruction: unwritten bytes and an unordered writer are kernel bugs.
TEST(DevicePrint, IsCheckedLikeAnyReader) {
  ProgramBuilder unwritten("print");
  unwritten.add(Engine::Vector, print(unwritten, "t", sbuf(0, 8)));
  const auto uninit = bugOf(unwritten.program);
  ASSERT_TRUE(uninit);
  EXPECT_EQ(uninit->bug().kind, BugKind::UninitialisedRead);
  EXPECT_EQ(uninit->bug().instructions.at(0).op, Opcode::Print);
  EXPECT_EQ(uninit->bug().instructions.at(0).action, "reads src0");

  ProgramBuilder racy("print");
  racy.add(Engine::Vector, memset(sbuf(0, 8), 1.0f));
  racy.add(Engine::GpSimd, memset(sbuf(4096, 8192), 1.0f)); // busy long enough for the fill to have happened
  racy.add(Engine::GpSimd, print(racy, "t", sbuf(0, 8)));
  const auto race = bugOf(racy.program);
  ASSERT_TRUE(race);
  EXPECT_EQ(race->bug().kind, BugKind::Race);
  EXPECT_EQ(race->bug().detail, "read after write");
}

TEST(DevicePrint, ReadValuesDecodesEveryElement) {
  std::vector<std::byte> memory(4 * 64);
  const std::vector<float> values{1, 2, 3, 4, 5, 6, 7, 8};
  for (uint32_t p = 0; p < 2; ++p)
    isa::encode(DType::F16, values.data() + 4 * p, memory.data() + p * 64 + 16, 4);
  isa::Memories mem;
  mem.sbuf = memory.data();
  mem.sbufPartitionBytes = 64;
  EXPECT_EQ(isa::readValues(testing::onChip(MemSpace::Sbuf, DType::F16, 0, 2, 16, 4), mem), values);
}

// ---- Structured reports of kernel bugs ----------------------------------------------------------------------

TEST(KernelBugReport, RaceNamesBothInstructionsTheOverlapAndTheTime) {
  ProgramBuilder b("race");
  const isa::Instruction busy = memset(sbuf(16384, 8192), 0.0f);
  b.add(Engine::Vector, memset(sbuf(0, 512), 1.0f), {}, {}, {"k.cpp", 3});
  b.add(Engine::GpSimd, busy);
  b.add(Engine::GpSimd, memset(sbuf(1024, 512, 64), 2.0f), {}, {}, {"k.cpp", 9});
  const auto e = bugOf(b.program);
  ASSERT_TRUE(e);
  const KernelBug &bug = e->bug();
  EXPECT_EQ(bug.kind, BugKind::Race);
  EXPECT_EQ(bug.detail, "write after write");
  EXPECT_NEAR(bug.timeNs, testing::engineNs(busy, Engine::GpSimd, testing::trn2()), 1e-3);
  ASSERT_EQ(bug.instructions.size(), 2u);
  EXPECT_EQ(bug.instructions[0].stream, "gpsimd");
  EXPECT_EQ(bug.instructions[0].engine, Engine::GpSimd);
  EXPECT_EQ(bug.instructions[0].index, 1u);
  EXPECT_EQ(bug.instructions[0].op, Opcode::Memset);
  EXPECT_EQ(bug.instructions[0].loc.str(), "k.cpp:9");
  EXPECT_EQ(bug.instructions[0].action, "writes dst");
  EXPECT_EQ(bug.instructions[1].stream, "vector");
  EXPECT_EQ(bug.instructions[1].loc.str(), "k.cpp:3");
  EXPECT_EQ(bug.instructions[1].action, "writes");
  EXPECT_EQ(bug.region.memory, "sbuf");
  EXPECT_EQ(bug.region.p0, 0u);
  EXPECT_EQ(bug.region.p1, 64u);
  EXPECT_EQ(bug.region.b0, 1024);
  EXPECT_EQ(bug.region.b1, 2048);
  EXPECT_EQ(name(bug.kind), "race");
}

TEST(KernelBugReport, OutOfBoundsNamesTheInstructionAndTheRange) {
  ProgramBuilder b("oob");
  const int64_t end = static_cast<int64_t>(testing::trn2().sbufBytesPerPartition);
  b.add(Engine::GpSimd, memset(sbuf(end - 8, 4), 1.0f), {}, {}, {"oob.cpp", 3});
  const auto e = bugOf(b.program);
  ASSERT_TRUE(e);
  EXPECT_NE(std::string(e->what()).find("out of bounds in kernel 'oob' at 0 ns: stream 'gpsimd', instruction 0 "
                                        "(memset): operand dst touches bytes"),
            std::string::npos)
      << e->what();
  const KernelBug &bug = e->bug();
  EXPECT_EQ(bug.kind, BugKind::OutOfBounds);
  ASSERT_EQ(bug.instructions.size(), 1u);
  EXPECT_EQ(bug.instructions[0].engine, Engine::GpSimd);
  EXPECT_EQ(bug.instructions[0].action, "writes dst");
  EXPECT_EQ(bug.instructions[0].loc.str(), "oob.cpp:3");
  EXPECT_EQ(bug.region.memory, "sbuf");
  EXPECT_EQ(bug.region.b0, end - 8);
  EXPECT_EQ(bug.region.b1, end + 8);
}

TEST(KernelBugReport, DeadlockNamesEveryBlockedInstruction) {
  ProgramBuilder b("stuck");
  const uint32_t never = b.semaphore();
  b.add(Engine::Vector, memset(sbuf(0, 8), 1.0f), {{never, 1}}, {}, {"k.cpp", 4});
  b.add(Engine::GpSimd, memset(sbuf(64, 8), 1.0f), {{never, 2}}, {}, {"k.cpp", 5});
  const auto e = bugOf(b.program);
  ASSERT_TRUE(e);
  const KernelBug &bug = e->bug();
  EXPECT_EQ(bug.kind, BugKind::Deadlock);
  EXPECT_FALSE(bug.region.known());
  ASSERT_EQ(bug.instructions.size(), 2u);
  EXPECT_EQ(bug.instructions[0].stream, "vector");
  EXPECT_EQ(bug.instructions[0].action, "waits for semaphore 0 to reach 1; it stands at 0");
  EXPECT_EQ(bug.instructions[1].stream, "gpsimd");
  EXPECT_EQ(bug.instructions[1].loc.str(), "k.cpp:5");
}

// ---- Accumulating onto PSUM that a non-matmul instruction wrote ---------------------------------------------

/// GpSimd fills the operands in SBUF; then `init` writes PSUM on the vector engine; then the tensor engine runs
/// `matmuls` (the first at line 20, the next at 21...), each step waiting for the one before.
ProgramBuilder accumulation(const isa::Instruction &init, const std::vector<isa::Instruction> &matmuls) {
  ProgramBuilder b("acc");
  const uint32_t ready = b.semaphore();
  b.add(Engine::GpSimd, memset(sbuf(0, 640), 1.0f), {}, {ready});
  b.add(Engine::Vector, init, {{ready, 1}}, {ready}, {"acc.cpp", 10});
  for (size_t i = 0; i < matmuls.size(); ++i)
    b.add(Engine::Tensor, matmuls[i], i == 0 ? std::vector<isa::SemWait>{{ready, 2}} : std::vector<isa::SemWait>{},
          {}, {"acc.cpp", static_cast<uint32_t>(20 + i)});
  return b;
}

TEST(PsumAccumulation, OntoMemsetIsReportedOnTrn1AndTrn2) {
  for (const char *name : {"trn1", "trn2"}) {
    SCOPED_TRACE(name);
    const isa::Target target = isa::Target::find(name);
    ProgramBuilder b = accumulation(memset(psum(0, 512), 0.0f), {matmul(psum(0, 512), true)});
    const auto e = bugOf(b.program, target);
    ASSERT_TRUE(e);
    const std::string message = e->what();
    EXPECT_NE(message.find("accumulate onto non-matmul data in kernel 'acc' at "), std::string::npos) << message;
    EXPECT_NE(message.find("stream 'tensor', instruction 0 (matmul) at acc.cpp:20 accumulates into psum partitions "
                           "[0, 128) bytes [0, 2048) (dst), which stream 'vector', instruction 0 (memset) at "
                           "acc.cpp:10 wrote"),
              std::string::npos)
        << message;
    EXPECT_EQ(e->where().str(), "acc.cpp:20");
    const KernelBug &bug = e->bug();
    EXPECT_EQ(bug.kind, BugKind::AccumulateOntoNonMatmul);
    ASSERT_EQ(bug.instructions.size(), 2u);
    EXPECT_EQ(bug.instructions[0].engine, Engine::Tensor);
    EXPECT_EQ(bug.instructions[0].action, "accumulates into dst");
    EXPECT_EQ(bug.instructions[1].engine, Engine::Vector);
    EXPECT_EQ(bug.instructions[1].op, Opcode::Memset);
    EXPECT_EQ(bug.region.memory, "psum");
    EXPECT_EQ(bug.region.b1, 2048);
    EXPECT_GT(bug.timeNs, 0.0);
  }
}

TEST(PsumAccumulation, DefinedOnATargetThatSaysSo) {
  isa::Target target = testing::trn2();
  target.tensor.accumulateOntoNonMatmulDefined = true;
  ProgramBuilder b = accumulation(memset(psum(0, 512), 0.0f), {matmul(psum(0, 512), true)});
  HbmImage hbm;
  EXPECT_EQ(simulate(b.program, target, hbm).instructions, 3u);
}

TEST(PsumAccumulation, AGroupStartedByAMatmulIsClean) {
  ProgramBuilder b = accumulation(memset(psum(4096, 512), 0.0f), // another bank
                                  {matmul(psum(0, 512), false), matmul(psum(0, 512), true)});
  HbmImage hbm;
  EXPECT_EQ(simulate(b.program, testing::trn2(), hbm).instructions, 4u);
}

// A matmul that overwrites part of the memset region leaves the rest memset: accumulating there is reported,
// with the part still memset as the region; accumulating onto the overwritten part is not.
TEST(PsumAccumulation, TracksWhatAMatmulOverwrote) {
  ProgramBuilder clean = accumulation(memset(psum(0, 1024), 0.0f), // two banks
                                      {matmul(psum(0, 512), false), matmul(psum(0, 512), true)});
  HbmImage hbm;
  EXPECT_EQ(simulate(clean.program, testing::trn2(), hbm).instructions, 4u);

  ProgramBuilder bad = accumulation(memset(psum(0, 1024), 0.0f),
                                    {matmul(psum(0, 512), false), matmul(psum(2048, 512), true)});
  const auto e = bugOf(bad.program);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->bug().instructions.at(0).loc.str(), "acc.cpp:21");
  EXPECT_EQ(e->bug().region.b0, 2048);
  EXPECT_EQ(e->bug().region.b1, 4096);
}

TEST(PsumAccumulation, OntoACopyIsReportedAndChecksOffSkipIt) {
  isa::Instruction copy;
  copy.op = Opcode::TensorCopy;
  copy.src0 = sbuf(0, 512);
  copy.dst = psum(0, 512);
  ProgramBuilder b = accumulation(copy, {matmul(psum(0, 512), true)});
  const auto e = bugOf(b.program);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->bug().instructions.at(1).op, Opcode::TensorCopy);
  HbmImage hbm;
  EXPECT_EQ(simulate(b.program, testing::trn2(), hbm, {.checks = false}).instructions, 3u);
}

} // namespace
} // namespace tessera::sim
