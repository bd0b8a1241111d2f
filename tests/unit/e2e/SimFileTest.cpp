// `tessera sim FILE.mlir`: a module printed by the compiler, saved and read back, simulates exactly as the
// kernel it came from, without the C++ kernel.

#include "tessera/Driver.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

using namespace tessera;
using namespace tessera::driver;

std::string writeTemp(const std::string &name, const std::string &text) {
  auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".mlir");
  std::ofstream(path) << text;
  return path.string();
}

struct Saved {
  RunReport direct;
  std::string ncFile, tileFile;
};

Saved compileAndSave(const std::string &kernel, const std::map<std::string, int64_t> &shape) {
  Saved s;
  s.direct = runKernel({.kernel = kernel, .target = "trn2", .shape = shape});
  tsr::Params params;
  tsr::graph::KernelGraph graph = traceKernel(findKernel(kernel), shape, params);
  isa::Target target = loadTarget("trn2");
  compiler::CompileOptions options;
  options.keepNcIr = true;
  s.ncFile = writeTemp(kernel + "-nc", compiler::compile(graph, target, options).ncIr);
  s.tileFile = writeTemp(kernel + "-tile", compiler::importToText(graph, target));
  return s;
}

TEST(SimFile, NcModuleSimulatesLikeTheKernel) {
  for (std::string kernel : {"matmul", "softmax", "add"}) {
    Saved s = compileAndSave(kernel, {});
    RunReport fromFile = simulateFile(s.ncFile);
    EXPECT_EQ(fromFile.kernel, kernel);
    EXPECT_EQ(fromFile.target.name, "trn2");
    EXPECT_EQ(fromFile.sim.timeNs, s.direct.sim.timeNs) << kernel;
    EXPECT_EQ(fromFile.sim.hbmBytes, s.direct.sim.hbmBytes) << kernel;
    EXPECT_EQ(fromFile.instructions, s.direct.instructions) << kernel;
    EXPECT_EQ(fromFile.sbufPeakBytes, s.direct.sbufPeakBytes) << kernel;
    std::filesystem::remove(s.ncFile);
    std::filesystem::remove(s.tileFile);
  }
}

TEST(SimFile, TileModuleIsCompiledFirst) {
  Saved s = compileAndSave("matmul_tiled", {{"M", 256}, {"N", 512}, {"K", 256}});
  RunReport fromFile = simulateFile(s.tileFile);
  EXPECT_EQ(fromFile.sim.timeNs, s.direct.sim.timeNs);
  RunReport timing = simulateFile(s.tileFile, {.timingOnly = true});
  EXPECT_EQ(timing.sim.timeNs, s.direct.sim.timeNs);
  std::filesystem::remove(s.ncFile);
  std::filesystem::remove(s.tileFile);
}

TEST(SimFile, BadFilesAreInputErrors) {
  std::string broken = writeTemp("broken", "module {\n  func.func @k() {\n    nc.frobnicate\n  }\n}\n");
  try {
    simulateFile(broken);
    FAIL() << "expected an error";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where().line, 3u) << e.what();
    EXPECT_NE(e.where().file.find("broken"), std::string::npos);
  }
  std::filesystem::remove(broken);
  EXPECT_THROW(simulateFile("/nonexistent/kernel.mlir"), InputError);
  std::string noTarget = writeTemp("no-target", "module {\n  func.func @k() {\n    return\n  }\n}\n");
  EXPECT_THROW(simulateFile(noTarget), InputError);
  std::filesystem::remove(noTarget);
}

} // namespace
