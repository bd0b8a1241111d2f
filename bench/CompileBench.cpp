// How long compiling each kernel of the library takes (trace + the whole MLIR pipeline + isa::Program) for the
// default target, at its default shape and at a large one. Goal (issue 5): under 0.5 s per kernel on the 2-core CI
// machine.
//   build/bench/bench-compile

#include "tessera/Driver.h"

#include <benchmark/benchmark.h>

namespace {

using namespace tessera;

void compileKernel(benchmark::State &state, const std::string &kernel, std::map<std::string, int64_t> shape) {
  isa::Target target = isa::Target::find(std::string(driver::kDefaultTarget));
  const tsr::KernelInfo &info = driver::findKernel(kernel);
  size_t instructions = 0;
  for (auto _ : state) {
    tsr::Params params;
    tsr::graph::KernelGraph graph = driver::traceKernel(info, shape, params);
    compiler::CompileResult result = compiler::compile(graph, target);
    instructions = result.program.instructionCount();
    benchmark::DoNotOptimize(instructions);
  }
  state.counters["instructions"] = static_cast<double>(instructions);
}

// The simulator alone, timing only: simulated instructions per host second, with or without the kernel-bug
// checks (issue 9's goal: 5 M/s without).
void simulateTimingOnly(benchmark::State &state, const std::string &kernel, std::map<std::string, int64_t> shape,
                        bool checks) {
  isa::Target target = isa::Target::find("trn1");
  tsr::Params params;
  tsr::graph::KernelGraph graph = driver::traceKernel(driver::findKernel(kernel), shape, params);
  isa::Program program = compiler::compile(graph, target).program;
  for (auto _ : state) {
    sim::HbmImage hbm;
    benchmark::DoNotOptimize(
        sim::simulate(program, target, hbm, {.computeValues = false, .checks = checks}).timeNs);
  }
  state.counters["instructions/s"] = benchmark::Counter(
      static_cast<double>(program.instructionCount()) * state.iterations(), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(compileKernel, add_default, std::string("add"), {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileKernel, softmax_default, std::string("softmax"), {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileKernel, matmul_default, std::string("matmul"), {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileKernel, matmul_tiled_default, std::string("matmul_tiled"), {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileKernel, matmul_2048, std::string("matmul"), {{"M", 2048}, {"N", 2048}, {"K", 2048}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateTimingOnly, matmul_tiled_4096x8192x8192_checks, std::string("matmul_tiled"),
                  {{"M", 4096}, {"N", 8192}, {"K", 8192}}, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateTimingOnly, matmul_tiled_4096x8192x8192_no_checks, std::string("matmul_tiled"),
                  {{"M", 4096}, {"N", 8192}, {"K", 8192}}, false)
    ->Unit(benchmark::kMillisecond);

} // namespace
