/// The simulator's checks on TPU programs (tpu-v5e): races and uninitialised reads in VMEM, judged row by row so
/// that disjoint column windows of one buffer never race; VMEM operands outside VMEM; engines and memories of the
/// other family; grid steps that cannot all run; a deadlock at a grid-step barrier.

#include "TpuProgramBuilder.h"

#include "tessera/isa/Error.h"
#include "tessera/sim/Simulator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using testing::TpuProgramBuilder;

const isa::Target &target() { return testing::tpuV5e(); }

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

/// Runs `program` on `on`, expecting an Error; returns it (nullopt, and a test failure, when the run succeeds).
std::optional<Error> failure(const isa::Program &program, const isa::Target &on = target()) {
  HbmImage hbm;
  try {
    simulate(program, on, hbm);
  } catch (const Error &e) {
    return e;
  }
  ADD_FAILURE() << "simulate() did not throw";
  return std::nullopt;
}

/// Expects running `program` on `on` to stop with an Error whose message holds `text`.
void expectRefused(const isa::Program &program, const std::string &text, const isa::Target &on = target()) {
  const std::optional<Error> e = failure(program, on);
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->what(), text)) << e->what();
}

/// The same, expecting a KernelBugError.
std::optional<KernelBug> bugOf(const isa::Program &program) {
  HbmImage hbm;
  try {
    simulate(program, target(), hbm);
  } catch (const KernelBugError &e) {
    return e.bug();
  } catch (const Error &e) {
    ADD_FAILURE() << "not a kernel bug: " << e.what();
    return std::nullopt;
  }
  ADD_FAILURE() << "simulate() did not throw";
  return std::nullopt;
}

// ---- races and uninitialised reads in VMEM ------------------------------------------------------------------

constexpr uint32_t kRows = 16;
constexpr int64_t kCols = 128;

/// A DMA queue loads columns [0, dmaCols) of a [16, 128] f32 VMEM buffer while the VPU, behind a grid step (so
/// that the load has started), fills columns [fillCol0, 128) of the same rows; no semaphore orders the two. Then a
/// store, after both, writes the whole buffer out.
TpuProgramBuilder windows(int64_t dmaCols, int64_t fillCol0) {
  TpuProgramBuilder b("windows");
  const int32_t x = b.tensor("x", {kRows, dmaCols}, DType::F32);
  const int32_t out = b.tensor("out", {kRows, kCols}, DType::F32, /*isOutput=*/true);
  const isa::AccessPattern buf = b.buffer(DType::F32, kRows, kCols);
  const uint32_t done = b.semaphore();
  b.dma(0, testing::columns(buf, 0, dmaCols), testing::hbmTensor(x, DType::F32, kRows, dmaCols), {}, {done},
        {"windows.cpp", 4});
  b.gridStep();
  b.compute(Engine::Vpu, testing::vpuFill(testing::columns(buf, fillCol0, kCols - fillCol0), 0.0f), {}, {done},
            {"windows.cpp", 5});
  b.dma(1, testing::hbmTensor(out, DType::F32, kRows, kCols), buf, {{done, 2}});
  return b;
}

// Disjoint column windows of one buffer: every row's bytes are apart, though the windows' extents (first to last
// byte over all rows) interleave. No race, and the store reads only written bytes.
TEST(TpuChecks, DisjointColumnWindowsOfOneBufferDoNotRace) {
  const TpuProgramBuilder b = windows(64, 64);
  HbmImage hbm;
  EXPECT_NO_THROW(simulate(b.program, target(), hbm));
}

// The same with windows sharing columns [64, 72): a write after write in VMEM, named row by row.
TEST(TpuChecks, OverlappingColumnWindowsRace) {
  const TpuProgramBuilder b = windows(72, 64);
  const std::optional<KernelBug> bug = bugOf(b.program);
  ASSERT_TRUE(bug);
  EXPECT_EQ(bug->kind, BugKind::Race);
  EXPECT_EQ(bug->detail, "write after write");
  ASSERT_EQ(bug->instructions.size(), 2u);
  EXPECT_EQ(bug->instructions[0].stream, "vpu");
  EXPECT_EQ(bug->instructions[1].stream, "dma0");
  EXPECT_EQ(bug->region.memory, "vmem");
  // Bytes [256, 288) of each of the 16 rows, 512 bytes apart.
  EXPECT_EQ(bug->region.b0, 64 * 4);
  EXPECT_EQ(bug->region.b1, 72 * 4);
  EXPECT_EQ(bug->region.p1 - bug->region.p0, kRows);
  EXPECT_EQ(bug->region.rowPitch, kCols * 4);
}

