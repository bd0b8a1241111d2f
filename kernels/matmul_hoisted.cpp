// matmul_hoisted: C[M, N] = A[M, K] @ B[K, N], bf16 in and out (FP32 with --param bits=32), FP32 accumulation in
// PSUM; the second rung of NKI's
// matmul tutorial ladder ("removing redundant loads"). matmul_tiled loads both operand tiles for every matmul;
// here the K/128 stationary tiles of one 128-row block of the output (a column block of a_t) are loaded once,
// before the loop over the output's columns, and reused by every output tile of that row. A crosses HBM once
// instead of N/512 times; B still M/128 times, so the kernel stays bound by HBM traffic, only less so.
// Tiles as in matmul_tiled: 128 x 128 stationary, 128 x 512 moving, one FP32 PSUM bank per output tile. The k
// loops are plain C++ loops (NKI's static_range), so the tiles of one row are separate tiles, all live at once:
// SBUF holds K/128 x (256 + 1024) bytes per partition (per rotating copy), which bounds K.

#include "Matmul.h"

#include <vector>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "matmul_hoisted",
    .summary = "matmul loading each row's stationary tiles once, reused along the row (the tutorial's 2nd step)",
    .params = {{"M", 512}, {"N", 512}, {"K", 512}},
    .kernelParams = {{tessera::kernels::kBitsParam, tessera::kernels::kBf16Bits}},
    .signature = [](const Params &p) { return tessera::kernels::matmulSignature("matmul_hoisted", p); },
    .body = body([](const Params &p, Hbm a_t, Hbm b, Hbm c) {
      const int64_t K = a_t.dim(0), M = a_t.dim(1), N = b.dim(1);
      const int64_t tm = tile_size::gemm_stationary_fmax, tk = tile_size::pmax;
      const int64_t tn = std::min(N, tile_size::gemm_moving_fmax);
      const DType dtype = tessera::kernels::matmulDtype("matmul_hoisted", p); // bf16, or FP32 with bits=32
      for (auto m : affine_range(M / tm)) {
        std::vector<Tile> stationary; // the row's a_t tiles, loaded once
        for (int64_t k = 0; k < K / tk; ++k) stationary.push_back(load(a_t.tile(k, m, {tk, tm})));
        for (auto n : affine_range(N / tn)) {
          std::vector<Tile> moving;
          for (int64_t k = 0; k < K / tk; ++k) moving.push_back(load(b.tile(k, n, {tk, tn})));
          Tile acc = psum<f32>({tm, tn});
          for (int64_t k = 0; k < K / tk; ++k) acc += matmul(stationary[k], moving[k]);
          store(c.tile(m, n, {tm, tn}), copy(acc, dtype));
        }
      }
    }),
    .reference = tessera::kernels::matmulReference,
}};

} // namespace
