// matmul_tiled: C[M, N] = A[M, K] @ B[K, N], bf16 in and out (FP32 with --param bits=32, as NKI's
// kernel-optimization guide runs it on trn2), FP32 accumulation in PSUM; the first rung of NKI's
// matmul tutorial ladder: m, n, k loops, and both operand tiles loaded in every inner iteration. Simple, and
// bound by HBM traffic: each A tile is loaded N/512 times and each B tile M/128 times. `matmul` reuses them.
// Tiles: 128 x 128 stationary (K x M), 128 x 512 moving (K x N), one 128 x 512 FP32 PSUM bank per output tile.

#include "Matmul.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "matmul_tiled",
    .summary = "matmul reloading both operand tiles every k step (the tutorial's first, memory-bound form)",
    .params = {{"M", 512}, {"N", 512}, {"K", 512}},
    .kernelParams = {{tessera::kernels::kBitsParam, tessera::kernels::kBf16Bits}},
    .signature = [](const Params &p) { return tessera::kernels::matmulSignature("matmul_tiled", p); },
    .body = body([](const Params &p, Hbm a_t, Hbm b, Hbm c) {
      const int64_t K = a_t.dim(0), M = a_t.dim(1), N = b.dim(1);
      const int64_t tm = tile_size::gemm_stationary_fmax, tk = tile_size::pmax;
      const int64_t tn = std::min(N, tile_size::gemm_moving_fmax);
      const DType dtype = tessera::kernels::matmulDtype("matmul_tiled", p); // bf16, or FP32 with bits=32
      for (auto m : affine_range(M / tm))
        for (auto n : affine_range(N / tn)) {
          Tile acc = psum<f32>({tm, tn});
          for (auto k : affine_range(K / tk))
            acc += matmul(load(a_t.tile(k, m, {tk, tm})), load(b.tile(k, n, {tk, tn})));
          store(c.tile(m, n, {tm, tn}), copy(acc, dtype));
        }
    }),
    .reference = tessera::kernels::matmulReference,
}};

} // namespace