// The VPU adds a tile that a DMA queue loads, without waiting for the DMA's semaphore: a read after write, in
// VMEM; waiting for it is clean.
TEST(TpuChecks, UnorderedVpuReadOfADmaLoadIsARace) {
  for (bool waits : {false, true}) {
    TpuProgramBuilder b("unordered_read");
    const int32_t x = b.tensor("x", {kRows, kCols}, DType::F32);
    const isa::AccessPattern bufX = b.buffer(DType::F32, kRows, kCols), sum = b.buffer(DType::F32, kRows, kCols);
    const uint32_t loaded = b.semaphore();
    b.dma(0, bufX, testing::hbmTensor(x, DType::F32, kRows, kCols), {}, {loaded}, {"add.cpp", 3});
    b.gridStep();
    std::vector<isa::SemWait> wait;
    if (waits)
      wait.push_back({loaded, 1});
    b.compute(Engine::Vpu, testing::vpuBinary(sum, bufX, bufX), wait, {}, {"add.cpp", 4});
    if (waits) {
      HbmImage hbm;
      EXPECT_NO_THROW(simulate(b.program, target(), hbm));
      continue;
    }
    HbmImage hbm;
    try {
      simulate(b.program, target(), hbm);
      ADD_FAILURE() << "no race reported";
    } catch (const KernelBugError &e) {
      const std::string message = e.what();
      EXPECT_EQ(e.bug().kind, BugKind::Race);
      EXPECT_EQ(e.bug().detail, "read after write");
      EXPECT_TRUE(contains(message, "stream 'vpu', instruction 0 (vpu_binary) at add.cpp:4 reads vmem bytes"))
          << message;
      EXPECT_TRUE(contains(message, "stream 'dma0', instruction 0 (dma) at add.cpp:3 writes")) << message;
      EXPECT_EQ(e.where().line, 4u);
    }
  }
}

// The VPU reads a VMEM tile nothing has written: the report names the first unwritten bytes.
TEST(TpuChecks, ReadOfNeverWrittenVmemIsReported) {
  TpuProgramBuilder b("uninitialised");
  const isa::AccessPattern tile = b.buffer(DType::F32, kRows, kCols), out = b.buffer(DType::F32, kRows, kCols);
  b.gridStep();
  b.compute(Engine::Vpu, testing::vpuBinary(out, tile, tile), {}, {}, {"uninit.cpp", 8});
  const std::optional<KernelBug> bug = bugOf(b.program);
  ASSERT_TRUE(bug);
  EXPECT_EQ(bug->kind, BugKind::UninitialisedRead);
  EXPECT_EQ(bug->region.memory, "vmem");
  EXPECT_EQ(bug->region.b0, tile.offset);
  EXPECT_EQ(bug->region.b1, tile.offset + kCols * 4);
  ASSERT_EQ(bug->instructions.size(), 1u);
  EXPECT_EQ(bug->instructions[0].stream, "vpu");
  EXPECT_EQ(bug->instructions[0].loc.line, 8u);
}

// An unaligned store's read-modify-write (tile-legalize-for-tpu) reads the aligned window of an output around its
// own, which nothing may have written yet: marked `preserve`, that read is no uninitialised read (it writes those
// bytes back as they were), and the buffer it fills counts as written; the same DMA unmarked is reported.
TEST(TpuChecks, ReadModifyWriteReadsUnwrittenOutputBytes) {
  for (bool preserve : {true, false}) {
    TpuProgramBuilder b("read_modify_write");
    const int32_t out = b.tensor("out", {kRows, kCols}, DType::F32, /*isOutput=*/true);
    const isa::AccessPattern hull = b.buffer(DType::F32, kRows, kCols);
    const uint32_t read = b.semaphore(), filled = b.semaphore();
    b.dma(0, hull, testing::hbmTensor(out, DType::F32, kRows, kCols), {}, {read}, {"rmw.cpp", 6}, preserve);
    b.gridStep();
    b.compute(Engine::Vpu, testing::vpuFill(testing::columns(hull, 8, 32), 1.0f), {{read, 1}}, {filled});
    b.dma(1, testing::hbmTensor(out, DType::F32, kRows, kCols), hull, {{filled, 1}});
    if (preserve) {
      HbmImage hbm;
      EXPECT_NO_THROW(simulate(b.program, target(), hbm));
      continue;
    }
    const std::optional<KernelBug> bug = bugOf(b.program);
    ASSERT_TRUE(bug);
    EXPECT_EQ(bug->kind, BugKind::UninitialisedRead);
    EXPECT_EQ(bug->region.tensor, "out");
    ASSERT_EQ(bug->instructions.size(), 1u);
    EXPECT_EQ(bug->instructions[0].loc.line, 6u);
  }
}

