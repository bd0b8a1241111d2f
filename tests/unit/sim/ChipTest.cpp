/// Several cores of one chip through tessera::sim::simulateChip(): one program gives what simulate() gives, cores
/// copying disjoint halves of a tensor, the HBM bandwidth pool shared by the launched cores (memory/Hbm.h), compute
/// unaffected by a neighbour, failures and deadlocks naming their core, progress over all cores, and the programs
/// it refuses.

#include "ProgramBuilder.h"

#include "tessera/isa/Error.h"
#include "tessera/sim/KernelBug.h"
#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using isa::Opcode;
using testing::ProgramBuilder;

/// Time tolerance: every duration is rounded to a whole picosecond.
constexpr double kPsTolerance = 0.01;

/// Rows and columns of the F32 tensors x and y the copy programs share; each core copies 128 rows.
constexpr int64_t kRows = 256, kCols = 2048;

/// Core `core`'s program: rows [128 core, 128 core + 128) of x into SBUF on queue 0, then out to the same rows of y
/// on queue 1. With `store` false it only loads (and y is not written).
ProgramBuilder copyHalf(uint32_t core, bool store = true) {
  ProgramBuilder b("copy_halves");
  const int32_t x = b.tensor("x", {kRows, kCols}, DType::F32);
  const int32_t y = b.tensor("y", {kRows, kCols}, DType::F32, /*isOutput=*/true);
  const uint32_t loaded = b.semaphore();
  const isa::AccessPattern tile = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 0, kCols);
  b.add(Engine::Dma, testing::dmaCopy(tile, testing::hbmTile(x, DType::F32, kCols, 128 * core, 128, 0, kCols)), {},
        {loaded}, {}, /*queue=*/0);
  if (store)
    b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(y, DType::F32, kCols, 128 * core, 128, 0, kCols), tile),
          {{loaded, 1}}, {}, {}, /*queue=*/1);
  return b;
}

/// A program with copyHalf's tensors and nothing to run: a core that stays idle.
ProgramBuilder idleCore() {
  ProgramBuilder b("copy_halves");
  b.tensor("x", {kRows, kCols}, DType::F32);
  b.tensor("y", {kRows, kCols}, DType::F32, /*isOutput=*/true);
  return b;
}

/// `count` dependent memsets and copies on the vector engine, on the copy programs' tensors: compute alone.
ProgramBuilder computeOnly(int count) {
  ProgramBuilder b = idleCore();
  isa::Instruction fill;
  fill.op = Opcode::Memset;
  fill.value = 1.0f;
  fill.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 0, 512);
  isa::Instruction copy;
  copy.op = Opcode::TensorCopy;
  copy.src0 = fill.dst;
  copy.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 4096, 512);
  for (int i = 0; i < count; ++i)
    b.add(Engine::Vector, i % 2 ? copy : fill);
  return b;
}

std::vector<isa::Program> programsOf(std::vector<ProgramBuilder> builders) {
  std::vector<isa::Program> programs;
  for (ProgramBuilder &b : builders)
    programs.push_back(std::move(b.program));
  return programs;
}

/// Runs `programs` expecting an Error; returns it.
template <typename E = Error> E chipError(const std::vector<isa::Program> &programs, const isa::Target &target) {
  HbmImage hbm;
  try {
    simulateChip(programs, target, hbm);
  } catch (const E &e) {
    return e;
  }
  ADD_FAILURE() << "simulateChip() did not throw";
  throw std::logic_error("no error");
}

TEST(Chip, OneProgramGivesWhatSimulateGives) {
  const isa::Program program = copyHalf(1).program;
  const SimOptions options{.recordTimeline = true};
  const std::vector<float> x = testing::randomValues(kRows * kCols, DType::F32, 3);
  HbmImage alone{testing::encoded(DType::F32, x)}, onChip = alone;
  const SimResult expected = simulate(program, testing::trn2(), alone, options);
  const ChipResult chip = simulateChip(std::span(&program, 1), testing::trn2(), onChip, options);
  ASSERT_EQ(chip.cores.size(), 1u);
  const SimResult &got = chip.cores[0];
  EXPECT_EQ(got.timeNs, expected.timeNs);
  EXPECT_EQ(chip.timeNs, expected.timeNs);
  EXPECT_EQ(got.instructions, expected.instructions);
  EXPECT_EQ(chip.instructions, expected.instructions);
  EXPECT_EQ(chip.hbmBytes, expected.hbmBytes);
  ASSERT_EQ(got.streams.size(), expected.streams.size());
  for (size_t s = 0; s < got.streams.size(); ++s) {
    EXPECT_EQ(got.streams[s].name, expected.streams[s].name);
    EXPECT_EQ(got.streams[s].busyNs, expected.streams[s].busyNs);
    EXPECT_EQ(got.streams[s].waitNs, expected.streams[s].waitNs);
  }
  ASSERT_EQ(got.timeline.size(), expected.timeline.size());
  for (size_t i = 0; i < got.timeline.size(); ++i) {
    EXPECT_EQ(got.timeline[i].endNs, expected.timeline[i].endNs);
    EXPECT_EQ(got.timeline[i].hbmToNs, expected.timeline[i].hbmToNs);
  }
  EXPECT_EQ(onChip, alone);
}

