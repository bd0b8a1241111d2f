/// \file
/// The tensor engine's time across instructions (sim/lib/engines/TensorEngineTiming.h): the LoadStationary that
/// no multiply hid, row-tiled matmuls side by side, and accumulation groups in each of the 8 PSUM banks, through
/// tessera::sim::simulate. Expected times are written out from the target's coefficients.

#include "ProgramBuilder.h"

#include "tessera/isa/Error.h"
#include "tessera/isa/Modes.h"
#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using isa::Opcode;
using testing::ProgramBuilder;

constexpr double kPsTolerance = 0.01; // ns: every duration is rounded to a whole picosecond

const isa::Target &trn1() {
  static const isa::Target t = isa::Target::find("trn1");
  return t;
}

/// A K x 128 x N BF16 matmul, in row tile `tile` of `tilesLog2` tiling (0: untiled); operands uninitialised, so
/// the runs here are timing only.
isa::Instruction matmul(uint32_t k, int64_t n, uint8_t tilesLog2 = 0, uint8_t tile = 0) {
  isa::Instruction inst;
  inst.op = Opcode::Matmul;
  inst.mode = isa::MatmulMode{.rowTilesLog2 = tilesLog2, .rowTile = tile}.encode();
  inst.src0 = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, k, 0, 128);
  inst.src1 = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, k, 4096, n);
  inst.dst = testing::onChip(MemSpace::Psum, DType::F32, 0, 128, 2048 * tile, n);
  return inst;
}

/// Nanoseconds of `cycles` tensor-engine cycles, rounded to a whole picosecond like the simulator.
double tensorNs(uint64_t cycles, const isa::Target &target) {
  return std::round(double(cycles) * 1000.0 / target.tensor.clockGhz) / 1000.0;
}

SimResult timingOnly(const ProgramBuilder &b, const isa::Target &target) {
  HbmImage hbm;
  return simulate(b.program, target, hbm, {.computeValues = false, .checks = false});
}

TEST(TensorEngineTiming, OnlyTheFirstLoadStationaryOfBackToBackMatmulsShows) {
  ProgramBuilder b;
  const isa::Instruction mm = matmul(128, 512);
  for (int i = 0; i < 3; ++i)
    b.add(Engine::Tensor, mm);
  const isa::Target &t = testing::trn2();
  const uint64_t load = isa::loadStationaryCycles(mm, t), interval = isa::engineCycles(mm, Engine::Tensor, t);
  ASSERT_EQ(load, 32u); // 128 columns / load_stationary_factor 4
  const SimResult r = timingOnly(b, t);
  EXPECT_NEAR(r.timeNs, tensorNs(load + interval, t) + 2 * tensorNs(interval, t), kPsTolerance);
  EXPECT_NEAR(r.streams[0].busyNs, r.timeNs, kPsTolerance);
}

TEST(TensorEngineTiming, AnIdleWaitExposesTheLoadAndASatisfiedWaitDoesNot) {
  const isa::Target &t = testing::trn2();
  isa::Instruction fill;
  fill.op = Opcode::Memset;
  fill.dst = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, 128, 8192, 64);
  const double fillNs = testing::engineNs(fill, Engine::Vector, t);
  const isa::Instruction mm = matmul(128, 512);
  const uint64_t load = isa::loadStationaryCycles(mm, t), interval = isa::engineCycles(mm, Engine::Tensor, t);

  // The matmul waits for the memset with the engine idle: its load starts after the wait.
  ProgramBuilder idle;
  const uint32_t ready = idle.semaphore();
  idle.add(Engine::Vector, fill, {}, {ready});
  idle.add(Engine::Tensor, mm, {{ready, 1}});
  idle.add(Engine::Tensor, mm);
  EXPECT_NEAR(timingOnly(idle, t).timeNs, fillNs + tensorNs(load + interval, t) + tensorNs(interval, t),
              kPsTolerance);

  // The second matmul's wait was satisfied while the first multiplied: its load hid behind that multiply.
  ASSERT_LT(fillNs, tensorNs(interval, t));
  ProgramBuilder busy;
  const uint32_t done = busy.semaphore();
  busy.add(Engine::Vector, fill, {}, {done});
  busy.add(Engine::Tensor, mm);
  busy.add(Engine::Tensor, mm, {{done, 1}});
  EXPECT_NEAR(timingOnly(busy, t).timeNs, tensorNs(load + interval, t) + tensorNs(interval, t), kPsTolerance);
}

