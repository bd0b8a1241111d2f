// matmul_blocked_free: C[M, N] = A[M, K] @ B[K, N], bf16 in and out, FP32 accumulation in PSUM; the third rung of
// NKI's matmul tutorial ladder ("blocking the free dimensions"). matmul_hoisted reuses one row of stationary
// tiles; here the output is cut into blocks of bm x bn elements (kernel parameters), and the operands of a whole
// block are loaded once and serve every output tile in it: each stationary column of a_t serves bn/512 output
// tiles, each moving column of b bm/128 of them. A crosses HBM once, B M/bm times (matmul_hoisted: M/128).
// Loading whole block rows ([128, bm] of a_t, [128, bn] of b per k) also makes every DMA bm*2 or bn*2 bytes per
// partition instead of 256 or 1024. The matmuls read 128 x 128 and 128 x 512 slices of them.
// The contraction dimension is not blocked: SBUF holds K/128 x (bm + bn) x 2 bytes per partition (per rotating
// copy), so the larger K, the smaller the blocks must be (matmul_blocked removes that limit).

#include "Matmul.h"

#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::matmulBlock;

constexpr const char *kName = "matmul_blocked_free";

const Registration registration{{
    .name = kName,
    .summary = "matmul with M and N blocked so loaded operands serve a bm x bn block (the tutorial's 3rd step)",
    .params = {{"M", 512}, {"N", 512}, {"K", 512}},
    // Block sizes in elements; at K=8192 the default blocks take 128 KiB of SBUF per partition.
    .kernelParams = {{"bm", 512}, {"bn", 512}},
    .signature =
        [](const Params &p) {
          auto tensors = tessera::kernels::matmulSignature(kName, p);
          matmulBlock(kName, p, "bm", "M", tile_size::gemm_stationary_fmax);
          matmulBlock(kName, p, "bn", "N", std::min(p["N"], tile_size::gemm_moving_fmax));
          return tensors;
        },
    .body = body([](const Params &p, Hbm a_t, Hbm b, Hbm c) {
      const int64_t K = a_t.dim(0), M = a_t.dim(1), N = b.dim(1);
      const int64_t tm = tile_size::gemm_stationary_fmax, tk = tile_size::pmax;
      const int64_t tn = std::min(N, tile_size::gemm_moving_fmax);
      const int64_t bm = matmulBlock(kName, p, "bm", "M", tm), bn = matmulBlock(kName, p, "bn", "N", tn);
      for (auto mb : affine_range(M / bm)) {
        std::vector<Tile> stationary; // [128, bm] per k: the block row's a_t columns, loaded once
        for (int64_t k = 0; k < K / tk; ++k) stationary.push_back(load(a_t.window(k * tk, mb * bm, {tk, bm})));
        for (auto nb : affine_range(N / bn)) {
          std::vector<Tile> moving; // [128, bn] per k
          for (int64_t k = 0; k < K / tk; ++k) moving.push_back(load(b.window(k * tk, nb * bn, {tk, bn})));
          for (auto i : affine_range(bm / tm))
            for (auto j : affine_range(bn / tn)) {
              Tile acc = psum<f32>({tm, tn});
              for (int64_t k = 0; k < K / tk; ++k)
                acc += matmul(stationary[k].slice(i * tm, tm), moving[k].slice(j * tn, tn));
              store(c.window(mb * bm + i * tm, nb * bn + j * tn, {tm, tn}), copy<bf16>(acc));
            }
        }
      }
    }),
    .reference = tessera::kernels::matmulReference,
}};

} // namespace