TEST(Chip, TwoCoresCopyDisjointHalvesEachInItsOwnTime) {
  // trn3: a core's 16 DMA engines (16 x 33 B/ns) are below its HBM share (587.5 B/ns), and two cores' engines
  // (1056 B/ns) below the pool of two shares (1175 B/ns): the engines bind, so each core takes exactly what it takes
  // alone, whichever core's bytes HBM serves first.
  const isa::Target trn3 = isa::Target::find("trn3");
  ASSERT_LT(2 * trn3.dma.engines * trn3.dma.bytesPerNsPerEngine, 2 * trn3.dma.hbmGBps);
  const std::vector<float> x = testing::randomValues(kRows * kCols, DType::F32, 4);
  const std::vector<isa::Program> programs = programsOf({copyHalf(0), copyHalf(1)});
  HbmImage hbm{testing::encoded(DType::F32, x)};
  const ChipResult chip = simulateChip(programs, trn3, hbm);
  EXPECT_EQ(testing::decoded(DType::F32, hbm[1]), x); // each half copied by its core
  ASSERT_EQ(chip.cores.size(), 2u);
  HbmImage aloneHbm;
  const SimResult alone = simulate(programs[0], trn3, aloneHbm);
  // The load streams 8 KiB per partition, 8 partitions per engine, then the store the same: well past the fixed cost.
  const double streamNs = 8.0 * kCols * 4 / trn3.dma.bytesPerNsPerEngine;
  ASSERT_GT(streamNs, trn3.dma.fixedLatencyNs);
  EXPECT_NEAR(alone.timeNs, 2 * streamNs, kPsTolerance);
  for (const SimResult &core : chip.cores) {
    EXPECT_NEAR(core.timeNs, alone.timeNs, kPsTolerance);
    EXPECT_EQ(core.instructions, 2u);
    ASSERT_EQ(core.streams.size(), 2u);
    EXPECT_EQ(core.streams[0].name, "dma0");
    EXPECT_EQ(core.hbmBytes, 2u * 128 * kCols * 4);
  }
  EXPECT_NEAR(chip.timeNs, alone.timeNs, kPsTolerance);
  EXPECT_EQ(chip.instructions, 4u);
  EXPECT_EQ(chip.hbmBytes, 2 * chip.cores[0].hbmBytes);
}

TEST(Chip, CoresShareTheHbmPoolWhenTheirEnginesTogetherExceedIt) {
  // trn2 with each core's HBM share half its engines' rate E: the pool of two cores' shares is E. Each core loads
  // B = 1 MiB ([128 x 2048] F32) on all 16 engines: B / E of streaming.
  isa::Target t = testing::trn2();
  const double engines = t.dma.engines * t.dma.bytesPerNsPerEngine;
  t.dma.hbmGBps = engines / 2;
  const double bytes = 128.0 * kCols * 4, streamNs = bytes / engines;
  ASSERT_GT(streamNs, std::max(t.dma.fixedLatencyNs, t.dma.descriptorNs));
  HbmImage hbm1, hbm2, hbm3;
  // One core with an idle neighbour has the whole pool: its engines bind.
  const ChipResult withIdle = simulateChip(programsOf({copyHalf(0, false), idleCore()}), t, hbm1);
  EXPECT_NEAR(withIdle.timeNs, streamNs, kPsTolerance);
  EXPECT_NEAR(withIdle.cores[0].timeNs, streamNs, kPsTolerance);
  EXPECT_EQ(withIdle.cores[1].timeNs, 0.0);
  // Two cores each moving B: together their engines (2E) exceed the pool (E), which serves one core's bytes, then
  // the other's.
  const ChipResult both = simulateChip(programsOf({copyHalf(0, false), copyHalf(1, false)}), t, hbm2);
  EXPECT_NEAR(both.cores[0].timeNs, streamNs, kPsTolerance);
  EXPECT_NEAR(both.cores[1].timeNs, 2 * streamNs, kPsTolerance);
  EXPECT_NEAR(both.timeNs, 2 * streamNs, kPsTolerance);
  EXPECT_GT(both.timeNs, 1.5 * withIdle.timeNs);
  // A core alone on the chip (simulate) has only its own share: B at E / 2.
  const SimResult alone = simulate(copyHalf(0, false).program, t, hbm3);
  EXPECT_NEAR(alone.timeNs, 2 * streamNs, kPsTolerance);
  // On trn3 two cores' engines stay below the pool: the neighbour costs nothing.
  const isa::Target trn3 = isa::Target::find("trn3");
  HbmImage hbm4, hbm5;
  const double idleNs = simulateChip(programsOf({copyHalf(0, false), idleCore()}), trn3, hbm4).timeNs;
  EXPECT_NEAR(simulateChip(programsOf({copyHalf(0, false), copyHalf(1, false)}), trn3, hbm5).timeNs, idleNs,
              kPsTolerance);
}