TEST(TensorEngineTiming, FourRowTilesRunSideBySide) {
  const isa::Target &t = testing::trn2();
  const isa::Instruction first = matmul(32, 512, 2, 0);
  const uint64_t load = isa::loadStationaryCycles(first, t), interval = isa::engineCycles(first, Engine::Tensor, t);

  ProgramBuilder tiled;
  for (uint8_t tile = 0; tile < 4; ++tile)
    tiled.add(Engine::Tensor, matmul(32, 512, 2, tile));
  const SimResult side = timingOnly(tiled, t);
  // All four start together; the first also loads its stationary.
  EXPECT_NEAR(side.timeNs, tensorNs(load + interval, t), kPsTolerance);
  EXPECT_NEAR(side.streams[0].busyNs, side.timeNs, kPsTolerance);

  ProgramBuilder untiled;
  for (int i = 0; i < 4; ++i)
    untiled.add(Engine::Tensor, matmul(32, 512));
  EXPECT_NEAR(timingOnly(untiled, t).timeNs, tensorNs(load + interval, t) + 3 * tensorNs(interval, t), kPsTolerance);

  ProgramBuilder sameTile;
  sameTile.add(Engine::Tensor, matmul(32, 512, 2, 1));
  sameTile.add(Engine::Tensor, matmul(32, 512, 2, 1));
  EXPECT_NEAR(timingOnly(sameTile, t).timeNs, tensorNs(load + interval, t) + tensorNs(interval, t), kPsTolerance);
}

TEST(TensorEngineTiming, TilesOfDifferentSizesShareRowsByPosition) {
  // 2x64 tile 0 holds rows 0-63; 4x32 tile 2 (rows 64-95) runs beside it; 4x32 tile 1 (rows 32-63) waits for it.
  const isa::Target &t = testing::trn2();
  const isa::Instruction half = matmul(64, 512, 1, 0);
  const uint64_t load = isa::loadStationaryCycles(half, t), interval = isa::engineCycles(half, Engine::Tensor, t);
  ProgramBuilder b;
  b.add(Engine::Tensor, half);
  b.add(Engine::Tensor, matmul(32, 512, 2, 2));
  EXPECT_NEAR(timingOnly(b, t).timeNs, tensorNs(load + interval, t), kPsTolerance);
  b.add(Engine::Tensor, matmul(32, 512, 2, 1));
  EXPECT_NEAR(timingOnly(b, t).timeNs, tensorNs(load + interval, t) + tensorNs(interval, t), kPsTolerance);
  // An untiled matmul needs every row: it starts when all are free.
  b.add(Engine::Tensor, matmul(128, 512));
  EXPECT_NEAR(timingOnly(b, t).timeNs, tensorNs(load + interval, t) + 2 * tensorNs(interval, t), kPsTolerance);
}

TEST(TensorEngineTiming, TwoRowTilesOnTrn1AndATiledMatmulWithAWaitStartsNoEarlierThanNow) {
  const isa::Target &t = trn1();
  const isa::Instruction first = matmul(64, 512, 1, 0);
  const uint64_t load = isa::loadStationaryCycles(first, t), interval = isa::engineCycles(first, Engine::Tensor, t);
  ProgramBuilder pair;
  pair.add(Engine::Tensor, first);
  pair.add(Engine::Tensor, matmul(64, 512, 1, 1));
  EXPECT_NEAR(timingOnly(pair, t).timeNs, tensorNs(load + interval, t), kPsTolerance);

  // The second matmul's semaphore was signalled long before, but having a wait it starts when it is issued.
  isa::Instruction fill;
  fill.op = Opcode::Memset;
  // Not tiny (isa/InstructionOverhead.h): a short fill without the static overhead.
  fill.dst = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, 128, 8192, t.cost.tinyFreeElements);
  ProgramBuilder waiting;
  const uint32_t ready = waiting.semaphore();
  waiting.add(Engine::Vector, fill, {}, {ready});
  waiting.add(Engine::Tensor, first);
  waiting.add(Engine::Tensor, matmul(64, 512, 1, 1), {{ready, 1}});
  ASSERT_LT(testing::engineNs(fill, Engine::Vector, t), tensorNs(load + interval, t));
  EXPECT_NEAR(timingOnly(waiting, t).timeNs, tensorNs(load + interval, t) + tensorNs(interval, t), kPsTolerance);
}

TEST(TensorEngineTiming, FourRowTilesDoNotExistOnTrn1) {
  ProgramBuilder b;
  b.add(Engine::Tensor, matmul(32, 512, 2, 3), {}, {}, {"tiles.cpp", 12});
  HbmImage hbm;
  try {
    simulate(b.program, trn1(), hbm, {.computeValues = false, .checks = false});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("row tiling into 4 tiles does not exist on trn1"), std::string::npos) << e.message();
    EXPECT_EQ(e.where().line, 12u);
  }
}

