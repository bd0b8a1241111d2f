// The Pallas backend from the compiler's plan (compiler::TileProgram, tpu-plan-pallas): what the export carries
// (loops, indices, the plan), and what emitPallas refuses: a kernel without a loop for the grid style, a plan made for
// the other style, a kernel compiled without its loops. The emitted text of library kernels is compiler/test/
// Backends/pallas*.test; that it runs and compiles, tests/backends.cmake.

#include "tessera/DeviceCode.h"
#include "tessera/Driver.h"
#include "tessera/backends/Pallas.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/tsr.h"

#include "../dsl/DslTesting.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using namespace tessera;

using tsr::dsltest::kernelOf;

/// `kernel` compiled for `target` with its loops and the plan for `style`, and the Pallas module of it.
struct Emitted {
  driver::CompiledKernel k;
  std::string module;
};
Emitted emit(const tsr::KernelInfo &kernel, backends::PallasStyle style, std::map<std::string, int64_t> shape = {},
             const std::string &target = "tpu-v5e") {
  driver::RunRequest request{.kernel = kernel.name, .target = target, .shape = std::move(shape)};
  request.kernelInfo = &kernel;
  request.compile.recordProvenance = true;
  request.compile.launchGrid = backends::launchGridFor(style);
  Emitted e{driver::compileKernel(request), ""};
  e.module = backends::emitPallas(driver::kernelSource(*e.k.kernel, e.k.params, e.k.target, e.k.compiled.program,
                                                       e.k.compiled.provenance, &e.k.compiled.tileProgram, "test"),
                                  style);
  return e;
}

size_t lines(const std::string &text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

tsr::KernelInfo loopless() {
  return kernelOf({tsr::input("x", {128, 512}, tsr::f32), tsr::output("y", {128, 512}, tsr::f32)},
                  [](tsr::Hbm x, tsr::Hbm y) {
                    tsr::store(y.tile(0, 0, {128, 512}), tsr::exp(tsr::load(x.tile(0, 0, {128, 512}))));
                  });
}

TEST(PallasPlan, TheExportKeepsTheLoopsTheirIndicesAndThePlan) {
  driver::RunRequest request{.kernel = "add", .target = "tpu-v5e", .shape = {{"M", 512}, {"N", 1024}}};
  request.compile.recordProvenance = true;
  const driver::CompiledKernel k = driver::compileKernel(request);
  const compiler::TileProgram &tp = k.compiled.tileProgram;
  ASSERT_TRUE(tp.planned);
  EXPECT_TRUE(tp.launchGrid);
  // The row loop (4 blocks of 128 rows) and the column loop (one 1024-wide block) are the grid.
  const std::vector<int32_t> grid = tp.gridLoops();
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_EQ(tp.loops[grid[0]].trips, 4);
  EXPECT_TRUE(tp.loops[grid[0]].parallel);
  // Every load and store is a block: the row window moves by 128 rows with the row loop.
  size_t dmas = 0;
  for (const compiler::TileOpNode &op : tp.ops) {
    if (op.kind != compiler::TileOpKind::Load && op.kind != compiler::TileOpKind::Store) continue;
    ++dmas;
    EXPECT_GE(op.block, 0);
    EXPECT_EQ(op.window.row.coefficient(grid[0]), 128);
  }
  EXPECT_EQ(dmas, 3u);
  ASSERT_EQ(tp.blocks.size(), 3u);
  EXPECT_TRUE(tp.blocks.back().output);
  EXPECT_EQ(tp.blocks.back().shape, (std::array<int64_t, 2>{128, 1024}));
  // A NeuronCore target has no such plan: NKI is emitted from the unrolled program.
  request.target = "trn2";
  EXPECT_TRUE(driver::compileKernel(request).compiled.tileProgram.empty());
}

// conv2d's unaligned windows go through tile-legalize-for-tpu's aligned hull, whose start is floor(start / 128) * 128:
// the export carries it as a floor term, and a loop whose hull offset changes from one iteration to the next is
// unrolled (Mosaic cannot prove such an offset aligned).
TEST(PallasPlan, AnAlignedHullsStartIsAFloorOfTheWindowsStart) {
  driver::RunRequest request{.kernel = "conv2d", .target = "tpu-v5e"};
  request.compile.recordProvenance = true;
  const compiler::TileProgram &tp = driver::compileKernel(request).compiled.tileProgram;
  const auto floored = std::find_if(tp.ops.begin(), tp.ops.end(), [](const compiler::TileOpNode &op) {
    return op.kind == compiler::TileOpKind::Load && !op.window.col.floors.empty();
  });
  ASSERT_NE(floored, tp.ops.end());
  EXPECT_EQ(floored->window.col.floors[0].divisor, 128);
  EXPECT_EQ(floored->window.col.floors[0].coefficient, 128);
}

// A tile loaded from one block and stored whole to another lives in the block it was loaded from; its store copies
// it. (Differential seed 171: both were taken as where the tile lives, so neither was written and the output block
// was read uninitialised.)
TEST(PallasPlan, ATileLoadedAndStoredUnchangedIsCopiedToTheOutputBlock) {
  const tsr::KernelInfo k = kernelOf({tsr::input("x", {256, 128}, tsr::f32), tsr::output("y", {256, 128}, tsr::f32),
                                      tsr::output("z", {256, 128}, tsr::f32)},
                                     [](tsr::Hbm x, tsr::Hbm y, tsr::Hbm z) {
                                       for (auto i : tsr::affine_range(2)) {
                                         tsr::Tile t = tsr::load(x.tile(i, 0, {128, 128}));
                                         tsr::store(y.tile(i, 0, {128, 128}), t);
                                         tsr::store(z.tile(i, 0, {128, 128}), tsr::exp(t));
                                       }
                                     });
  const std::string module = emit(k, backends::PallasStyle::Grid).module;
  EXPECT_NE(module.find("y_block[...] = x_block[...]"), std::string::npos) << module;
  EXPECT_NE(module.find("jnp.exp(x_block[...])"), std::string::npos) << module;
}

// Pallas takes parallel dimensions only as a prefix of the grid ("Dimensions with parallel semantics must form a
// prefix of the grid" in interpret mode). conv2d at k=1 has an arbitrary outer dimension and an inner one that
// alone could be parallel.
TEST(PallasPlan, ParallelGridDimensionsAreAPrefix) {
  std::vector<driver::RunRequest> requests;
  for (const std::string &name : {"conv2d", "matmul", "rmsnorm", "attention_fwd", "mamba_scan"})
    requests.push_back({.kernel = name, .target = "tpu-v5e"});
  requests.push_back({.kernel = "conv2d", .target = "tpu-v5e"});
  requests.back().kernelParams = {{"k", 1}};
  for (driver::RunRequest &request : requests) {
    request.compile.recordProvenance = true;
    const compiler::TileProgram &tp = driver::compileKernel(request).compiled.tileProgram;
    bool arbitrarySeen = false;
    for (int32_t loop : tp.gridLoops()) {
      EXPECT_FALSE(arbitrarySeen && tp.loops[loop].parallel) << request.kernel << ": a parallel grid dimension after "
                                                                  "an arbitrary one";
      arbitrarySeen = arbitrarySeen || !tp.loops[loop].parallel;
    }
  }
}

TEST(PallasStyle, GridStyleNeedsALoopThatMovesTiles) {
  const tsr::KernelInfo k = loopless();
  try {
    emit(k, backends::PallasStyle::Grid);
    FAIL() << "a kernel without loops was written as a grid";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("is not a Pallas grid"), std::string::npos) << e.message();
  }
  EXPECT_NE(emit(k, backends::PallasStyle::Auto).module.find("manual style"), std::string::npos);
}

