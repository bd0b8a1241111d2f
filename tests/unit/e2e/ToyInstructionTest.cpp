/// \file
/// An instruction added through its definition alone: a toy `toy_scale` (dst = data x scale on the vector engine),
/// registered at run time with isa::registerInstruction, with a DSL function of five lines and a kernel that calls
/// it. Nothing else in the tree knows it, and yet the kernel compiles, simulates and matches its reference; the NKI
/// emitter writes its call, the HTML report colours it by its category, the trace shows its setting, and its rule
/// stops a kernel that breaks it at the kernel's line.

#include "IsaCall.h"
#include "tessera/DeviceCode.h"
#include "tessera/Driver.h"
#include "tessera/HtmlReport.h"
#include "tessera/Trace.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/Cost.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/Semantics.h"

#include <gtest/gtest.h>

#include <string>

namespace tessera::driver {
namespace {

using isa::Instruction;

/// The same work as tensor_scalar multiply by `scale`: how the toy computes and what it costs.
Instruction asTensorScalar(const Instruction &inst) {
  Instruction t = inst;
  t.op = isa::Opcode::TensorScalar;
  t.alu = isa::AluOp::Multiply;
  t.operand0 = inst.scale;
  t.alu1 = isa::AluOp::Bypass;
  t.scale = 1.0f;
  return t;
}

constexpr isa::OperandDef kToyOperands[] = {{"dst", "dst", "SBUF, data's shape"}, {"src0", "data", "SBUF"}};
constexpr isa::SettingDef kToySettings[] = {{isa::Setting::Scale, "scale"}};
constexpr isa::Rule kToyRules[] = {
    {"toy_scale.nonzero", "this test's own documentation",
     [](const Instruction &inst, isa::Engine, const isa::Target *) -> std::string {
       return inst.scale == 0.0f ? "a scale of 0 writes only zeros: memset the tile instead" : "";
     }}};

isa::InstructionDef toyDefinition() {
  return {.name = "toy_scale",
          .nki = "nki.isa.toy_scale",
          .summary = "dst = data x scale (a toy, registered by ToyInstructionTest)",
          .engines = {isa::Engine::Vector},
          .preferredEngine = isa::Engine::Vector,
          .since = "v2",
          .operands = kToyOperands,
          .limits = "dst has data's shape",
          .cost = "tensor_scalar's",
          .use = [](const Instruction &) { return isa::OperandUse{.src0 = true}; },
          .verify = [](const Instruction &inst, const isa::Target *) -> std::string {
            return inst.dst.partitions == inst.src0.partitions &&
                           inst.dst.freeElements() == inst.src0.freeElements()
                       ? ""
                       : "dst and data differ in shape";
          },
          .execute = [](const Instruction &inst, const isa::Memories &mem) { isa::execute(asTensorScalar(inst), mem); },
          .cycles = [](const Instruction &inst, isa::Engine engine, const isa::Target &target) {
            return isa::engineCycles(asTensorScalar(inst), engine, target);
          },
          .settings = kToySettings,
          .category = isa::Category::Elementwise,
          .flops = [](const Instruction &inst) { return uint64_t(inst.src0.partitions) * inst.src0.freeElements(); },
          .nkiCall = [](const Instruction &inst, isa::NkiCall &call) {
            call.operand("dst", isa::Slot::Dst).operand("data", isa::Slot::Src0).real("scale", inst.scale);
          },
          .rules = kToyRules};
}

/// The opcode the toy got (registered once per process).
isa::Opcode toyOpcode() {
  static const isa::Opcode op = isa::registerInstruction(toyDefinition());
  return op;
}

/// The toy's DSL function, as the library's tsr::isa functions are written.
void toyScale(const tsr::Tile &dst, const tsr::Operand &data, float scale,
              std::source_location loc = std::source_location::current()) {
  tsr::detail::IsaCall call{.dst = dst, .src0 = data};
  call.settings.op = toyOpcode();
  call.settings.scale = scale;
  tsr::detail::recordInstruction(call, loc);
}

/// Registers y = x * scale, through the toy (scale = 0 breaks its rule), once per process and only in the
/// processes of these tests (ctest runs each test alone): the tests that walk every registered kernel
/// (GoldenLibrary, BackendCoverage) know nothing of a toy, as the real NKI would not.
void registerToyKernel() {
  toyOpcode(); // before anything is traced
  static const bool once = [] {
    tsr::Registry::instance().add({
        .name = "toy_scale_kernel",
        .summary = "y = x * scale through the toy instruction (ToyInstructionTest)",
        .params = {{"N", 512}},
        .scalarParams = {{"scale", 0.5}},
        .signature =
            [](const tsr::Params &p) {
              return std::vector<tsr::TensorSpec>{tsr::input("x", {128, p["N"]}, tsr::f32),
                                                  tsr::output("y", {128, p["N"]}, tsr::f32)};
            },
        .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm y) {
          tsr::Tile in = tsr::load(x.tile(0, 0, {128, x.dim(1)}));
          tsr::Tile out = tsr::ndarray<tsr::f32>({128, x.dim(1)});
          toyScale(out, in, static_cast<float>(p.scalar("scale")));
          tsr::store(y.tile(0, 0, {128, x.dim(1)}), out);
        }),
        .reference =
            [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
              for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = in[0][i] * static_cast<float>(p.scalar("scale"));
            },
    });
    return true;
  }();
  (void)once;
}