// A fill of every other row, then a read of all rows: the first hole is the second row's bytes, at the pitch.
TEST(TpuChecks, UnwrittenRowsBetweenWrittenOnesAreFound) {
  TpuProgramBuilder b("rows");
  const isa::AccessPattern tile = b.buffer(DType::F32, kRows, kCols), out = b.buffer(DType::F32, kRows, kCols);
  isa::AccessPattern evenRows = tile;
  evenRows.partitions = kRows / 2;
  evenRows.partitionStride = 2 * tile.partitionStride;
  b.gridStep();
  b.compute(Engine::Vpu, testing::vpuFill(evenRows, 1.0f));
  b.compute(Engine::Vpu, testing::vpuBinary(out, tile, tile));
  const std::optional<KernelBug> bug = bugOf(b.program);
  ASSERT_TRUE(bug);
  EXPECT_EQ(bug->kind, BugKind::UninitialisedRead);
  EXPECT_EQ(bug->region.b0, tile.offset + kCols * 4);
  EXPECT_EQ(bug->region.b1, tile.offset + 2 * kCols * 4);
}

// ---- program checks -----------------------------------------------------------------------------------------

// A buffer whose last rows run past the end of VMEM: out of bounds, naming VMEM's size.
TEST(TpuChecks, VmemOperandOutsideVmemIsRefused) {
  TpuProgramBuilder b("oob");
  isa::AccessPattern tile = b.buffer(DType::F32, kRows, kCols);
  tile.offset = static_cast<int64_t>(target().tpu.vmemBytes) - kRows / 2 * kCols * 4;
  b.gridStep();
  b.compute(Engine::Vpu, testing::vpuFill(tile, 1.0f), {}, {}, {"oob.cpp", 2});
  HbmImage hbm;
  try {
    simulate(b.program, target(), hbm);
    ADD_FAILURE() << "not refused";
  } catch (const KernelBugError &e) {
    EXPECT_EQ(e.bug().kind, BugKind::OutOfBounds);
    EXPECT_EQ(e.bug().region.memory, "vmem");
    EXPECT_EQ(e.bug().region.b1, static_cast<int64_t>(target().tpu.vmemBytes) + kRows / 2 * kCols * 4);
    EXPECT_TRUE(contains(e.what(), fmt::format("but vmem holds {} bytes", target().tpu.vmemBytes))) << e.what();
    EXPECT_EQ(e.where().line, 2u);
  }
}

/// A NeuronCore memset of `dst`.
isa::Instruction memsetOf(const isa::AccessPattern &dst) {
  isa::Instruction inst;
  inst.op = isa::Opcode::Memset;
  inst.dst = dst;
  return inst;
}

// A NeuronCore engine's stream on a TPU target, and a TPU unit's stream on a NeuronCore target, are refused
// before the run.
TEST(TpuChecks, EnginesOfTheOtherFamilyAreRefused) {
  TpuProgramBuilder b("wrong_engine");
  b.add(Engine::Vector, memsetOf(b.buffer(DType::F32, kRows, kCols)));
  expectRefused(b.program, "has a stream for the NeuronCore's 'vector' engine, which a tpu target does not have");

  TpuProgramBuilder onTrn2("wrong_unit");
  onTrn2.compute(Engine::Vpu, testing::vpuFill(onTrn2.buffer(DType::F32, kRows, kCols), 0.0f));
  expectRefused(onTrn2.program, "has a stream for the TPU's 'vpu' unit, which a neuroncore target does not have",
                testing::trn2());
}