/// c[32, 8 x 512] (f32) = a_t[128, 32]^T @ b[128, 8 x 512] (bf16), one accumulation group of two K = 64 matmuls in
/// each of the 8 PSUM banks, then one DMA of all 8 banks to HBM.
TEST(TensorEngineTiming, AccumulationGroupsInAllEightPsumBanks) {
  const isa::Target &t = testing::trn2();
  const int64_t k = 128, m = 32, n = t.tensor.maxMovingFree, banks = t.psumBanks, bank = t.psumBankBytes();
  ASSERT_EQ(banks, 8);
  ProgramBuilder b("banks");
  const int32_t a = b.tensor("a_t", {k, m}, DType::BF16), bm = b.tensor("b", {k, banks * n}, DType::BF16);
  const int32_t c = b.tensor("c", {m, banks * n}, DType::F32, /*isOutput=*/true);
  const uint32_t loaded = b.semaphore(), done = b.semaphore(), copied = b.semaphore();
  const int64_t aOffset = 0, bOffset = 1024, cOffset = 16384;
  b.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, k, aOffset, m),
                                      testing::hbmTile(a, DType::BF16, m, 0, k, 0, m)),
        {}, {loaded});
  b.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::BF16, 0, k, bOffset, banks * n),
                                      testing::hbmTile(bm, DType::BF16, banks * n, 0, k, 0, banks * n)),
        {}, {loaded}, {}, /*queue=*/1);
  for (int64_t g = 0; g < banks; ++g)
    for (int64_t half = 0; half < 2; ++half) {
      isa::Instruction mm;
      mm.op = Opcode::Matmul;
      mm.accumulate = half > 0;
      mm.src0 = testing::onChip(MemSpace::Sbuf, DType::BF16, uint32_t(64 * half), 64, aOffset, m);
      mm.src1 = testing::onChip(MemSpace::Sbuf, DType::BF16, uint32_t(64 * half), 64, bOffset + g * n * 2, n);
      mm.dst = testing::onChip(MemSpace::Psum, DType::F32, 0, uint32_t(m), g * bank, n);
      const bool first = g == 0 && half == 0, last = g == banks - 1 && half == 1;
      b.add(Engine::Tensor, mm, first ? std::vector<isa::SemWait>{{loaded, 2}} : std::vector<isa::SemWait>{},
            last ? std::vector<uint32_t>{done} : std::vector<uint32_t>{});
    }
  // DMA cannot read PSUM (NKI): the vector engine copies the eight banks to SBUF, and the DMA stores that.
  isa::Instruction evacuate;
  evacuate.op = Opcode::TensorCopy;
  evacuate.src0 = testing::onChip(MemSpace::Psum, DType::F32, 0, uint32_t(m), 0, banks * n);
  evacuate.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, uint32_t(m), cOffset, banks * n);
  b.add(Engine::Vector, evacuate, {{done, 1}}, {copied});
  b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(c, DType::F32, banks * n, 0, uint32_t(m), 0, banks * n),
                                      evacuate.dst),
        {{copied, 1}}, {}, {}, /*queue=*/2);

  const std::vector<float> av = testing::randomValues(k * m, DType::BF16, 1);
  const std::vector<float> bv = testing::randomValues(k * banks * n, DType::BF16, 2);
  HbmImage hbm = {testing::encoded(DType::BF16, av), testing::encoded(DType::BF16, bv), {}};
  simulate(b.program, t, hbm); // with the kernel-bug checks: no race, no uninitialised read, no bad accumulation
  const std::vector<float> out = testing::decoded(DType::F32, hbm[c]);
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < banks * n; ++col) {
      float sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += av[kk * m + row] * bv[kk * banks * n + col];
      ASSERT_EQ(out[row * banks * n + col], sum) << "c[" << row << ", " << col << "] (bank " << col / n << ")";
    }
}

TEST(TensorEngineTiming, AMatmulAcrossTwoPsumBanksIsRejected) {
  ProgramBuilder b;
  isa::Instruction mm = matmul(128, 512);
  mm.dst.offset = 1024;
  b.add(Engine::Tensor, mm, {}, {}, {"banks.cpp", 30});
  HbmImage hbm;
  try {
    simulate(b.program, testing::trn2(), hbm, {.computeValues = false, .checks = false});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("dst bytes [1024, 3072) of each partition cross the PSUM bank boundary at byte 2048"),
              std::string::npos)
        << e.message();
    EXPECT_EQ(e.where().line, 30u);
  }
}

} // namespace
} // namespace tessera::sim
