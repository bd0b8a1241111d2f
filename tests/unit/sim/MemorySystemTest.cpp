/// What the simulator charges beyond each instruction's isa::engineCycles, against the model's arithmetic from the
/// target files (docs/memory.md): the static overhead of tiny and back-to-back dependent Vector/Scalar
/// instructions, with the perf guide's worked example; NeuronCore-v2's shared SBUF and PSUM ports; and the access
/// rules a hand-written program is checked against.

#include "ProgramBuilder.h"

#include "tessera/isa/Error.h"
#include "tessera/sim/Simulator.h"

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

constexpr double kPsTolerance = 0.01; // every duration is rounded to a whole picosecond
/// The programs read SBUF nobody wrote: only time matters here.
SimOptions noChecks() { return {.checks = false}; }

isa::Instruction activation(isa::AccessPattern in, isa::AccessPattern out) {
  isa::Instruction inst;
  inst.op = Opcode::Activation;
  inst.scale = 1.0f;
  inst.src0 = in;
  inst.dst = out;
  return inst;
}

isa::Instruction copy(isa::AccessPattern in, isa::AccessPattern out) {
  isa::Instruction inst;
  inst.op = Opcode::TensorCopy;
  inst.src0 = in;
  inst.dst = out;
  return inst;
}

/// `n` FP32 elements in each of 128 partitions of `space`, at byte `offset`.
isa::AccessPattern tile(MemSpace space, int64_t offset, int64_t n) {
  return testing::onChip(space, DType::F32, 0, 128, offset, n);
}

/// `count` activations of [128 x n] FP32 on the scalar engine. Chained: each reads what the one before wrote (the
/// perf guide's back-to-back dependent instructions); else each reads and writes its own bytes.
ProgramBuilder activations(int count, bool chained, int64_t n = 1) {
  ProgramBuilder b("activations");
  const int64_t bytes = n * 4;
  for (int i = 0; i < count; ++i) {
    const int64_t in = chained ? i * bytes : 2 * i * bytes, out = chained ? (i + 1) * bytes : (2 * i + 1) * bytes;
    b.add(Engine::Scalar, activation(tile(MemSpace::Sbuf, in, n), tile(MemSpace::Sbuf, out, n)));
  }
  return b;
}

double cyclesNs(uint64_t cycles, Engine engine, const isa::Target &t) { return cycles / isa::clockGhz(engine, t); }

// --- static overhead ------------------------------------------------------------------------------------------------

TEST(StaticOverhead, TinyDependentScalarInstructionsMatchThePerfGuidesWorkedExample) {
  // NKI perf guide, Opt #5a: back-to-back ScalarE activations reading one element per partition, each depending
  // on the one before, issue every ~189 ns (264 ScalarE cycles) on NeuronCore-v2.
  const isa::Target trn1 = isa::Target::find("trn1");
  const int count = 64;
  HbmImage hbm;
  const SimResult result = simulate(activations(count, /*chained=*/true).program, trn1, hbm, noChecks());
  // The first has no producer before it; every later one pays the static overhead and waits for the commit.
  const double first = cyclesNs(trn1.cost.accessOverheadCycles + trn1.cost.minInitiationCycles +
                                    trn1.cost.staticOverheadCycles, Engine::Scalar, trn1);
  const double interval = (result.timeNs - first) / (count - 1);
  EXPECT_NEAR(interval, 189.0, 0.10 * 189.0);
  const uint64_t modelCycles = trn1.cost.accessOverheadCycles + trn1.cost.minInitiationCycles +
                               trn1.cost.staticOverheadCycles + trn1.cost.dependencyCommitCycles;
  EXPECT_NEAR(interval, cyclesNs(modelCycles, Engine::Scalar, trn1), kPsTolerance);
  EXPECT_NEAR(interval * trn1.scalar.clockGhz, 264.0, 0.10 * 264.0);
  // The commit wait is a stall, not work: busy holds the instructions' cycles alone.
  EXPECT_NEAR(result.streams[0].busyNs, count * first, count * kPsTolerance);
}

TEST(StaticOverhead, TinyIndependentInstructionsPayItWithoutTheCommitWait) {
  const isa::Target &t = testing::trn2();
  const int count = 16;
  HbmImage hbm;
  const SimResult result = simulate(activations(count, /*chained=*/false).program, t, hbm, noChecks());
  const uint64_t cycles = t.cost.accessOverheadCycles + t.cost.minInitiationCycles + t.cost.staticOverheadCycles;
  EXPECT_NEAR(result.timeNs, count * cyclesNs(cycles, Engine::Scalar, t), count * kPsTolerance);
}

