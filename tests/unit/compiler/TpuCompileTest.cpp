// Compiling for a TPU target: the isa::Program a tpu module becomes (its streams and the grid steps of the
// TensorCore's instructions), a tpu-level .mlir file read back, and what compile() reports besides the program
// (VMEM peak, notes).

#include "tessera/Driver.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/isa/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace {

using namespace tessera;

std::string writeTemp(const std::string &name, const std::string &text) {
  auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".mlir");
  std::ofstream(path) << text;
  return path.string();
}

// A synchronised tpu module as `tessera compile --emit nc` prints one: a load, a matmul, a print, a conversion and
// a store, with grid steps before the load and the store.
constexpr const char *kTpuModule = R"mlir(
#h = #tpu.ref<"hbm", bf16, tensor = 0, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#ho = #tpu.ref<"hbm", bf16, tensor = 1, rows = 128, pitch = 128, offset = 0, dims = [128], strides = [1]>
#x = #tpu.ref<"vmem", bf16, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#acc = #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 128, offset = 4096, dims = [128], strides = [1]>
#y = #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 128, offset = 69632, dims = [128], strides = [1]>
module attributes {tessera.target = "tpu-v5e"} {
  func.func @k(%a: memref<8x128xbf16> {tile.name = "a"}, %c: memref<128x128xbf16> {tile.name = "c", tile.output}) {
    tpu.grid_step {engine = "scalar"}
    tpu.dma #x, #h {engine = "dma", signals = array<i64: 0>}
    tpu.mxu_matmul #acc, #x, #x {engine = "mxu", signals = array<i64: 1>, waits = array<i64: 0, 1>}
    tpu.print "acc" #acc {engine = "vpu", waits = array<i64: 1, 1>}
    tpu.vpu_convert #y, #acc {engine = "vpu", signals = array<i64: 2>}
    tpu.grid_step {engine = "scalar"}
    tpu.dma #ho, #y {engine = "dma", queue = 8 : i64, waits = array<i64: 2, 1>}
    return
  }
}
)mlir";

TEST(TpuCompile, ProgramHasTheTensorCoresStreamsAndGridSteps) {
  const std::string file = writeTemp("tpu-module", kTpuModule);
  compiler::CompileResult r = compiler::compileFile(file);
  std::filesystem::remove(file);
  const isa::Program &p = r.program;
  EXPECT_EQ(p.target, "tpu-v5e");
  // mxu, vpu, scalar, then the DMA queues in the order of first use.
  ASSERT_EQ(p.streams.size(), 5u);
  EXPECT_EQ(p.streams[0].engine, isa::Engine::Mxu);
  EXPECT_EQ(p.streams[1].engine, isa::Engine::Vpu);
  EXPECT_EQ(p.streams[2].engine, isa::Engine::ScalarUnit);
  EXPECT_EQ(p.streams[3].engine, isa::Engine::Dma);
  EXPECT_EQ(p.streams[3].queue, 0u);
  EXPECT_EQ(p.streams[4].queue, 8u);
  // Each grid_step starts the next step: the matmul, the print and the convert follow the first, so they belong to
  // step 1; the second starts step 2. DMA instructions belong to no step.
  ASSERT_EQ(p.streams[0].instructions.size(), 1u);
  EXPECT_EQ(p.streams[0].instructions[0].op, isa::Opcode::MxuMatmul);
  EXPECT_EQ(p.streams[0].instructions[0].step, 1u);
  ASSERT_EQ(p.streams[1].instructions.size(), 2u);
  EXPECT_EQ(p.streams[1].instructions[0].op, isa::Opcode::Print);
  EXPECT_EQ(p.streams[1].instructions[0].step, 1u);
  EXPECT_EQ(p.textOf(p.streams[1].instructions[0]), "acc");
  EXPECT_EQ(p.streams[1].instructions[1].step, 1u);
  ASSERT_EQ(p.streams[2].instructions.size(), 2u);
  EXPECT_EQ(p.streams[2].instructions[0].step, 1u);
  EXPECT_EQ(p.streams[2].instructions[1].step, 2u);
  for (size_t s : {3, 4}) {
    ASSERT_EQ(p.streams[s].instructions.size(), 1u);
    EXPECT_EQ(p.streams[s].instructions[0].op, isa::Opcode::TpuDma);
    EXPECT_EQ(p.streams[s].instructions[0].step, 0u);
  }
  // The VMEM operands keep their rows and pitch.
  const isa::AccessPattern &acc = p.streams[0].instructions[0].dst;
  EXPECT_EQ(acc.space, isa::MemSpace::Vmem);
  EXPECT_EQ(acc.partitions, 128u);
  EXPECT_EQ(acc.partitionStride, 128);
  EXPECT_EQ(acc.offset, 4096);
  EXPECT_EQ(p.semaphores, 3u);
}