TEST(ToyInstruction, RunsThroughEveryLayerFromItsDefinitionAlone) {
  registerToyKernel();
  RunRequest request{.kernel = "toy_scale_kernel", .target = "trn2", .recordTimeline = true};
  request.compile.recordProvenance = true;
  const RunReport report = runKernel(request);
  ASSERT_TRUE(report.ok) << "the toy's numbers differ from the reference";
  ASSERT_TRUE(report.program);
  bool ran = false;
  for (const isa::Stream &stream : report.program->streams)
    for (const Instruction &inst : stream.instructions)
      ran |= inst.op == toyOpcode() && stream.engine == isa::Engine::Vector;
  EXPECT_TRUE(ran) << "no toy_scale on the vector engine";

  // The trace names it and gives its setting by its name.
  const std::string trace = toTrace(report).dump();
  EXPECT_NE(trace.find("\"toy_scale\""), std::string::npos);
  EXPECT_NE(trace.find("\"scale\":0.5"), std::string::npos) << trace.substr(0, 2000);
  // The report draws it with the other elementwise work.
  const std::string html = toHtml(report);
  EXPECT_NE(html.find("toy_scale"), std::string::npos);

  // NKI: the call its definition writes.
  const CompiledKernel k = compileKernel(request);
  const std::string nki = emitDeviceCode(
      kernelSource(*k.kernel, k.params, k.target, k.compiled.program, k.compiled.provenance, &k.compiled.tileProgram,
                   "test"),
      "nki");
  EXPECT_NE(nki.find("nisa.toy_scale(dst="), std::string::npos) << nki;
  EXPECT_NE(nki.find(", scale=0.5)"), std::string::npos) << nki;
}

TEST(ToyInstruction, ItsRuleStopsAKernelAtTheKernelsLine) {
  registerToyKernel();
  try {
    runKernel({.kernel = "toy_scale_kernel", .target = "trn2", .scalarParams = {{"scale", 0.0}}});
    FAIL() << "a scale of 0 ran";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("a scale of 0 writes only zeros"), std::string::npos) << e.message();
    EXPECT_NE(e.where().file.find("ToyInstructionTest.cpp"), std::string::npos) << e.what();
  }
}

TEST(ToyInstruction, ANameAlreadyTakenIsRefused) {
  isa::InstructionDef again = toyDefinition();
  again.name = "reciprocal";
  EXPECT_THROW(isa::registerInstruction(again), Error);
  EXPECT_EQ(isa::definition(*isa::parseOpcode("reciprocal")).nki, "nki.isa.reciprocal");
}

} // namespace
} // namespace tessera::driver
