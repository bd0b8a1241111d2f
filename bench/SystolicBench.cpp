/// \file
/// The systolic-array models (sim/systolic/): the fold model must stay closed-form (microseconds at any size),
/// the PE model fast enough to step a 32x32 array through a 64^3 GEMM well under a second.

#include "tessera/systolic/Model.h"

#include <benchmark/benchmark.h>

namespace {

using namespace tessera::systolic;

ArrayConfig array(int64_t side, Dataflow dataflow) {
  ArrayConfig config;
  config.rows = config.cols = side;
  config.dataflow = dataflow;
  return config;
}

void foldModel(benchmark::State &state, Dataflow dataflow) {
  ArrayConfig config = array(state.range(0), dataflow);
  Gemm gemm{state.range(1), state.range(1), state.range(1)};
  for (auto _ : state) benchmark::DoNotOptimize(runFoldModel(config, gemm));
}
BENCHMARK_CAPTURE(foldModel, ws, Dataflow::WeightStationary)->Args({128, 1024})->Args({8, 65536});
BENCHMARK_CAPTURE(foldModel, os, Dataflow::OutputStationary)->Args({128, 1024})->Args({8, 65536});
BENCHMARK_CAPTURE(foldModel, is, Dataflow::InputStationary)->Args({128, 1024})->Args({8, 65536});

void peModel(benchmark::State &state, Dataflow dataflow, bool checkValues) {
  ArrayConfig config = array(state.range(0), dataflow);
  Gemm gemm{state.range(1), state.range(1), state.range(1)};
  PeModelOptions options;
  options.checkValues = checkValues;
  int64_t peCycles = 0;
  for (auto _ : state) {
    Result r = runPeModel(config, gemm, options);
    peCycles += r.computeCycles * config.rows * config.cols;
  }
  state.counters["PE-cycles/s"] = benchmark::Counter(double(peCycles), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(peModel, ws, Dataflow::WeightStationary, true)->Args({32, 64})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(peModel, os, Dataflow::OutputStationary, true)->Args({32, 64})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(peModel, is, Dataflow::InputStationary, true)->Args({32, 64})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(peModel, ws_tokens_only, Dataflow::WeightStationary, false)
    ->Args({32, 64})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(peModel, ws_128, Dataflow::WeightStationary, true)->Args({128, 128})->Unit(benchmark::kMillisecond);

} // namespace
