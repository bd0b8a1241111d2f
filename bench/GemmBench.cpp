/// \file
/// The tile GEMM behind nc_matmul and mxu_matmul (isa/Gemm.h) on the tiles kernels issue, beside OpenBLAS sgemm
/// (one thread) on the same tile: GFLOP/s of each. The FMA path (bf16-valued operands: exact products) and the
/// multiply-then-add path (FP32 operands) give the same bits as the golden model's order; sgemm does not.
///   build/bench/bench-gemm

#include "tessera/isa/Gemm.h"

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <random>
#include <vector>

extern "C" void openblas_set_num_threads(int threads);

namespace {

struct Operands {
  std::vector<float> a, b, c;
  Operands(int64_t k, int64_t m, int64_t n) : a(size_t(k * m)), b(size_t(k * n)), c(size_t(m * n), 0.0f) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &x : a) x = uniform(rng);
    for (float &x : b) x = uniform(rng);
  }
};

void setFlops(benchmark::State &state, int64_t k, int64_t m, int64_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(k * m * n) * double(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
}

void tileGemm(benchmark::State &state, bool exactProducts) {
  const int64_t k = state.range(0), m = state.range(1), n = state.range(2);
  Operands x(k, m, n);
  for (auto _ : state) {
    tessera::isa::accumulateProducts(x.c.data(), n, x.a.data(), x.b.data(), k, m, n, exactProducts);
    benchmark::ClobberMemory();
  }
  setFlops(state, k, m, n);
  state.SetLabel(tessera::isa::gemmKernelName());
}

void openblasTile(benchmark::State &state) {
  const int64_t k = state.range(0), m = state.range(1), n = state.range(2);
  Operands x(k, m, n);
  openblas_set_num_threads(1);
  for (auto _ : state) {
    // c[M, N] += a[K, M]^T b[K, N]
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, x.a.data(), int(m),
                x.b.data(), int(n), 1.0f, x.c.data(), int(n));
    benchmark::ClobberMemory();
  }
  setFlops(state, k, m, n);
}

/// A NeuronCore matmul (K 128, M 128, N 512), a TPU MXU block (512^3), and a small edge tile.
#define TESSERA_TILES ->Args({128, 128, 512})->Args({512, 512, 512})->Args({128, 100, 70})

BENCHMARK_CAPTURE(tileGemm, fma_exact_products, true) TESSERA_TILES;
BENCHMARK_CAPTURE(tileGemm, mul_add_fp32, false) TESSERA_TILES;
BENCHMARK(openblasTile) TESSERA_TILES;

} // namespace
