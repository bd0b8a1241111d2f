// matmul: C[M, N] = A[M, K] @ B[K, N], bf16 in and out, FP32 accumulation in PSUM, with operand reuse.
//
// For each 512-wide column block of B, the K/128 tiles of that block are loaded once and stay in SBUF while
// every 128-row block of A streams past: B crosses HBM once, A N/512 times, instead of every tile once per
// matmul as in matmul_tiled. At M=N=K=1024 that is 8 MB instead of 23 MB, below what the tensor engine needs
// time for, so the kernel is compute-bound. The k loops are plain C++ loops (NKI's static_range): they unroll
// at trace time, so the operand tiles of one block are separate tiles the compiler can keep live together.
// K is bounded by SBUF: the B block takes K/128 KiB per partition (per rotating copy).

#include "Matmul.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "matmul",
    .summary = "C[M,N] = A[M,K] @ B[K,N] (A given as a_t[K,M]), bf16 with FP32 accumulation, B tiles reused",
    .params = {{"M", 512}, {"N", 512}, {"K", 512}},
    .signature = [](const Params &p) { return tessera::kernels::matmulSignature("matmul", p); },
    .body = body([](Hbm a_t, Hbm b, Hbm c) {
      const int64_t K = a_t.dim(0), M = a_t.dim(1), N = b.dim(1);
      const int64_t tm = tile_size::gemm_stationary_fmax, tk = tile_size::pmax;
      const int64_t tn = std::min(N, tile_size::gemm_moving_fmax);
      for (auto n : affine_range(N / tn)) {
        std::vector<Tile> moving;
        for (int64_t k = 0; k < K / tk; ++k) moving.push_back(load(b.tile(k, n, {tk, tn})));
        for (auto m : affine_range(M / tm)) {
          Tile acc = psum<f32>({tm, tn});
          for (int64_t k = 0; k < K / tk; ++k) acc += matmul(load(a_t.tile(k, m, {tk, tm})), moving[k]);
          store(c.tile(m, n, {tm, tn}), copy<bf16>(acc));
        }
      }
    }),
    .reference = tessera::kernels::matmulReference,
}};

} // namespace
