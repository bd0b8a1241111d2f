// tsr::device_print through the whole path: the DSL call becomes tile.print, nc.print on an engine (synchronised
// like any reader of the tile), a Print instruction, and an entry of the simulator's log with the values the
// tile held and the simulated time; the golden model ignores it; the report shows the log as text and JSON.

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/Cost.h"
#include "tessera/isa/DmaCost.h"
#include "tessera/isa/InstructionOverhead.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace {

using namespace tessera;

int printXLine = 0, printSquareLine = 0;

// y = x * x on one [4, 8] tile, printing the loaded tile and the product.
const tsr::Registration printKernel{{
    .name = "test_device_print",
    .summary = "y = x * x, printing x and the product (DevicePrintTest)",
    .params = {{"N", 8}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {4, p["N"]}, tsr::f32),
                                              tsr::output("y", {4, p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      tsr::Tile t = tsr::load(x.tile(0, 0, {4, x.dim(1)}));
      tsr::device_print("x", t); printXLine = __LINE__;
      tsr::Tile square = t * t;
      tsr::device_print("x squared", square); printSquareLine = __LINE__;
      tsr::store(y.tile(0, 0, {4, x.dim(1)}), square);
    }),
    .reference =
        [](const tsr::Params &, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = in[0][i] * in[0][i];
        },
}};

/// The compiled program and its input x, as runKernel makes them for `seed`.
struct Compiled {
  isa::Program program;
  std::vector<float> x;
};
Compiled compileAndInputs(uint64_t seed) {
  tsr::Params params;
  tsr::graph::KernelGraph graph = driver::traceKernel(driver::findKernel("test_device_print"), {}, params);
  Compiled c{compiler::compile(graph, isa::Target::find("trn2")).program, {}};
  sim::HbmImage hbm = driver::makeInputs(c.program, seed);
  c.x = driver::decodeTensor(c.program, hbm, 0);
  return c;
}

TEST(DevicePrintEndToEnd, LogsTheValuesAndTimeOfEachPrint) {
  const uint64_t seed = 3;
  driver::RunReport r = driver::runKernel({.kernel = "test_device_print", .target = "trn2", .seed = seed});
  EXPECT_TRUE(r.ok) << "the golden model ignores the prints";
  EXPECT_EQ(r.reference, "golden+reference");
  ASSERT_EQ(r.sim.prints.size(), 2u);
  const sim::DevicePrint &x = r.sim.prints[0], &square = r.sim.prints[1];
  const Compiled c = compileAndInputs(seed);

  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(x.dtype, isa::DType::F32);
  EXPECT_EQ(x.values, c.x);
  EXPECT_EQ(x.loc.line, static_cast<uint32_t>(printXLine));
  EXPECT_NE(x.loc.file.find("DevicePrintTest.cpp"), std::string::npos);
  EXPECT_NE(x.stream, "tensor");
  // It waits for the load: a [4, 8] FP32 transfer streams in no time on one engine, so it takes its fixed cost (or
  // its descriptor slot, whichever is longer).
  const isa::Target &t = r.target;
  EXPECT_NEAR(x.timeNs, std::max(t.dma.fixedLatencyNs, t.dma.descriptorNs), 1e-3);

  EXPECT_EQ(square.name, "x squared");
  EXPECT_EQ(square.loc.line, static_cast<uint32_t>(printSquareLine));
  ASSERT_EQ(square.values.size(), 32u);
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(square.values[i], c.x[i] * c.x[i]) << i;
  // ...and the product: the multiply starts when the load completes and runs for its cost (a tiny instruction: 8
  // elements per partition, so with the static overhead); the print costs nothing.
  double multiplyNs = -1;
  for (const isa::Stream &s : c.program.streams)
    for (size_t k = 0; k < s.instructions.size(); ++k) {
      const isa::Instruction &i = s.instructions[k];
      if (i.op != isa::Opcode::TensorTensor) continue;
      const isa::Instruction *previous = k ? &s.instructions[k - 1] : nullptr;
      EXPECT_GT(isa::staticOverheadCycles(i, previous, s.engine, t), 0u);
      multiplyNs = (isa::engineCycles(i, s.engine, t) + isa::staticOverheadCycles(i, previous, s.engine, t)) /
                   isa::clockGhz(s.engine, t);
    }
  ASSERT_GT(multiplyNs, 0);
  EXPECT_NEAR(square.timeNs, x.timeNs + multiplyNs, 1e-3);
}