// A TPU instruction on a NeuronCore-family opcode, and an SBUF operand on a TPU: each names what is wrong.
TEST(TpuChecks, InstructionsAndMemoriesOfTheOtherFamilyAreRefused) {
  TpuProgramBuilder b("wrong_opcode");
  b.gridStep();
  b.compute(Engine::Vpu, memsetOf(b.buffer(DType::F32, kRows, kCols)));
  expectRefused(b.program, "stream 'vpu', instruction 0 (memset)");

  TpuProgramBuilder sbuf("sbuf_on_tpu");
  sbuf.gridStep();
  sbuf.compute(Engine::Vpu,
               testing::vpuFill(testing::onChip(isa::MemSpace::Sbuf, DType::F32, 0, kRows, 0, kCols), 0.0f));
  expectRefused(sbuf.program, "operand dst is in sbuf, which target tpu-v5e (family tpu) does not have");

  TpuProgramBuilder vmem("vmem_on_trn2");
  vmem.add(Engine::Vector, memsetOf(vmem.buffer(DType::F32, kRows, kCols)));
  expectRefused(vmem.program, "operand dst is in vmem, which target trn2 (family neuroncore) does not have",
                testing::trn2());
}

// A TPU target without MXUs, or with a stopped clock, is refused before the run.
TEST(TpuChecks, TargetFiguresTheRunDividesByAreChecked) {
  TpuProgramBuilder b("figures");
  b.gridStep();
  b.compute(Engine::Vpu, testing::vpuFill(b.buffer(DType::F32, kRows, kCols), 0.0f));
  isa::Target noMxus = target();
  noMxus.tpu.mxus = 0;
  expectRefused(b.program, "0 MXUs of 128 x 128", noMxus);
  isa::Target stopped = target();
  stopped.vector.clockGhz = 0;
  expectRefused(b.program, "the vpu engine's clock is 0 GHz", stopped);
}

// Grid steps that could never all run, or would start a step twice, are refused before the run: a compute
// instruction without a step, a stream's steps decreasing, a step without its grid_step (a gap, the scalar stream
// too short, something else in its place, no scalar stream at all), a second grid_step of a step (on the scalar
// stream or elsewhere), and a step on a DMA transfer.
TEST(TpuChecks, BrokenGridStepsAreRefused) {
  auto program = [](auto &&change) {
    TpuProgramBuilder b("steps");
    const isa::AccessPattern tile = b.buffer(DType::F32, kRows, kCols);
    b.gridStep();
    b.compute(Engine::Vpu, testing::vpuFill(tile, 0.0f));
    b.gridStep();
    const uint32_t filled = b.semaphore();
    b.compute(Engine::Vpu, testing::vpuFill(tile, 1.0f), {}, {filled});
    const int32_t out = b.tensor("out", {kRows, kCols}, DType::F32, /*isOutput=*/true);
    b.dma(0, testing::hbmTensor(out, DType::F32, kRows, kCols), tile, {{filled, 1}});
    change(b);
    return b.program;
  };
  auto stream = [](TpuProgramBuilder &b, Engine engine) -> std::vector<isa::Instruction> & {
    return b.program.streams[b.streamIndex(engine)].instructions;
  };
  auto vpu = [&](TpuProgramBuilder &b) -> std::vector<isa::Instruction> & { return stream(b, Engine::Vpu); };
  auto scalar = [&](TpuProgramBuilder &b) -> std::vector<isa::Instruction> & {
    return stream(b, Engine::ScalarUnit);
  };
  HbmImage hbm;
  EXPECT_NO_THROW(simulate(program([](TpuProgramBuilder &) {}), target(), hbm)) << "the unchanged program runs";
  expectRefused(program([&](TpuProgramBuilder &b) { vpu(b)[0].step = 0; }),
                "stream 'vpu', instruction 0 (vpu_fill) belongs to no grid step (step 0)");
  expectRefused(program([&](TpuProgramBuilder &b) { std::swap(vpu(b)[0].step, vpu(b)[1].step); }),
                "stream 'vpu', instruction 1 (vpu_fill) belongs to step 1 after an instruction of step 2: a "
                "stream's steps never decrease");
  expectRefused(program([&](TpuProgramBuilder &b) { vpu(b)[1].step = 3; }),
                "step 3 of 3 has no grid_step: the scalar stream ends after 2 instructions");
  expectRefused(program([&](TpuProgramBuilder &b) { scalar(b)[1].step = 3; }),
                "step 2 of 3 has no grid_step: stream 'scalar', instruction 1 (grid_step) starts step 3 instead");
  expectRefused(program([&](TpuProgramBuilder &b) {
                  scalar(b)[0] = testing::vpuFill({}, 0.0f);
                  scalar(b)[0].step = 1;
                }),
                "step 1 of 2 has no grid_step: stream 'scalar', instruction 0 (vpu_fill) is not a grid_step");
  expectRefused(program([&](TpuProgramBuilder &b) { scalar(b)[1].step = 1; }),
                "stream 'scalar', instruction 1 (grid_step) is a second grid_step of step 1");
  expectRefused(program([&](TpuProgramBuilder &b) { b.add(Engine::ScalarUnit, scalar(b)[1]); }),
                "stream 'scalar', instruction 2 (grid_step) is a second grid_step of step 2; stream 'scalar', "
                "instruction 1 (grid_step) starts it");
  expectRefused(program([&](TpuProgramBuilder &b) { b.add(Engine::Vpu, scalar(b)[1]); }),
                "stream 'vpu', instruction 2 (grid_step) is a second grid_step of step 2; stream 'scalar', "
                "instruction 1 (grid_step) starts it");
  expectRefused(program([](TpuProgramBuilder &b) {
                  std::erase_if(b.program.streams, [](const isa::Stream &s) { return s.engine == Engine::ScalarUnit; });
                }),
                "stream 'vpu', instruction 1 (vpu_fill) belongs to step 2, but the kernel has no scalar stream to run "
                "grid steps");
  expectRefused(program([&](TpuProgramBuilder &b) { stream(b, Engine::Dma)[0].step = 2; }),
                "stream 'dma0', instruction 0 (dma) belongs to grid step 2, but only the TPU's MXU, VPU and "
                "scalar-unit instructions belong to grid steps");
}