// The same module without its first grid_step: the matmul would belong to no step, which the export refuses at
// the matmul's line.
TEST(TpuCompile, AnInstructionBeforeTheFirstGridStepIsAnError) {
  std::string module = kTpuModule;
  const std::string firstStep = "    tpu.grid_step {engine = \"scalar\"}\n";
  module.erase(module.find(firstStep), firstStep.size());
  const std::string file = writeTemp("tpu-no-first-step", module);
  try {
    compiler::compileFile(file);
    ADD_FAILURE() << "compiled";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("'tpu.mxu_matmul' comes before the kernel's first tpu.grid_step"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.where().line, 10u);
  }
  std::filesystem::remove(file);
}

TEST(TpuCompile, NeuronCoreProgramsHaveNoGridSteps) {
  tsr::Params params;
  compiler::CompileResult r =
      compiler::compile(driver::traceKernel(driver::findKernel("softmax"), {}, params), driver::loadTarget("trn2"));
  EXPECT_EQ(r.program.streams[0].engine, isa::Engine::Tensor);
  for (const isa::Stream &s : r.program.streams)
    for (const isa::Instruction &i : s.instructions) EXPECT_EQ(i.step, 0u);
  EXPECT_EQ(r.vmemPeakBytes, -1);
  EXPECT_TRUE(r.notes.empty());
}

TEST(TpuCompile, ReportsVmemPeakAndPaddedTiles) {
  tsr::Params params;
  // Rows of 64 f32 elements: every [128, 64] tile is padded to 128 lanes; the [128, 1] row statistics too.
  tsr::graph::KernelGraph graph = driver::traceKernel(driver::findKernel("softmax"), {{"R", 128}, {"C", 64}}, params);
  compiler::CompileResult r = compiler::compile(graph, driver::loadTarget("tpu-v5e"));
  EXPECT_GT(r.vmemPeakBytes, 0);
  EXPECT_EQ(r.sbufPeakBytes, -1);
  ASSERT_FALSE(r.notes.empty());
  const bool padded = std::any_of(r.notes.begin(), r.notes.end(), [](const std::string &note) {
    return note.find("[128, 64] f32 is padded to [128, 128] in VMEM (Mosaic's (8, 128) tiling)") != std::string::npos &&
           note.find("softmax.cpp:") != std::string::npos;
  });
  EXPECT_TRUE(padded) << r.notes.front();
  // The scalar stream is the grid steps 1, 2, 3... in order; every other compute instruction belongs to one of
  // them, never fewer along its stream.
  const auto scalar = std::ranges::find(r.program.streams, isa::Engine::ScalarUnit, &isa::Stream::engine);
  ASSERT_NE(scalar, r.program.streams.end());
  const size_t steps = scalar->instructions.size();
  ASSERT_GT(steps, 0u);
  for (size_t k = 0; k < steps; ++k) {
    EXPECT_EQ(scalar->instructions[k].op, isa::Opcode::GridStep);
    EXPECT_EQ(scalar->instructions[k].step, k + 1);
  }
  for (const isa::Stream &s : r.program.streams) {
    uint32_t previous = s.engine == isa::Engine::Dma ? 0 : 1;
    for (const isa::Instruction &i : s.instructions) {
      if (s.engine == isa::Engine::Dma) {
        EXPECT_EQ(i.step, 0u);
        continue;
      }
      EXPECT_GE(i.step, previous) << s.label();
      EXPECT_LE(i.step, steps) << s.label();
      previous = i.step;
    }
  }
}

TEST(TpuCompile, AlignedTilesNeedNoNote) {
  tsr::Params params;
  tsr::graph::KernelGraph graph =
      driver::traceKernel(driver::findKernel("matmul_tiled"), {{"M", 128}, {"N", 512}, {"K", 256}}, params);
  compiler::CompileResult r = compiler::compile(graph, driver::loadTarget("tpu-v5e"));
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();
  EXPECT_EQ(r.vmemPeakBytes, 1114112); // 2 copies each of 256 + 128 + 32 + 128 KiB (pipeline-tpu.mlir)
}

} // namespace
