// matmul_blocked_free: C[M, N] = A[M, K] @ B[K, N], bf16 in and out (FP32 with --param bits=32), FP32 accumulation
// in PSUM; the third rung of
// NKI's matmul tutorial ladder ("blocking the free dimensions"). matmul_hoisted reuses one row of stationary
// tiles; here the output is cut into blocks of bm x bn elements (kernel parameters), and the operands of a whole
// block are loaded once and serve every output tile in it: each stationary column of a_t serves bn/512 output
// tiles, each moving column of b bm/128 of them. A crosses HBM once, B M/bm times (matmul_hoisted: M/128).
// Loading whole block rows ([128, bm] of a_t, [128, bn] of b per k) also makes every DMA bm*2 or bn*2 bytes per
// partition instead of 256 or 1024. The matmuls read 128 x 128 and 128 x 512 slices of them. Kernel parameter
// loads=2 loads the way NKI's tutorial does instead: one DMA per [128, 128] tile of a_t and per [128, 512] tile of b
// (bm/128 + bn/512 DMAs per k, of 256 and 1024 bytes per partition), the matmuls reading the tiles whole.
// The contraction dimension is not blocked: SBUF holds K/128 x (bm + bn) x 2 bytes per partition (per rotating
// copy), so the larger K, the smaller the blocks must be (matmul_blocked removes that limit).

#include "Matmul.h"

#include <fmt/format.h>

#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::kBf16Bits;
using tessera::kernels::kBitsParam;
using tessera::kernels::matmulBlock;
using tessera::kernels::matmulDtype;

constexpr const char *kName = "matmul_blocked_free";
/// Kernel parameter loads: one DMA per block row (the default) or per tile (NKI's tutorial).
constexpr int64_t kRowLoads = 1, kTileLoads = 2;

const Registration registration{{
    .name = kName,
    .summary = "matmul with M and N blocked so loaded operands serve a bm x bn block (the tutorial's 3rd step)",
    .params = {{"M", 512}, {"N", 512}, {"K", 512}},
    // Block sizes in elements; at K=8192 the default blocks take 128 KiB of SBUF per partition.
    .kernelParams = {{"bm", 512}, {"bn", 512}, {"loads", kRowLoads}, {kBitsParam, kBf16Bits}},
    .signature =
        [](const Params &p) {
          auto tensors = tessera::kernels::matmulSignature(kName, p);
          matmulBlock(kName, p, "bm", "M", tile_size::gemm_stationary_fmax);
          matmulBlock(kName, p, "bn", "N", std::min(p["N"], tile_size::gemm_moving_fmax));
          require(p["loads"] == kRowLoads || p["loads"] == kTileLoads,
                  fmt::format("{}: loads must be 1 (a DMA per block row) or 2 (a DMA per tile), not {}", kName,
                              p["loads"]));
          return tensors;
        },
    .body = body([](const Params &p, Hbm a_t, Hbm b, Hbm c) {
      const int64_t K = a_t.dim(0), M = a_t.dim(1), N = b.dim(1);
      const int64_t tm = tile_size::gemm_stationary_fmax, tk = tile_size::pmax;
      const int64_t tn = std::min(N, tile_size::gemm_moving_fmax);
      const int64_t bm = matmulBlock(kName, p, "bm", "M", tm), bn = matmulBlock(kName, p, "bn", "N", tn);
      const DType dtype = matmulDtype(kName, p);
      const bool tileLoads = p["loads"] == kTileLoads;
      // The block's operands for contraction tile k, [128, bm] of a_t and [128, bn] of b: one DMA each, or with
      // tile loads one per [128, 128] and [128, 512] tile, side by side in the same tile, tile by tile and k by k
      // within a tile, as NKI's tutorial orders them. The loads take the caller's line (`at`): a_t's and b's are
      // two statements of the kernel, as in the tutorial, and so go to two DMA queues.
      auto loadOperand = [&](Hbm x, const Index &block, int64_t size, int64_t tile, Loc at = Loc::current()) {
        std::vector<Tile> rows;
        for (int64_t k = 0; k < K / tk; ++k)
          rows.push_back(tileLoads ? ndarray(dtype, {tk, size})
                                   : load(x.window(k * tk, block * size, {tk, size}), at));
        for (int64_t t = 0; tileLoads && t < size / tile; ++t)
          for (int64_t k = 0; k < K / tk; ++k)
            load(rows[k].slice(t * tile, tile), x.window(k * tk, block * size + t * tile, {tk, tile}), at);
        return rows;
      };
      for (auto mb : affine_range(M / bm)) {
        const std::vector<Tile> stationary = loadOperand(a_t, mb, bm, tm); // the block row's a_t columns, once
        for (auto nb : affine_range(N / bn)) {
          const std::vector<Tile> moving = loadOperand(b, nb, bn, tn);
          for (auto i : affine_range(bm / tm))
            for (auto j : affine_range(bn / tn)) {
              Tile acc = psum<f32>({tm, tn});
              for (int64_t k = 0; k < K / tk; ++k)
                acc += matmul(stationary[k].slice(i * tm, tm), moving[k].slice(j * tn, tn));
              store(c.window(mb * bm + i * tm, nb * bn + j * tn, {tm, tn}), copy(acc, dtype));
            }
        }
      }
    }),
    .reference = tessera::kernels::matmulReference,
}};

} // namespace
