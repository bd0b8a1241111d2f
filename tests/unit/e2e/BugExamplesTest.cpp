// The deliberately broken example kernels (kernels/examples/bug_*.cpp), one per kind of bug the simulator
// reports. Each goes the whole way (trace, compile, simulate) and is stopped by the simulator with its report:
// the kind, each instruction with its engine and the kernel source line (marked in the kernel file by a
// "[bug_...: role]" comment), the memory range, and the simulated time, which the tests recompute from the
// target's figures where the arithmetic is short.

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/DmaCost.h"
#include "tessera/sim/KernelBug.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace {

using namespace tessera;
using isa::Engine;
using isa::Opcode;
using sim::BugKind;

/// The line of `kernel`'s source file that holds the marker "[<kernel>: <role>]".
uint32_t markedLine(const std::string &kernel, const std::string &role) {
  const tsr::KernelInfo &k = driver::findKernel(kernel);
  std::ifstream in(k.loc.file);
  EXPECT_TRUE(in) << "cannot read " << k.loc.file;
  const std::string marker = "[" + kernel + ": " + role + "]";
  std::string line;
  for (uint32_t number = 1; std::getline(in, line); ++number)
    if (line.find(marker) != std::string::npos) return number;
  ADD_FAILURE() << k.loc.file << " has no line marked " << marker;
  return 0;
}

/// The report `kernel` is stopped with on `target` (and its message).
struct Stopped {
  sim::KernelBug bug;
  std::string message;
  SourceLoc where;
};
std::optional<Stopped> run(const std::string &kernel, const std::string &target = "trn2") {
  try {
    driver::runKernel({.kernel = kernel, .target = target});
  } catch (const sim::KernelBugError &e) {
    return Stopped{e.bug(), e.what(), e.where()};
  }
  ADD_FAILURE() << kernel << " ran without a kernel-bug report";
  return std::nullopt;
}

/// Expects `i` to be `op` on `engine` at the marked line of `kernel`'s file.
void expectInstruction(const sim::BugInstruction &i, const std::string &kernel, const std::string &role, Opcode op,
                       std::initializer_list<Engine> engines) {
  SCOPED_TRACE(role);
  EXPECT_EQ(i.op, op) << isa::name(i.op);
  EXPECT_NE(std::find(engines.begin(), engines.end(), i.engine), engines.end()) << isa::name(i.engine);
  EXPECT_EQ(i.loc.file, driver::findKernel(kernel).loc.file);
  EXPECT_EQ(i.loc.line, markedLine(kernel, role));
}

/// When a DMA of `bytesPerPartition` into each of 128 partitions, alone from time 0, completes: the longest of its
/// fixed cost, its descriptor slot, its streaming on the 16 engines of its partitions (8 partitions each) and its
/// time on the HBM share (docs/memory.md).
double dmaNs(const isa::Target &t, double bytesPerPartition) {
  const double streamingNs = t.dma.partitionsPerEngine * bytesPerPartition /
                             (t.dma.bytesPerNsPerEngine * isa::dmaEfficiency(bytesPerPartition, t.dma));
  return std::max({t.dma.fixedLatencyNs, t.dma.descriptorNs, streamingNs, 128 * bytesPerPartition / t.dma.hbmGBps});
}

constexpr double kPs = 1e-3; // the simulator's resolution, in ns

class OnTarget : public testing::TestWithParam<std::string> {
protected:
  isa::Target target() const { return isa::Target::find(GetParam()); }
};

// ndarray's tile is read by the add before anything writes it: the add (vector or gpsimd: the compiler picks)
// reads its first unwritten bytes when x's load has completed.
TEST_P(OnTarget, BugUninitReportsTheReaderAndTheUnwrittenBytes) {
  const auto s = run("bug_uninit", GetParam());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bug.kind, BugKind::UninitialisedRead);
  ASSERT_EQ(s->bug.instructions.size(), 1u);
  expectInstruction(s->bug.instructions[0], "bug_uninit", "reader", Opcode::TensorTensor,
                    {Engine::Vector, Engine::GpSimd});
  EXPECT_EQ(s->bug.instructions[0].action, "reads src1");
  EXPECT_EQ(s->bug.region.memory, "sbuf");
  EXPECT_EQ(s->bug.region.p0, 0u);
  EXPECT_EQ(s->bug.region.p1, 1u);
  EXPECT_EQ(s->bug.region.b0, 0) << "the bias tile is the first the compiler placed";
  EXPECT_EQ(s->bug.region.b1, 512 * 4);
  EXPECT_NEAR(s->bug.timeNs, dmaNs(target(), 512 * 4), kPs);
  EXPECT_EQ(s->where.line, markedLine("bug_uninit", "reader"));
  EXPECT_NE(s->message.find("uninitialised read in kernel 'bug_uninit'"), std::string::npos) << s->message;
}