TEST(PallasStyle, APlanForTheOtherStyleIsRefused) {
  driver::RunRequest request{.kernel = "add", .target = "tpu-v5e"};
  request.compile.recordProvenance = true; // launchGrid: the default, for auto and grid
  const driver::CompiledKernel k = driver::compileKernel(request);
  const backends::KernelSource source = driver::kernelSource(*k.kernel, k.params, k.target, k.compiled.program,
                                                             k.compiled.provenance, &k.compiled.tileProgram, "test");
  EXPECT_NO_THROW(backends::emitPallas(source, backends::PallasStyle::Grid));
  try {
    backends::emitPallas(source, backends::PallasStyle::Manual);
    FAIL() << "a grid plan was written in the manual style";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("planned with a launch grid"), std::string::npos) << e.message();
  }
  backends::KernelSource withoutLoops = source;
  withoutLoops.tileProgram = nullptr;
  EXPECT_THROW(backends::emitPallas(withoutLoops), Error);
}

// The module grows with the kernel's source, not with its unrolled program: matmul_blocked at 2048^3 (64 times the
// work of 512^3, 4,096 matmul instructions) is as long as at 512^3, in both styles.
TEST(PallasStyle, TheModuleDoesNotGrowWithTheShape) {
  const tsr::KernelInfo &k = driver::findKernel("matmul_blocked");
  for (backends::PallasStyle style : {backends::PallasStyle::Auto, backends::PallasStyle::Manual}) {
    const size_t small = lines(emit(k, style, {{"M", 512}, {"N", 512}, {"K", 512}}).module);
    driver::RunRequest big{.kernel = "matmul_blocked", .target = "tpu-v5e",
                           .shape = {{"M", 2048}, {"N", 2048}, {"K", 2048}}};
    big.kernelParams = {{"bm", 512}, {"bn", 512}, {"bk", 512}};
    big.compile.recordProvenance = true;
    big.compile.launchGrid = backends::launchGridFor(style);
    const driver::CompiledKernel c = driver::compileKernel(big);
    const std::string module = backends::emitPallas(driver::kernelSource(*c.kernel, c.params, c.target,
                                                                         c.compiled.program, c.compiled.provenance,
                                                                         &c.compiled.tileProgram, "test"),
                                                    style);
    EXPECT_LE(lines(module), small + 20) << module;
    EXPECT_LT(lines(module), 200u);
  }
}

} // namespace
