// How long compiling each kernel of the library takes (trace + the whole MLIR pipeline + isa::Program) for the
// default target, at its default shape and at a large one. Goal (issue 5): under 0.5 s per kernel on the 2-core CI
// machine. Also the golden model of a kernel of many small SBUF-to-SBUF copies, which must take time linear in
// their number (issue 21: 1,026 such ops took 71 s).
//   build/bench/bench-compile
//   build/bench/bench-compile --benchmark_filter=goldenColumnCopies

#include "tessera/Driver.h"
#include "tessera/compiler/Golden.h"
#include "tessera/dsl/tsr.h"

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

// A load, `ops - 2` column copies from one SBUF tile into another (column c from column width - 1 - c), a store:
// `ops` operations, as a transpose written with element copies has.
tsr::KernelInfo columnCopies(int64_t ops) {
  const int64_t copies = ops - 2, width = copies;
  tsr::KernelInfo k;
  k.name = "column_copies";
  k.signature = [width](const tsr::Params &) {
    return std::vector<tsr::TensorSpec>{tsr::input("x", {128, width}, tsr::f32),
                                        tsr::output("y", {128, width}, tsr::f32)};
  };
  k.body = tsr::body([width](tsr::Hbm x, tsr::Hbm y) {
    tsr::Tile t = tsr::load(x.tile(0, 0, {128, width}));
    tsr::Tile u = tsr::ndarray<tsr::f32>({128, width});
    for (int64_t c = 0; c < width; ++c) tsr::assign(u.slice(c, 1), t.slice(width - 1 - c, 1));
    tsr::store(y.tile(0, 0, {128, width}), u);
  });
  return k;
}

// The golden model (lowering, JIT compilation and the run) of columnCopies(ops): the time should grow linearly.
void goldenColumnCopies(benchmark::State &state) {
  const int64_t ops = state.range(0);
  const tsr::graph::KernelGraph graph = tsr::trace(columnCopies(ops), {});
  const size_t bytes = 128 * static_cast<size_t>(ops - 2) * 4;
  for (auto _ : state) {
    std::vector<std::vector<std::byte>> tensors{std::vector<std::byte>(bytes), std::vector<std::byte>(bytes)};
    compiler::runGolden(graph, tensors);
    benchmark::DoNotOptimize(tensors[1].data());
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["time/op"] = benchmark::Counter(static_cast<double>(ops) * state.iterations(),
                                               benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The golden model of a library kernel (inputs all zero: its speed does not depend on the values).
void goldenKernel(benchmark::State &state, const std::string &kernel, std::map<std::string, int64_t> shape) {
  tsr::Params params;
  const tsr::graph::KernelGraph graph = driver::traceKernel(driver::findKernel(kernel), shape, params);
  for (auto _ : state) {
    std::vector<std::vector<std::byte>> tensors;
    for (const tsr::graph::TensorArg &t : graph.tensors) {
      size_t elements = 1;
      for (int64_t d : t.shape) elements *= static_cast<size_t>(d);
      tensors.emplace_back(elements * isa::byteSize(t.dtype));
    }
    compiler::runGolden(graph, tensors);
    benchmark::DoNotOptimize(tensors.back().data());
  }
}

BENCHMARK(goldenColumnCopies)->Arg(64)->Arg(576)->Arg(1026)->Arg(4098)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(goldenKernel, mamba_scan_default, std::string("mamba_scan"), {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(goldenKernel, mamba_scan_D1024_L4096, std::string("mamba_scan"), {{"D", 1024}, {"L", 4096}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(goldenKernel, conv2d_default, std::string("conv2d"), {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(goldenKernel, attention_fwd_default, std::string("attention_fwd"), {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(goldenKernel, softmax_8192x2048, std::string("softmax"), {{"R", 8192}, {"C", 2048}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(goldenKernel, matmul_2048, std::string("matmul"), {{"M", 2048}, {"N", 2048}, {"K", 2048}})
    ->Unit(benchmark::kMillisecond);
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