// The add waits for x's load but not y's: it reads y while y's DMA (the second transfer on the shared bandwidth)
// is still in flight. Reported when the add starts, at x's completion.
TEST_P(OnTarget, BugRaceReportsBothInstructionsTheBytesAndTheTime) {
  const auto s = run("bug_race", GetParam());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bug.kind, BugKind::Race);
  EXPECT_EQ(s->bug.detail, "read after write");
  ASSERT_EQ(s->bug.instructions.size(), 2u);
  expectInstruction(s->bug.instructions[0], "bug_race", "reader", Opcode::TensorTensor,
                    {Engine::Vector, Engine::GpSimd});
  EXPECT_EQ(s->bug.instructions[0].action, "reads src1");
  expectInstruction(s->bug.instructions[1], "bug_race", "writer", Opcode::DmaCopy, {Engine::Dma});
  EXPECT_EQ(s->bug.instructions[1].stream, "dma1");
  EXPECT_EQ(s->bug.instructions[1].action, "writes");
  EXPECT_EQ(s->bug.region.memory, "sbuf");
  EXPECT_EQ(s->bug.region.p0, 0u);
  EXPECT_EQ(s->bug.region.p1, 128u);
  EXPECT_EQ(s->bug.region.b0, 512 * 4) << "y is the second tile";
  EXPECT_EQ(s->bug.region.b1, 2 * 512 * 4);
  EXPECT_NEAR(s->bug.timeNs, dmaNs(target(), 512 * 4), kPs);
  // Both lines appear in the message too.
  for (const char *role : {"reader", "writer"})
    EXPECT_NE(s->message.find("bug_race.cpp:" + std::to_string(markedLine("bug_race", role))), std::string::npos)
        << s->message;
}

// The exp waits for a semaphore only it signals, and the store waits for the exp: both are blocked once the
// load has completed and nothing else can run.
TEST_P(OnTarget, BugDeadlockReportsEveryBlockedInstruction) {
  const auto s = run("bug_deadlock", GetParam());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bug.kind, BugKind::Deadlock);
  EXPECT_FALSE(s->bug.region.known());
  ASSERT_EQ(s->bug.instructions.size(), 2u);
  expectInstruction(s->bug.instructions[0], "bug_deadlock", "exp", Opcode::Activation, {Engine::Scalar});
  EXPECT_EQ(s->bug.instructions[0].action, "waits for semaphore 1 to reach 1; it stands at 0");
  expectInstruction(s->bug.instructions[1], "bug_deadlock", "store", Opcode::DmaCopy, {Engine::Dma});
  EXPECT_EQ(s->bug.instructions[1].action, "waits for semaphore 1 to reach 1; it stands at 0");
  EXPECT_NEAR(s->bug.timeNs, dmaNs(target(), 512 * 4), kPs);
  // The device_print before the stuck exp ran, once the load had arrived: the report carries its log.
  ASSERT_EQ(s->bug.prints.size(), 1u);
  EXPECT_EQ(s->bug.prints[0].name, "t");
  EXPECT_EQ(s->bug.prints[0].loc.line, markedLine("bug_deadlock", "print"));
  EXPECT_EQ(s->bug.prints[0].values.size(), 128u * 512u);
  EXPECT_NEAR(s->bug.prints[0].timeNs, s->bug.timeNs, kPs);
}

// The hand-placed tile starts 221184 bytes into each partition, past what kernels may use on trn1 and trn2.
TEST_P(OnTarget, BugOobReportsTheAccessAndTheRange) {
  const auto s = run("bug_oob", GetParam());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bug.kind, BugKind::OutOfBounds);
  ASSERT_EQ(s->bug.instructions.size(), 1u);
  expectInstruction(s->bug.instructions[0], "bug_oob", "access", Opcode::Memset, {Engine::Vector, Engine::GpSimd});
  EXPECT_EQ(s->bug.instructions[0].action, "writes dst");
  EXPECT_EQ(s->bug.region.memory, "sbuf");
  EXPECT_EQ(s->bug.region.p0, 0u);
  EXPECT_EQ(s->bug.region.p1, 128u);
  EXPECT_EQ(s->bug.region.b0, 216 * 1024);
  EXPECT_EQ(s->bug.region.b1, 216 * 1024 + 512 * 4);
  EXPECT_GT(s->bug.region.b1, static_cast<int64_t>(target().sbufBytesPerPartition));
  EXPECT_EQ(s->bug.timeNs, 0.0) << "the memset is the first instruction of its engine";
  EXPECT_NE(s->message.find(std::to_string(target().sbufBytesPerPartition) + " bytes"), std::string::npos)
      << s->message;
}

