/// \file
/// Throughput of the bulk number-format conversions (the simulator's inner loops for loads and stores).

#include "tessera/isa/NumberFormats.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

using tessera::isa::DType;

/// Normally distributed values, a few of them large enough to overflow fp8.
std::vector<float> sampleValues(size_t count) {
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 64.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = normal(rng);
  return values;
}

void encodeBench(benchmark::State &state, DType dtype) {
  const size_t count = size_t(state.range(0));
  const std::vector<float> input = sampleValues(count);
  std::vector<std::byte> output(count * byteSize(dtype));
  for (auto _ : state) {
    tessera::isa::encode(dtype, input.data(), output.data(), count);
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(count));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(count * (sizeof(float) + byteSize(dtype))));
}

void decodeBench(benchmark::State &state, DType dtype) {
  const size_t count = size_t(state.range(0));
  const std::vector<float> values = sampleValues(count);
  std::vector<std::byte> input(count * byteSize(dtype));
  tessera::isa::encode(dtype, values.data(), input.data(), count);
  std::vector<float> output(count);
  for (auto _ : state) {
    tessera::isa::decode(dtype, input.data(), output.data(), count);
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(count));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(count * (sizeof(float) + byteSize(dtype))));
}

/// One SBUF partition row of a 128 x 512 tile, one whole tile, and a tile too big for L2.
#define TESSERA_SIZES ->Arg(512)->Arg(128 * 512)->Arg(1 << 22)

BENCHMARK_CAPTURE(encodeBench, bf16, DType::BF16) TESSERA_SIZES;
BENCHMARK_CAPTURE(decodeBench, bf16, DType::BF16) TESSERA_SIZES;
BENCHMARK_CAPTURE(encodeBench, f8e4m3, DType::F8E4M3) TESSERA_SIZES;
BENCHMARK_CAPTURE(decodeBench, f8e4m3, DType::F8E4M3) TESSERA_SIZES;
BENCHMARK_CAPTURE(encodeBench, f16, DType::F16) TESSERA_SIZES;
BENCHMARK_CAPTURE(decodeBench, f16, DType::F16) TESSERA_SIZES;

} // namespace
