// matmul_blocked: C[M, N] = A[M, K] @ B[K, N], bf16 in and out (FP32 with --param bits=32); the last rung of NKI's
// matmul tutorial ladder ("blocking M, N and K"), the fully optimised form. matmul_blocked_free needs the whole
// contraction dimension of a block in SBUF, which caps its block sizes; here K is blocked too (bk, like bm and bn a
// kernel parameter, in elements), so the free blocks can be large: each (bm x bn) output block takes K/bk steps,
// each loading bk/128 rows of [128, bm] from a_t and [128, bn] from b (one DMA each, >= 2 KiB per partition at the
// defaults). An output block has (bm/128) x (bn/tn) output tiles (tn = 512 at the defaults), more than PSUM's 8
// banks hold at once, so each step's partial sums go from PSUM into an FP32 accumulator in SBUF, written out (in the
// operands' dtype) after the last step.
// A crosses HBM N/bn times, B M/bm times: at the defaults (2048 x 1024 x 1024, the tutorial's blocking) and
// M=4096, K=8192, N=8192 that is 0.87 GB against matmul_tiled's 5.4 GB, loaded in half the tensor engine's time.
// SBUF per partition: the accumulator (bm/128) x bn x 4 bytes, made once before the loops so that it is one
// buffer, plus bk/128 x (bm + bn) x 2 bytes of operands per rotating copy: 64 + 2 x 48 KiB at the defaults (twice
// the operands' bytes in FP32).

#include "Matmul.h"

#include <numeric>
#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::kBf16Bits;
using tessera::kernels::kBitsParam;
using tessera::kernels::matmulBlock;
using tessera::kernels::matmulDtype;

constexpr const char *kName = "matmul_blocked";

/// What bn must be a multiple of: all of N when N fits one moving tile (N <= 512 need not be a multiple of 128),
/// else 128, so that Pallas-style square blocks (128/128/128) are blocks too.
int64_t bnGranule(int64_t N) { return N <= tile_size::gemm_moving_fmax ? N : tile_size::pmax; }

/// The moving tile of a bn-wide block: the widest of at most 512 columns that divides it (512 for the default
/// blocks; 128 or 256 for narrow ones).
int64_t movingTile(int64_t N, int64_t bn) {
  return N <= tile_size::gemm_moving_fmax ? N : std::gcd(bn, tile_size::gemm_moving_fmax);
}

const Registration registration{{
    .name = kName,
    .summary = "matmul with M, N and K blocked, accumulating in SBUF (the tutorial's fully optimised form)",
    .params = {{"M", 512}, {"N", 512}, {"K", 512}},
    .kernelParams = {{"bm", 2048}, {"bn", 1024}, {"bk", 1024}, {kBitsParam, kBf16Bits}},
    .signature =
        [](const Params &p) {
          auto tensors = tessera::kernels::matmulSignature(kName, p);
          matmulBlock(kName, p, "bm", "M", tile_size::gemm_stationary_fmax);
          matmulBlock(kName, p, "bn", "N", bnGranule(p["N"]));
          matmulBlock(kName, p, "bk", "K", tile_size::pmax);
          return tensors;
        },
    .body = body([](const Params &p, Hbm a_t, Hbm b, Hbm c) {
      const int64_t K = a_t.dim(0), M = a_t.dim(1), N = b.dim(1);
      const int64_t tm = tile_size::gemm_stationary_fmax, tk = tile_size::pmax;
      const int64_t bm = matmulBlock(kName, p, "bm", "M", tm), bn = matmulBlock(kName, p, "bn", "N", bnGranule(N));
      const int64_t tn = movingTile(N, bn);
      const int64_t bk = matmulBlock(kName, p, "bk", "K", tk);
      // Output row i of a block is acc's columns [i * bn, (i + 1) * bn).
      Tile acc = ndarray<f32>({tm, bm / tm * bn});
      for (auto mb : affine_range(M / bm))
        for (auto nb : affine_range(N / bn)) {
          fill(acc, 0.0f);
          for (auto kb : affine_range(K / bk)) {
            std::vector<Tile> stationary, moving; // [128, bm] and [128, bn] per k of the step
            for (int64_t k = 0; k < bk / tk; ++k) {
              stationary.push_back(load(a_t.window(kb * bk + k * tk, mb * bm, {tk, bm})));
              moving.push_back(load(b.window(kb * bk + k * tk, nb * bn, {tk, bn})));
            }
            for (auto i : affine_range(bm / tm))
              for (auto j : affine_range(bn / tn)) {
                Tile part = psum<f32>({tm, tn});
                for (int64_t k = 0; k < bk / tk; ++k)
                  part += matmul(stationary[k].slice(i * tm, tm), moving[k].slice(j * tn, tn));
                acc.slice(i * bn + j * tn, tn) += part;
              }
          }
          for (auto i : affine_range(bm / tm))
            store(c.window(mb * bm + i * tm, nb * bn, {tm, bn}), copy(acc.slice(i * bn, bn), matmulDtype(kName, p)));
        }
    }),
    .reference = tessera::kernels::matmulReference,
}};

} // namespace