// The first matmul accumulates onto the memset's zeros. It starts when its operands have arrived: the first
// two transfers (a [128, 128] and a [128, 512] bf16 tile) streamed back to back on the shared bandwidth.
TEST_P(OnTarget, BugPsumAccumulateReportsTheMatmulAndTheMemset) {
  const auto s = run("bug_psum_accumulate", GetParam());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bug.kind, BugKind::AccumulateOntoNonMatmul);
  ASSERT_EQ(s->bug.instructions.size(), 2u);
  expectInstruction(s->bug.instructions[0], "bug_psum_accumulate", "matmul", Opcode::Matmul, {Engine::Tensor});
  EXPECT_EQ(s->bug.instructions[0].index, 0u);
  EXPECT_EQ(s->bug.instructions[0].action, "accumulates into dst");
  expectInstruction(s->bug.instructions[1], "bug_psum_accumulate", "memset", Opcode::Memset, {Engine::Vector});
  EXPECT_EQ(s->bug.region.memory, "psum");
  EXPECT_EQ(s->bug.region.p0, 0u);
  EXPECT_EQ(s->bug.region.p1, 128u);
  EXPECT_EQ(s->bug.region.b0, 0);
  EXPECT_EQ(s->bug.region.b1, 512 * 4);
  // The two loads run side by side on two queues, but the descriptor generator takes them one after the other:
  // the matmul starts when the slower is done, no earlier than two descriptor slots.
  const isa::Target t = target();
  EXPECT_NEAR(s->bug.timeNs, std::max({dmaNs(t, 128 * 2), dmaNs(t, 512 * 2), 2 * t.dma.descriptorNs}), kPs);
  EXPECT_NE(s->message.find("on " + GetParam() + " (NeuronCore-" + target().generation + ")"), std::string::npos)
      << s->message;
}

INSTANTIATE_TEST_SUITE_P(Targets, OnTarget, testing::Values("trn1", "trn2"));

// On a target where accumulating onto memset data is defined, the same kernel runs (and matches its reference:
// the memset put zeros there).
TEST(BugExamples, PsumAccumulateIsFineWhereTheTargetDefinesIt) {
  std::ifstream in(isa::Target::find("trn2").file);
  std::stringstream text;
  text << in.rdbuf();
  std::string toml = text.str();
  const std::string field = "accumulate_onto_non_matmul = \"undefined\"";
  ASSERT_NE(toml.find(field), std::string::npos);
  toml.replace(toml.find(field), field.size(), "accumulate_onto_non_matmul = \"defined\"");
  const auto file = std::filesystem::temp_directory_path() / ("tessera-defined-" + std::to_string(::getpid()) + ".toml");
  std::ofstream(file) << toml;
  driver::RunReport r = driver::runKernel({.kernel = "bug_psum_accumulate", .target = file.string()});
  std::filesystem::remove(file);
  EXPECT_TRUE(r.ok);
  // NeuronCore-v4 defines it (docs/targets.md "nc_matmul": only v2/v3 leave it undefined): the built-in trn3
  // runs it.
  EXPECT_TRUE(driver::runKernel({.kernel = "bug_psum_accumulate", .target = "trn3"}).ok);
}

// Every bug_* kernel is listed as deliberately broken and has a test here.
TEST(BugExamples, AreListedAsDeliberatelyBrokenAndAllTested) {
  const std::set<std::string> tested{"bug_deadlock", "bug_oob", "bug_psum_accumulate", "bug_race", "bug_uninit"};
  std::set<std::string> found;
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) {
    if (!k->name.starts_with("bug_")) {
      EXPECT_FALSE(k->summary.starts_with("deliberately broken")) << k->name;
      continue;
    }
    found.insert(k->name);
    EXPECT_TRUE(k->summary.starts_with("deliberately broken: ")) << k->name << ": " << k->summary;
    EXPECT_NE(k->loc.file.find("kernels/examples/"), std::string::npos) << k->loc.file;
  }
  EXPECT_EQ(found, tested);
}

// `--json`'s error object carries the report: what tools read instead of parsing the message.
TEST(BugExamples, ReportAsJson) {
  const auto s = run("bug_race");
  ASSERT_TRUE(s);
  const nlohmann::json j = driver::toJson(s->bug);
  EXPECT_EQ(j["kind"], "race");
  EXPECT_EQ(j["detail"], "read after write");
  EXPECT_EQ(j["instructions"].size(), 2u);
  EXPECT_EQ(j["instructions"][1]["engine"], "dma");
  EXPECT_EQ(j["instructions"][1]["opcode"], "dma_copy");
  EXPECT_EQ(j["instructions"][0]["line"], markedLine("bug_race", "reader"));
  EXPECT_EQ(j["region"]["memory"], "sbuf");
  EXPECT_EQ(j["region"]["bytes"][0], 2048);
  EXPECT_GT(j["time_ns"].get<double>(), 0.0);
}

} // namespace