TEST(StaticOverhead, LargeIndependentInstructionsPayNothingExtra) {
  const isa::Target &t = testing::trn2();
  const int count = 4;
  const int64_t n = 512;
  HbmImage hbm;
  const SimResult result = simulate(activations(count, /*chained=*/false, n).program, t, hbm, noChecks());
  const uint64_t cycles = t.cost.accessOverheadCycles + n;
  EXPECT_NEAR(result.timeNs, count * cyclesNs(cycles, Engine::Scalar, t), count * kPsTolerance);
}

TEST(StaticOverhead, ACommitLongPastCostsNoWait) {
  // The second activation depends on the first, but waits for a long GpSimd copy first: by then the first's
  // output was committed long ago, so only the static overhead is added.
  const isa::Target &t = testing::trn2();
  ProgramBuilder b("late");
  const uint32_t done = b.semaphore();
  const isa::Instruction longCopy = copy(tile(MemSpace::Sbuf, 8192, 4096), tile(MemSpace::Sbuf, 32768, 4096));
  b.add(Engine::GpSimd, longCopy, {}, {done});
  b.add(Engine::Scalar, activation(tile(MemSpace::Sbuf, 0, 1), tile(MemSpace::Sbuf, 4, 1)));
  b.add(Engine::Scalar, activation(tile(MemSpace::Sbuf, 4, 1), tile(MemSpace::Sbuf, 8, 1)), {{done, 1}});
  HbmImage hbm;
  const SimResult result = simulate(b.program, t, hbm, noChecks());
  const double copyNs = testing::engineNs(longCopy, Engine::GpSimd, t);
  const uint64_t second = t.cost.accessOverheadCycles + t.cost.minInitiationCycles + t.cost.staticOverheadCycles;
  EXPECT_NEAR(result.timeNs, copyNs + cyclesNs(second, Engine::Scalar, t), kPsTolerance);
}

// --- NeuronCore-v2's shared ports -----------------------------------------------------------------------------

/// A [128 x 2048] FP32 copy on `first` and one on `second`, from and to disjoint bytes of `from` and `to`
/// memories, with nothing ordering them.
struct TwoEngines {
  ProgramBuilder b{"ports"};
  isa::Instruction a, c;
  /// A copy on each engine: the scalar engine's is activation(copy), since NeuronCore-v2's runs no tensor_copy.
  TwoEngines(Engine first, Engine second, MemSpace from, int64_t n = 2048) {
    const int64_t bytes = n * 4;
    auto copyOn = [](Engine e, isa::AccessPattern in, isa::AccessPattern out) {
      return e == Engine::Scalar ? activation(in, out) : copy(in, out);
    };
    a = copyOn(first, tile(from, 0, n), tile(MemSpace::Sbuf, 2 * bytes, n));
    c = copyOn(second, tile(from, from == MemSpace::Psum ? 0 : bytes, n), tile(MemSpace::Sbuf, 3 * bytes, n));
    b.add(first, a);
    b.add(second, c);
  }
};

TEST(PortConflicts, VectorAndGpSimdTakeTurnsOnSbufOnTrn1Only) {
  const isa::Target trn1 = isa::Target::find("trn1"), trn2 = isa::Target::find("trn2");
  ASSERT_TRUE(trn1.ports.vectorGpsimdSbuf);
  ASSERT_FALSE(trn2.ports.vectorGpsimdSbuf);
  TwoEngines k(Engine::Vector, Engine::GpSimd, MemSpace::Sbuf);
  HbmImage hbm1, hbm2;
  const SimResult onTrn1 = simulate(k.b.program, trn1, hbm1, noChecks());
  const SimResult onTrn2 = simulate(k.b.program, trn2, hbm2, noChecks());
  // trn1: the later of the two waits for the earlier (serialised); trn2: side by side.
  const double v1 = testing::engineNs(k.a, Engine::Vector, trn1), g1 = testing::engineNs(k.c, Engine::GpSimd, trn1);
  const double v2 = testing::engineNs(k.a, Engine::Vector, trn2), g2 = testing::engineNs(k.c, Engine::GpSimd, trn2);
  EXPECT_NEAR(onTrn1.timeNs, v1 + g1, kPsTolerance);
  EXPECT_NEAR(onTrn2.timeNs, std::max(v2, g2), kPsTolerance);
  // The wait is a stall of the later engine, as long as the earlier one's work; busy is the work alone.
  EXPECT_NEAR(onTrn1.streams[0].busyNs + onTrn1.streams[1].busyNs, v1 + g1, 2 * kPsTolerance);
  const double waited = onTrn1.streams[0].waitNs + onTrn1.streams[1].waitNs;
  EXPECT_TRUE(std::abs(waited - v1) < kPsTolerance || std::abs(waited - g1) < kPsTolerance) << waited;
  EXPECT_NEAR(onTrn2.streams[0].waitNs + onTrn2.streams[1].waitNs, 0.0, kPsTolerance);
}

