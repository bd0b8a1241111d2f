// matmul: C[M, N] = A[M, K] @ B[K, N], bf16 in and out, FP32 accumulation in PSUM.
//
// A arrives transposed, as a_t[K, M], as in NKI's matmul tutorial: the tensor engine contracts over the
// partition dimension of both operands, so a_t's [K, M] tile is the stationary operand as it is loaded.
// Tiles: 128 x 128 stationary (K x M), 128 x 512 moving (K x N), one 128 x 512 FP32 PSUM bank per output tile.

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "matmul",
    .summary = "C[M,N] = A[M,K] @ B[K,N] (A given as a_t[K,M]), bf16 with FP32 accumulation",
    .params = {{"M", 512}, {"N", 512}, {"K", 512}},
    .signature =
        [](const Params &p) {
          require(p["M"] % tile_size::gemm_stationary_fmax == 0, "matmul: M must be a multiple of 128");
          require(p["K"] % tile_size::pmax == 0, "matmul: K must be a multiple of 128");
          require(p["N"] % std::min(p["N"], tile_size::gemm_moving_fmax) == 0,
                  "matmul: N must be at most 512 or a multiple of 512");
          return std::vector<TensorSpec>{input("a_t", {p["K"], p["M"]}, bf16), input("b", {p["K"], p["N"]}, bf16),
                                         output("c", {p["M"], p["N"]}, bf16)};
        },
    .body = body([](Hbm a_t, Hbm b, Hbm c) {
      const int64_t K = a_t.dim(0), M = a_t.dim(1), N = b.dim(1);
      const int64_t tm = tile_size::gemm_stationary_fmax, tk = tile_size::pmax;
      const int64_t tn = std::min(N, tile_size::gemm_moving_fmax);
      for (auto m : affine_range(M / tm))
        for (auto n : affine_range(N / tn)) {
          Tile acc = psum<f32>({tm, tn});
          for (auto k : affine_range(K / tk))
            acc += matmul(load(a_t.tile(k, m, {tk, tm})), load(b.tile(k, n, {tk, tn})));
          store(c.tile(m, n, {tm, tn}), copy<bf16>(acc));
        }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t M = p["M"], N = p["N"], K = p["K"];
          const HostTensor &a_t = in[0], &b = in[1];
          HostTensor &c = out[0];
          std::vector<double> row(N);
          for (int64_t m = 0; m < M; ++m) {
            std::fill(row.begin(), row.end(), 0.0);
            for (int64_t k = 0; k < K; ++k) {
              double a = a_t[k * M + m];
              for (int64_t n = 0; n < N; ++n) row[n] += a * b[k * N + n];
            }
            for (int64_t n = 0; n < N; ++n) c[m * N + n] = static_cast<float>(row[n]);
          }
        },
}};

} // namespace