TEST(DevicePrintEndToEnd, CompilesToNcPrintSynchronisedWithItsProducer) {
  const Compiled c = compileAndInputs(0);
  ASSERT_EQ(c.program.texts, (std::vector<std::string>{"x", "x squared"}));
  int prints = 0;
  for (const isa::Stream &s : c.program.streams)
    for (const isa::Instruction &i : s.instructions) {
      if (i.op != isa::Opcode::Print) continue;
      ++prints;
      EXPECT_NE(s.engine, isa::Engine::Tensor);
      EXPECT_NE(s.engine, isa::Engine::Dma);
      EXPECT_GE(i.waitCount, 1u) << "a print of another engine's result waits for it";
    }
  EXPECT_EQ(prints, 2);
}

TEST(DevicePrintEndToEnd, TimingOnlyKeepsTheTimesWithoutValues) {
  driver::RunReport values = driver::runKernel({.kernel = "test_device_print", .target = "trn2"});
  driver::RunReport timing = driver::runKernel({.kernel = "test_device_print", .target = "trn2", .timingOnly = true});
  ASSERT_EQ(timing.sim.prints.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(timing.sim.prints[i].values.empty());
    EXPECT_EQ(timing.sim.prints[i].timeNs, values.sim.prints[i].timeNs);
  }
}

TEST(DevicePrintEndToEnd, TheReportShowsTheLogAsTextAndJson) {
  driver::RunReport r = driver::runKernel({.kernel = "test_device_print", .target = "trn2", .seed = 5});
  const std::string text = driver::toText(r);
  const size_t log = text.find("device_print (2; in simulated-time order)");
  ASSERT_NE(log, std::string::npos) << text;
  EXPECT_GT(log, text.find("verdict: ok")) << "after the report";
  EXPECT_NE(text.find(fmt::format("  x at {:.3f} ns on {} (", r.sim.prints[0].timeNs, r.sim.prints[0].stream)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("DevicePrintTest.cpp:{}): [4, 8] f32", printXLine)), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("    [  0] {:>11.5g}", r.sim.prints[0].values[0])), std::string::npos) << text;

  const nlohmann::json j = driver::toJson(r);
  ASSERT_EQ(j["prints"].size(), 2u);
  const nlohmann::json &square = j["prints"][1];
  EXPECT_EQ(square["name"], "x squared");
  EXPECT_EQ(square["shape"], nlohmann::json::array({4, 8}));
  EXPECT_EQ(square["dtype"], "f32");
  EXPECT_EQ(square["line"], printSquareLine);
  EXPECT_DOUBLE_EQ(square["time_ns"].get<double>(), r.sim.prints[1].timeNs);
  ASSERT_EQ(square["values"].size(), 4u);
  ASSERT_EQ(square["values"][3].size(), 8u);
  EXPECT_EQ(square["values"][3][7].get<float>(), r.sim.prints[1].values[31]);
}

// A kernel without prints has an empty log and no device_print section.
TEST(DevicePrintEndToEnd, NoPrintsNoSection) {
  driver::RunReport r = driver::runKernel({.kernel = "add", .target = "trn2", .shape = {{"M", 128}, {"N", 128}}});
  EXPECT_TRUE(r.sim.prints.empty());
  EXPECT_EQ(driver::toText(r).find("device_print"), std::string::npos);
  EXPECT_TRUE(driver::toJson(r)["prints"].empty());
}

} // namespace