TEST(PortConflicts, VectorAndScalarTakeTurnsOnPsumOnTrn1Only) {
  const isa::Target trn1 = isa::Target::find("trn1"), trn3 = isa::Target::find("trn3");
  TwoEngines k(Engine::Vector, Engine::Scalar, MemSpace::Psum, 512);
  HbmImage hbm1, hbm3;
  const SimResult onTrn1 = simulate(k.b.program, trn1, hbm1, noChecks());
  const SimResult onTrn3 = simulate(k.b.program, trn3, hbm3, noChecks());
  const double v1 = testing::engineNs(k.a, Engine::Vector, trn1), s1 = testing::engineNs(k.c, Engine::Scalar, trn1);
  const double v3 = testing::engineNs(k.a, Engine::Vector, trn3), s3 = testing::engineNs(k.c, Engine::Scalar, trn3);
  EXPECT_NEAR(onTrn1.timeNs, v1 + s1, kPsTolerance);
  EXPECT_NEAR(onTrn3.timeNs, std::max(v3, s3), kPsTolerance);
}

TEST(PortConflicts, OtherPairsNeverWait) {
  // Vector and Scalar both on SBUF, and GpSimd and Scalar: no shared port on any generation.
  const isa::Target trn1 = isa::Target::find("trn1");
  for (auto [first, second] : {std::pair{Engine::Vector, Engine::Scalar}, std::pair{Engine::GpSimd, Engine::Scalar}}) {
    TwoEngines k(first, second, MemSpace::Sbuf);
    HbmImage hbm;
    const SimResult result = simulate(k.b.program, trn1, hbm, noChecks());
    EXPECT_NEAR(result.timeNs,
                std::max(testing::engineNs(k.a, first, trn1), testing::engineNs(k.c, second, trn1)), kPsTolerance);
  }
}

// --- NeuronCore-v4's wide matmul ---------------------------------------------------------------------------------