TEST(Chip, TwoCoresOfPureComputeTakeTheTimeOfOne) {
  const isa::Program one = computeOnly(6).program;
  HbmImage hbm1, hbm2;
  const SimResult alone = simulate(one, testing::trn2(), hbm1);
  ASSERT_GT(alone.timeNs, 0.0);
  const ChipResult chip = simulateChip(programsOf({computeOnly(6), computeOnly(6)}), testing::trn2(), hbm2);
  EXPECT_EQ(chip.timeNs, alone.timeNs);
  for (const SimResult &core : chip.cores) {
    EXPECT_EQ(core.timeNs, alone.timeNs);
    EXPECT_EQ(core.instructions, 6u);
  }
  EXPECT_EQ(chip.instructions, 12u);
}

/// computeOnly(2), then a scalar activation at stuck.cpp:9 waiting for a semaphore nothing signals.
ProgramBuilder stuckCore() {
  ProgramBuilder stuck = computeOnly(2);
  const uint32_t never = stuck.semaphore();
  isa::Instruction consume;
  consume.op = Opcode::Activation;
  consume.func = isa::ActFunc::Exp;
  consume.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 8192, 512);
  consume.src0 = testing::onChip(MemSpace::Sbuf, DType::F32, 0, 128, 0, 512);
  stuck.add(Engine::Scalar, consume, {{never, 1}}, {}, {"stuck.cpp", 9});
  return stuck;
}

TEST(Chip, ADeadlockOnCoreOneNamesCoreOneAlone) {
  const auto e = chipError<KernelBugError>(programsOf({computeOnly(2), stuckCore()}), testing::trn2());
  const std::string message = e.what();
  EXPECT_NE(message.find("deadlock"), std::string::npos) << message;
  EXPECT_NE(message.find("core 1: stream 'scalar', instruction 0 (activation) at stuck.cpp:9 waits for semaphore 0 "
                         "to reach 1; it stands at 0"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("core 0"), std::string::npos) << "core 0 finished: " << message;
  EXPECT_EQ(e.bug().kind, BugKind::Deadlock);
  ASSERT_EQ(e.bug().instructions.size(), 1u);
  EXPECT_EQ(e.bug().instructions[0].core, 1u);
  EXPECT_EQ(e.bug().instructions[0].stream, "scalar");
  EXPECT_EQ(e.where().str(), "stuck.cpp:9");
}

TEST(Chip, ADeadlockOnEveryCoreListsEachCoresBlockedStream) {
  const auto e = chipError<KernelBugError>(programsOf({stuckCore(), computeOnly(2), stuckCore()}), testing::trn2());
  const std::string message = e.what();
  EXPECT_NE(message.find("\n  core 0: stream 'scalar', instruction 0 (activation) at stuck.cpp:9 waits"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("\n  core 2: stream 'scalar', instruction 0 (activation) at stuck.cpp:9 waits"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("core 1"), std::string::npos) << message;
  ASSERT_EQ(e.bug().instructions.size(), 2u);
  EXPECT_EQ(e.bug().instructions[0].core, 0u);
  EXPECT_EQ(e.bug().instructions[1].core, 2u);
}

TEST(Chip, TheFirstFailureOfAnyCoreStopsTheRunAndNamesItsCore) {
  ProgramBuilder oob = idleCore();
  isa::Instruction fill;
  fill.op = Opcode::Memset;
  fill.dst = testing::onChip(MemSpace::Psum, DType::F32, 0, 128,
                             static_cast<int64_t>(testing::trn2().psumBytesPerPartition), 4);
  oob.add(Engine::Vector, fill, {}, {}, {"oob.cpp", 5});
  const auto e = chipError<KernelBugError>(programsOf({computeOnly(40), std::move(oob)}), testing::trn2());
  const std::string message = e.what();
  EXPECT_NE(message.find("core 1: out of bounds"), std::string::npos) << message;
  EXPECT_EQ(e.bug().kind, BugKind::OutOfBounds);
  ASSERT_FALSE(e.bug().instructions.empty());
  EXPECT_EQ(e.bug().instructions[0].core, 1u);
  EXPECT_EQ(e.bug().timeNs, 0.0); // at once, while core 0 has barely started
}

TEST(Chip, ProgressCountsEveryCoresInstructions) {
  std::vector<std::pair<uint64_t, uint64_t>> reports; // retired, total
  SimOptions options{.computeValues = false};
  options.progress = [&](double, uint64_t retired, uint64_t total) { reports.emplace_back(retired, total); };
  HbmImage hbm;
  simulateChip(programsOf({computeOnly(40), computeOnly(40)}), testing::trn2(), hbm, options);
  // 80 instructions in all: one report, at 64 retired, though neither core retires 64 alone.
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0], std::make_pair(uint64_t{64}, uint64_t{80}));
}

// No semaphore spans two cores: HBM bytes one core writes and another reads or writes are a race, found before the
// run (checks on), naming both cores' instructions.
TEST(Chip, TwoCoresWritingTheSameRowsRace) {
  const std::vector<isa::Program> programs = programsOf({copyHalf(0), copyHalf(0)}); // both write rows 0..127
  const KernelBugError e = chipError<KernelBugError>(programs, testing::trn2());
  EXPECT_EQ(e.bug().kind, BugKind::Race);
  EXPECT_EQ(e.bug().detail, "write after write");
  ASSERT_EQ(e.bug().instructions.size(), 2u);
  EXPECT_EQ(e.bug().instructions[0].core, 1u);
  EXPECT_EQ(e.bug().instructions[1].core, 0u);
  EXPECT_EQ(e.bug().region.tensor, "y");
  EXPECT_NE(e.message().find("race between cores: core 1's stream 'dma1', instruction 0 (dma_copy) writes y[0, 0], "
                             "which core 0's stream 'dma1', instruction 0 (dma_copy) writes"),
            std::string::npos)
      << e.message();
}

TEST(Chip, ACoreReadingWhatAnotherWritesRaces) {
  ProgramBuilder reader = copyHalf(1, /*store=*/false);
  // Core 1 also loads row 0 of y, which core 0 writes.
  reader.add(Engine::Dma,
             testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::F32, 0, 1, 0, kCols),
                              testing::hbmTile(1, DType::F32, kCols, 0, 1, 0, kCols)),
             {}, {}, {}, /*queue=*/2);
  const std::vector<isa::Program> programs = programsOf({copyHalf(0), std::move(reader)});
  const KernelBugError e = chipError<KernelBugError>(programs, testing::trn2());
  EXPECT_EQ(e.bug().detail, "read after write");
  EXPECT_NE(e.message().find("reads y[0, 0]"), std::string::npos) << e.message();
}

