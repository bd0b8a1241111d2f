// SPMD launches (tsr::program_id, KernelInfo::grid): add_spmd's programs split between the two cores of trn2's
// logical NeuronCore and of tpu-v5p's megacore, simulated at once with their HBM shared, its outputs checked; on one
// core the programs run one after another. The compiler's split (coreShare) and the reports' merge (mergeCores).

#include "tessera/Driver.h"
#include "tessera/LiveMemory.h"
#include "tessera/Report.h"
#include "tessera/Trace.h"
#include "tessera/compiler/Launch.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <variant>

namespace {

using namespace tessera;

driver::RunReport runAddSpmd(const std::string &target, unsigned launchCores = 0) {
  driver::RunRequest request{.kernel = "add_spmd", .target = target, .shape = {{"M", 512}, {"N", 1024}}};
  if (launchCores) {
    request.machine = driver::loadTarget(target);
    request.machine->hbm.launchCores = launchCores;
  }
  return driver::runKernel(request);
}

TEST(SpmdLaunch, Trn2SplitsTheGridBetweenItsTwoCores) {
  const driver::RunReport r = runAddSpmd("trn2");
  ASSERT_TRUE(r.ok) << driver::toText(r);
  EXPECT_EQ(r.grid, (std::vector<int64_t>{4, 2}));
  ASSERT_EQ(r.cores.size(), 2u);
  EXPECT_EQ(r.cores[0].firstProgram, 0);
  EXPECT_EQ(r.cores[0].programs, 2);
  EXPECT_EQ(r.cores[1].firstProgram, 2);
  EXPECT_EQ(r.cores[1].programs, 2);
  double slowest = 0;
  uint64_t instructions = 0, hbmBytes = 0;
  for (const driver::CoreRun &c : r.cores) {
    EXPECT_GT(c.timeNs, 0);
    EXPECT_EQ(c.hbmBytes, 2u * 256 * 1024 * 4 + 256u * 1024 * 4) << "each core moves its half of a, b and c";
    slowest = std::max(slowest, c.timeNs);
    instructions += c.instructions;
    hbmBytes += c.hbmBytes;
  }
  EXPECT_DOUBLE_EQ(r.sim.timeNs, slowest) << "the chip's time is its slowest core's";
  EXPECT_EQ(r.sim.instructions, instructions);
  EXPECT_EQ(r.sim.hbmBytes, hbmBytes);
  const bool named = std::ranges::all_of(r.sim.streams, [](const sim::StreamStats &s) {
    return s.name.starts_with("core0.") || s.name.starts_with("core1.");
  });
  EXPECT_TRUE(named) << "streams are named by core";
  const std::string text = driver::toText(r);
  EXPECT_NE(text.find("launch grid      [4, 2], axis 0 split between 2 cores sharing HBM"), std::string::npos) << text;
  EXPECT_NE(text.find("programs 2..3 of axis 0"), std::string::npos) << text;
  const nlohmann::json j = driver::toJson(r);
  EXPECT_EQ(j["launch"]["grid"], nlohmann::json({4, 2}));
  EXPECT_EQ(j["launch"]["cores"].size(), 2u);
}

TEST(SpmdLaunch, TheTraceHasOneGroupOfTracksPerCore) {
  driver::RunRequest request{.kernel = "add_spmd", .target = "trn2", .recordTimeline = true};
  const driver::RunReport r = driver::runKernel(request);
  ASSERT_TRUE(r.ok);
  std::vector<std::string> tracks;
  const nlohmann::ordered_json trace = driver::toTrace(r);
  for (const auto &event : trace["traceEvents"])
    if (event["name"] == "thread_name") tracks.push_back(event["args"]["name"]);
  ASSERT_FALSE(tracks.empty());
  const auto firstOfCore1 = std::ranges::find_if(tracks, [](const std::string &t) { return t.starts_with("core1."); });
  ASSERT_NE(firstOfCore1, tracks.end());
  EXPECT_TRUE(std::all_of(tracks.begin(), firstOfCore1, [](const std::string &t) { return t.starts_with("core0."); }));
  EXPECT_TRUE(std::all_of(firstOfCore1, tracks.end(), [](const std::string &t) { return t.starts_with("core1."); }));
  EXPECT_EQ(tracks.front(), "core0.tensor");
}

TEST(SpmdLaunch, EachCoreHasItsOwnOnChipMemorySeries) {
  driver::RunRequest request{.kernel = "add_spmd", .target = "trn2", .recordTimeline = true};
  const driver::RunReport r = driver::runKernel(request);
  ASSERT_TRUE(r.ok);
  const driver::LiveBytes live = driver::liveBytesOverTime(*r.program, r.target, r.sim.timeline);
  std::vector<std::string> sbuf;
  for (const driver::LiveSeries &m : live.memories)
    if (m.space == isa::MemSpace::Sbuf) {
      sbuf.push_back(m.title());
      EXPECT_GT(m.peak, 0) << m.title() << ": each core holds its own tiles";
      EXPECT_LE(m.peak, static_cast<int64_t>(m.capacityBytes)) << m.title();
    }
  EXPECT_EQ(sbuf, (std::vector<std::string>{"SBUF, core 0", "SBUF, core 1"}));
}

TEST(SpmdLaunch, TwoCoresAreFasterThanOne) {
  const driver::RunReport two = runAddSpmd("trn2"), one = runAddSpmd("trn2", 1);
  ASSERT_TRUE(two.ok && one.ok);
  EXPECT_TRUE(one.cores.empty()) << "one core: the programs run one after another";
  EXPECT_EQ(one.sim.hbmBytes, two.sim.hbmBytes);
  EXPECT_LT(two.sim.timeNs, 0.7 * one.sim.timeNs) << "two cores with their own DMA engines share the work";
}

TEST(SpmdLaunch, MegacoreOnTpuV5pAndOneCoreOnV5e) {
  const driver::RunReport v5p = runAddSpmd("tpu-v5p");
  ASSERT_TRUE(v5p.ok) << driver::toText(v5p);
  EXPECT_EQ(v5p.cores.size(), 2u);
  const driver::RunReport v5e = runAddSpmd("tpu-v5e");
  ASSERT_TRUE(v5e.ok) << driver::toText(v5e);
  EXPECT_TRUE(v5e.cores.empty());
  EXPECT_EQ(v5e.grid, (std::vector<int64_t>{4, 2}));
}

TEST(SpmdLaunch, Trn1RunsTheProgramsOnOneCore) {
  const driver::RunReport r = runAddSpmd("trn1");
  ASSERT_TRUE(r.ok) << driver::toText(r);
  EXPECT_TRUE(r.cores.empty());
  EXPECT_NE(driver::toText(r).find("its programs one after another on one core"), std::string::npos);
}

TEST(SpmdLaunch, ProgramsWritingTheSameWindowRaceBetweenCores) {
  tsr::KernelInfo k{.name = "test_spmd_same_window", .summary = "every program writes c's first tile",
                    .params = {{"M", 256}}};
  k.signature = [](const tsr::Params &p) {
    return std::vector<tsr::TensorSpec>{tsr::input("a", {p["M"], 512}, tsr::f32),
                                        tsr::output("c", {p["M"], 512}, tsr::f32)};
  };
  k.body = tsr::body([](tsr::Hbm a, tsr::Hbm c) {
    tsr::store(c.tile(0, 0, {128, 512}), tsr::load(a.tile(tsr::program_id(0), 0, {128, 512})));
  });
  k.grid = [](const tsr::Params &p) { return std::vector<int64_t>{p["M"] / 128}; };
  try {
    (void)driver::runKernel({.kernelInfo = &k, .target = "trn2", .golden = false});
    FAIL() << "the race between cores was not found";
  } catch (const sim::KernelBugError &e) {
    EXPECT_EQ(e.bug().kind, sim::BugKind::Race);
    EXPECT_NE(e.message().find("race between cores: core 1's"), std::string::npos) << e.message();
    EXPECT_NE(e.hint().find("tsr::program_id"), std::string::npos);
  }
  // On one core the programs run in order: the same kernel is no race there.
  EXPECT_NO_THROW((void)driver::runKernel({.kernelInfo = &k, .target = "trn1", .golden = false}));
}

tsr::graph::KernelGraph traced(const char *kernel, std::map<std::string, int64_t> shape) {
  const tsr::KernelInfo &info = *tsr::Registry::instance().find(kernel);
  return tsr::trace(info, info.resolve(shape));
}

/// The first load's row offset: its constant, and its coefficient of loop `loop`.
std::pair<int64_t, int64_t> firstLoadRow(const tsr::graph::Block &block, int loop) {
  for (const tsr::graph::Stmt &stmt : block.stmts) {
    if (const auto *op = std::get_if<tsr::graph::Op>(&stmt); op && op->kind == tsr::graph::OpKind::Load) {
      int64_t coefficient = 0;
      for (auto [id, c] : op->hbm.offsets[0].terms)
        if (id == loop) coefficient = c;
      return {op->hbm.offsets[0].constant, coefficient};
    }
    if (const auto *inner = std::get_if<tsr::graph::Loop>(&stmt)) {
      auto found = firstLoadRow(inner->body, loop);
      if (found.second != 0 || found.first != 0) return found;
    }
  }
  return {0, 0};
}

TEST(SpmdLaunch, CoreShareCutsAxisZeroIntoContiguousBlocks) {
  const tsr::graph::KernelGraph g = traced("add_spmd", {{"M", 640}, {"N", 512}}); // grid [5, 1]
  ASSERT_EQ(g.grid, (std::vector<int64_t>{5, 1}));
  const auto &axis0 = std::get<tsr::graph::Loop>(g.body.stmts.front());
  EXPECT_EQ(axis0.spmdAxis, 0);
  EXPECT_EQ(firstLoadRow(axis0.body, axis0.id), (std::pair<int64_t, int64_t>{0, 128}));
  const tsr::graph::KernelGraph core0 = compiler::coreShare(g, 0, 2), core1 = compiler::coreShare(g, 1, 2);
  const auto &loop0 = std::get<tsr::graph::Loop>(core0.body.stmts.front());
  const auto &loop1 = std::get<tsr::graph::Loop>(core1.body.stmts.front());
  EXPECT_EQ(loop0.tripCount, 2);
  EXPECT_EQ(loop1.tripCount, 3);
  EXPECT_EQ(firstLoadRow(loop0.body, loop0.id), (std::pair<int64_t, int64_t>{0, 128}));
  EXPECT_EQ(firstLoadRow(loop1.body, loop1.id), (std::pair<int64_t, int64_t>{2 * 128, 128}))
      << "core 1's first program is program 2: row 256";
  EXPECT_EQ(compiler::launchCores(g, driver::loadTarget("trn2")), 2u);
  EXPECT_EQ(compiler::launchCores(g, driver::loadTarget("trn1")), 1u);
  EXPECT_EQ(compiler::launchCores(traced("add", {}), driver::loadTarget("trn2")), 1u) << "no grid, one core";
}

TEST(SpmdLaunch, MergedProgramKeepsEachCoresSemaphores) {
  isa::Program a;
  a.kernel = "k";
  a.semaphores = 2;
  a.locations = {SourceLoc{}, SourceLoc{"k.cpp", 3}};
  isa::Stream s;
  isa::Instruction i;
  i.waitBegin = 0, i.waitCount = 1, i.signalBegin = 0, i.signalCount = 1, i.loc = 1;
  s.instructions.push_back(i);
  a.streams.push_back(s);
  a.waits.push_back({1, 1});
  a.signals.push_back(0);
  const isa::Program b = a;
  const isa::Program merged = isa::mergeCores(std::vector<isa::Program>{a, b});
  ASSERT_EQ(merged.streams.size(), 2u);
  EXPECT_EQ(merged.semaphores, 4u);
  EXPECT_EQ(merged.streams[1].label(), "core1.tensor");
  const isa::Instruction &second = merged.streams[1].instructions[0];
  EXPECT_EQ(merged.waitsOf(second)[0].sem, 3u);
  EXPECT_EQ(merged.signalsOf(second)[0], 2u);
  EXPECT_EQ(merged.locations[second.loc].line, 3u);
  EXPECT_EQ(merged.locations.size(), 3u);
}

} // namespace