TEST(WideMatmul, Trn3WritesAllEightPsumBanksInOneMatmul) {
  // trn3's moving free size goes up to 4096 FP32 results (all 8 PSUM banks): one matmul, II = max(N, 64).
  const isa::Target trn3 = isa::Target::find("trn3");
  const int64_t k = 128, m = 32, n = trn3.tensor.maxMovingFree;
  ASSERT_EQ(n * 4, int64_t(trn3.psumBytesPerPartition));
  ProgramBuilder b("wide");
  const int32_t a = b.tensor("a_t", {k, m}, DType::BF16), bt = b.tensor("b", {k, n}, DType::BF16);
  const int32_t c = b.tensor("c", {m, n}, DType::F32, /*isOutput=*/true);
  const uint32_t loaded = b.semaphore(), multiplied = b.semaphore(), copied = b.semaphore();
  const isa::AccessPattern stationary = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, k, 0, m);
  const isa::AccessPattern moving = testing::onChip(MemSpace::Sbuf, DType::BF16, 0, k, 1024, n);
  b.add(Engine::Dma, testing::dmaCopy(stationary, testing::hbmTile(a, DType::BF16, m, 0, k, 0, m)), {}, {loaded});
  b.add(Engine::Dma, testing::dmaCopy(moving, testing::hbmTile(bt, DType::BF16, n, 0, k, 0, n)), {}, {loaded}, {}, 1);
  isa::Instruction mm;
  mm.op = Opcode::Matmul;
  mm.src0 = stationary;
  mm.src1 = moving;
  mm.dst = testing::onChip(MemSpace::Psum, DType::F32, 0, m, 0, n);
  b.add(Engine::Tensor, mm, {{loaded, 2}}, {multiplied});
  isa::Instruction evacuate; // DMA cannot read PSUM (NKI): through SBUF
  evacuate.op = Opcode::TensorCopy;
  evacuate.src0 = mm.dst;
  evacuate.dst = testing::onChip(MemSpace::Sbuf, DType::F32, 0, m, 16384, n);
  b.add(Engine::Vector, evacuate, {{multiplied, 1}}, {copied});
  b.add(Engine::Dma, testing::dmaCopy(testing::hbmTile(c, DType::F32, n, 0, m, 0, n), evacuate.dst), {{copied, 1}}, {},
        {}, 2);

  const std::vector<float> av = testing::randomValues(k * m, DType::BF16, 1);
  const std::vector<float> bv = testing::randomValues(k * n, DType::BF16, 2);
  HbmImage hbm = {testing::encoded(DType::BF16, av), testing::encoded(DType::BF16, bv), {}};
  const SimResult result = simulate(b.program, trn3, hbm, {.recordTimeline = true});
  const std::vector<float> out = testing::decoded(DType::F32, hbm[c]);
  for (int64_t i = 0; i < m; i += 7)
    for (int64_t j = 0; j < n; j += 255) {
      float sum = 0;
      for (int64_t kk = 0; kk < k; ++kk) sum += av[kk * m + i] * bv[kk * n + j];
      EXPECT_FLOAT_EQ(out[i * n + j], sum) << i << ", " << j;
    }
  // II = max(N, 64) = N, after its LoadStationary (the engine's first instruction: no multiply hid the load).
  for (const InstructionEvent &e : result.timeline)
    if (b.program.streams[e.stream].engine == Engine::Tensor)
      EXPECT_NEAR(e.endNs - e.startNs, (n + isa::loadStationaryCycles(mm, trn3)) / trn3.tensor.clockGhz, kPsTolerance);
}

// --- access rules of hand-written programs --------------------------------------------------------------------

TEST(AccessRuleChecks, AnEngineInstructionAtAnUnalignedPartitionIsAnError) {
  ProgramBuilder b("unaligned");
  // 64 partitions starting at 32: a 33-64 partition access starts at 0 or 64.
  const isa::AccessPattern in = testing::onChip(MemSpace::Sbuf, DType::F32, 32, 64, 0, 16);
  const isa::AccessPattern out = testing::onChip(MemSpace::Sbuf, DType::F32, 32, 64, 64, 16);
  b.add(Engine::Vector, copy(in, out), {}, {}, {"unaligned.cpp", 7});
  HbmImage hbm;
  try {
    simulate(b.program, testing::trn2(), hbm, noChecks());
    FAIL() << "expected an access-rule error";
  } catch (const Error &e) {
    EXPECT_EQ(e.where().str(), "unaligned.cpp:7");
    EXPECT_NE(e.message().find("stream 'vector', instruction 0 (tensor_copy): operand src0 breaks the trn2 access "
                               "rules: it starts at partition 32, but an access of 64 partitions starts at a "
                               "multiple of 64"),
              std::string::npos)
        << e.message();
  }
}

TEST(AccessRuleChecks, ADmaMayStartAtAnyPartitionAndAnAlignedEngineAccessRuns) {
  ProgramBuilder b("aligned");
  const int32_t x = b.tensor("x", {16, 16}, DType::F32);
  const uint32_t loaded = b.semaphore();
  b.add(Engine::Dma, testing::dmaCopy(testing::onChip(MemSpace::Sbuf, DType::F32, 16, 16, 0, 16),
                                      testing::hbmTile(x, DType::F32, 16, 0, 16, 0, 16)),
        {}, {loaded});
  // 16 partitions from 0 (a multiple of 32): allowed.
  b.add(Engine::Vector, copy(testing::onChip(MemSpace::Sbuf, DType::F32, 0, 32, 0, 16),
                             testing::onChip(MemSpace::Sbuf, DType::F32, 0, 32, 64, 16)),
        {{loaded, 1}});
  HbmImage hbm;
  EXPECT_NO_THROW(simulate(b.program, testing::trn2(), hbm, noChecks()));
}

} // namespace
} // namespace tessera::sim