// Step 1's VPU fill waits for a semaphore that only the MXU's matmul of step 2 signals: GridStep 2 waits for the
// fill, the matmul for GridStep 2, forever. The report says what each blocked stream waits for.
TEST(TpuChecks, DeadlockAtAGridStepBarrierIsReported) {
  TpuProgramBuilder b("step_deadlock");
  const isa::AccessPattern lhsT = b.buffer(DType::BF16, 128, 64), rhs = b.buffer(DType::BF16, 128, 128),
                           acc = b.buffer(DType::F32, 64, 128);
  const uint32_t multiplied = b.semaphore();
  b.gridStep({"deadlock.cpp", 5});
  b.compute(Engine::Vpu, testing::vpuFill(acc, 0.0f), {{multiplied, 1}}, {}, {"deadlock.cpp", 6});
  b.gridStep({"deadlock.cpp", 7});
  b.compute(Engine::Mxu, testing::mxuMatmul(acc, lhsT, rhs), {}, {multiplied}, {"deadlock.cpp", 8});
  const std::optional<KernelBug> bug = bugOf(b.program);
  ASSERT_TRUE(bug);
  EXPECT_EQ(bug->kind, BugKind::Deadlock);
  ASSERT_EQ(bug->instructions.size(), 3u);
  auto of = [&](const std::string &name) {
    const auto it = std::ranges::find(bug->instructions, name, &BugInstruction::stream);
    EXPECT_NE(it, bug->instructions.end()) << name;
    return it == bug->instructions.end() ? BugInstruction{} : *it;
  };
  EXPECT_EQ(of("vpu").action, "waits for semaphore 0 to reach 1; it stands at 0");
  EXPECT_EQ(of("scalar").action, "grid step 2 waits for 1 unfinished instruction of step 1, e.g. stream 'vpu', "
                                 "instruction 0 (vpu_fill)");
  EXPECT_EQ(of("scalar").loc.line, 7u);
  EXPECT_EQ(of("mxu").action, "waits for grid step 2's bookkeeping");
  EXPECT_EQ(of("mxu").loc.line, 8u);
}

} // namespace
} // namespace tessera::sim
