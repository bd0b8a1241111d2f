// A run draws its random inputs while the kernel compiles (InputDrawing.h), from the traced kernel's tensors: the
// inputs must be byte for byte those makeInputs draws for the compiled program, whatever the kernel.

#include "tessera/Driver.h"
#include "tessera/InputDrawing.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using driver::InputDrawing;

std::string describe(const std::vector<isa::TensorInfo> &tensors) {
  std::string text;
  for (const isa::TensorInfo &t : tensors) {
    text += t.name + ":" + std::string(isa::name(t.dtype)) + "[";
    for (int64_t d : t.shape) text += std::to_string(d) + ",";
    text += t.isOutput ? "] out " : t.isScratch ? "] scratch " : "] in ";
  }
  return text;
}

// The drawing thread uses the traced tensors only when they are the compiled program's: this keeps the overlap
// from being lost without notice (take() would draw again) on any kernel, N-D, scratch and SPMD ones included.
TEST(InputDrawing, TracedTensorsAreTheCompiledProgramsForEveryKernel) {
  const isa::Target trn2 = isa::Target::find("trn2");
  size_t kernels = 0;
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) {
    if (k->name.rfind("bug_", 0) == 0) continue; // deliberately broken kernels
    SCOPED_TRACE(k->name);
    tsr::graph::KernelGraph graph;
    isa::Program program;
    try {
      graph = tsr::trace(*k, k->resolve({}));
      program = compiler::compile(graph, trn2).program;
    } catch (const Error &) {
      continue; // a test kernel that refuses its defaults, or one for another family
    }
    EXPECT_EQ(describe(InputDrawing::tensorsOf(graph)), describe(program.tensors));
    ++kernels;
  }
  EXPECT_GE(kernels, 30);
}

/// `program`'s inputs as runKernel reports them when it makes them itself from `seed`.
std::map<std::string, std::vector<float>> drawnFor(const isa::Program &program, uint64_t seed) {
  const sim::HbmImage hbm = driver::makeInputs(program, seed);
  std::map<std::string, std::vector<float>> inputs;
  for (size_t i = 0; i < program.tensors.size(); ++i)
    if (program.tensors[i].isInput()) inputs[program.tensors[i].name] = driver::decodeTensor(program, hbm, i);
  return inputs;
}

TEST(InputDrawing, ARunsInputsAreThoseOfItsCompiledProgram) {
  for (const auto &[kernel, target] : std::vector<std::pair<std::string, std::string>>{
           {"add", "trn2"}, {"add_spmd", "trn2"}, {"tut_attention_v3", "trn2"}, {"matmul", "tpu-v5e"}}) {
    SCOPED_TRACE(kernel + " on " + target);
    const driver::RunReport r = driver::runKernel({.kernel = kernel, .target = target, .seed = 7});
    const std::map<std::string, std::vector<float>> expected = drawnFor(*r.program, 7);
    ASSERT_EQ(r.inputs.size(), expected.size());
    for (const auto &[name, values] : expected) EXPECT_EQ(r.inputs.at(name).values, values) << name;
  }
}

/// add's graph and its program, compiled for trn2.
std::pair<tsr::graph::KernelGraph, isa::Program> addKernel() {
  const tsr::KernelInfo &add = *tsr::Registry::instance().find("add");
  tsr::graph::KernelGraph graph = tsr::trace(add, add.resolve({}));
  isa::Program program = compiler::compile(graph, isa::Target::find("trn2")).program;
  return {std::move(graph), std::move(program)};
}

TEST(InputDrawing, DrawsAgainWhenTheProgramsTensorsDiffer) {
  auto [graph, program] = addKernel();
  graph.tensors.front().shape.back() /= 2; // the thread draws for a smaller first input than the program's
  InputDrawing drawing(graph, 3, {}, std::nullopt);
  const std::optional<sim::HbmImage> hbm = drawing.take(program, nullptr);
  ASSERT_TRUE(hbm.has_value());
  EXPECT_TRUE(drawing.drewAgain());
  EXPECT_EQ(*hbm, driver::makeInputs(program, 3));
}

TEST(InputDrawing, KeepsTheThreadsDrawsWhenTheTensorsAreTheSame) {
  const auto [graph, program] = addKernel();
  InputDrawing drawing(graph, 3, {}, std::nullopt);
  const std::optional<sim::HbmImage> hbm = drawing.take(program, nullptr);
  ASSERT_TRUE(hbm.has_value());
  EXPECT_FALSE(drawing.drewAgain()); // the overlap kept
  EXPECT_EQ(*hbm, driver::makeInputs(program, 3));
}

TEST(InputDrawing, StopsAtTheDeadline) {
  const auto [graph, program] = addKernel();
  InputDrawing drawing(graph, 3, {}, std::chrono::steady_clock::now());
  EXPECT_FALSE(drawing.take(program, nullptr).has_value());
}

TEST(InputDrawing, AnInputsDtypeThatCannotHoldTheDrawsIsRefusedAtTake) {
  const auto [graph, program] = addKernel();
  InputDrawing drawing(graph, 3, driver::InputDistribution::parse("normal:0,1e38"), std::nullopt);
  EXPECT_THROW(drawing.take(program, nullptr), driver::InputError);
}

} // namespace