TEST(Chip, CoresOnDisjointRowsDoNotRaceAndWithoutChecksNothingIsLookedFor) {
  HbmImage hbm;
  EXPECT_NO_THROW(simulateChip(programsOf({copyHalf(0), copyHalf(1)}), testing::trn2(), hbm));
  HbmImage unchecked;
  EXPECT_NO_THROW(simulateChip(programsOf({copyHalf(0), copyHalf(0)}), testing::trn2(), unchecked,
                               {.checks = false}));
}

TEST(Chip, ProgramsWithDifferentTensorsAreRefused) {
  ProgramBuilder other = copyHalf(1);
  other.program.tensors[1].shape = {kRows, kCols / 2};
  const Error e = chipError(programsOf({copyHalf(0), std::move(other)}), testing::trn2());
  const std::string message = e.what();
  EXPECT_NE(message.find("core 1's program (kernel 'copy_halves') has tensor 1 'y' [256, 1024] f32 output where "
                         "core 0's has tensor 1 'y' [256, 2048] f32 output"),
            std::string::npos)
      << message;
  ProgramBuilder renamed = copyHalf(1), fewer = copyHalf(1), input = copyHalf(1);
  renamed.program.tensors[0].name = "x1";
  fewer.program.tensors.pop_back();
  input.program.tensors[1].isOutput = false;
  for (ProgramBuilder *b : {&renamed, &fewer, &input}) {
    const std::string refused = chipError(programsOf({copyHalf(0), std::move(*b)}), testing::trn2()).what();
    EXPECT_NE(refused.find("core 1's program"), std::string::npos) << refused;
  }
}

TEST(Chip, NoProgramsOrMoreThanTheChipsCoresAreRefused) {
  const std::string none = chipError({}, testing::trn2()).what();
  EXPECT_NE(none.find("no program"), std::string::npos) << none;
  // tpu-v5e has one TensorCore per chip.
  const isa::Target v5e = isa::Target::find("tpu-v5e");
  ASSERT_EQ(v5e.hbm.coresPerChip, 1u);
  const std::string tooMany = chipError(programsOf({idleCore(), idleCore()}), v5e).what();
  EXPECT_NE(tooMany.find("2 programs cannot run on one chip of target 'tpu-v5e', which has 1 core"),
            std::string::npos)
      << tooMany;
}

} // namespace
} // namespace tessera::sim
