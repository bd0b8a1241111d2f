// tut_matmul_v1 ... tut_matmul_v5: the kernels of NKI's matrix multiplication tutorial, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/matrix_multiplication.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/matrix_multiplication/
//             matrix_multiplication_nki_kernels.py, the nki.language version (commit 5480d25: nl.load, nl.matmul,
//             nl.copy, nl.store; newer versions write the same loops with nisa.dma_copy and nisa.nc_matmul)
//   v1 nki_matmul_basic_              one [64, 128] x [128, 512] matmul
//   v2 nki_matmul_tiled_              m, n, k loops over [128, 128] x [128, 512] tiles, both loaded every k
//   v3 nki_matmul_hoist_load_         a row's lhsT tiles loaded once per m, a column's rhs tiles once per n
//   v4 nki_matmul_block_free_dimension_  blocks of 2 x 2 output tiles, their operand tiles loaded once per block
//   v5 nki_matmul_fully_optimized_    M, N and K blocked, partial sums accumulated in SBUF
// result[M, N] = lhsT[K, M].T @ rhs[K, N], bf16 in and out (the tutorial's benchmark dtype), FP32 PSUM.
//
// What differs from the tutorial, and why:
//  - The tutorial's multi-dimensional SBUF tiles (v3 lhsT_tiles[K / 128, par_dim(128), 128], v4's 4-D ones, v5's
//    5-D result_tiles) are 2-D tiles whose free dimension holds the leading dimensions flattened: tile [k] is the
//    slice k * 128 (or k * 512) of the free dimension. The DSL's tiles are [partition, free]; a slice's offset may
//    be affine in loop indices, so the tutorial's affine_range loops over those indices stay loops.
//  - nl.matmul(x, y, transpose_x=True) is tsr::matmul(x, y): the DSL's matmul takes the stationary operand
//    transposed, as nc_matmul.
//  - v1's shapes are parameters (default the tutorial's 64 x 128 x 512) instead of asserted constants.
//  - v5's K loop is nl.sequential_range in the tutorial; the DSL has no sequential_range: an affine_range whose
//    iterations accumulate into result_tiles, which the compiler orders (a loop-carried dependency through a tile
//    made before the loop). Its meta-parameters TILES_IN_BLOCK_M/N/K (16, 2, 8) are the kernel parameters tbm,
//    tbn, tbk, with small defaults (2, 1, 2) so that the default shape is small. result_tiles is in lhsT's dtype
//    (bf16), as the tutorial's nl.zeros(..., dtype=lhsT.dtype): each K block's partial sum is rounded to bf16.

#include "../Matmul.h"

#include <fmt/format.h>

#include <string>

namespace {

using namespace tsr;
using tessera::kernels::matmulReference;

constexpr int64_t TILE_M = tile_size::gemm_stationary_fmax; // 128
constexpr int64_t TILE_K = tile_size::pmax;                 // 128
constexpr int64_t TILE_N = tile_size::gemm_moving_fmax;     // 512

/// lhsT[K, M], rhs[K, N] -> result[M, N], bf16, with M, N, K multiples of the given block sizes.
std::vector<TensorSpec> matmulSignature(const std::string &name, const Params &p, int64_t blockM, int64_t blockN,
                                        int64_t blockK) {
  require(p["M"] % blockM == 0 && p["N"] % blockN == 0 && p["K"] % blockK == 0,
          fmt::format("{}: M={}, N={}, K={} must be multiples of {}, {}, {}", name, p["M"], p["N"], p["K"], blockM,
                      blockN, blockK));
  return {input("lhsT", {p["K"], p["M"]}, bf16), input("rhs", {p["K"], p["N"]}, bf16),
          output("result", {p["M"], p["N"]}, bf16)};
}

const Registration v1{{
    .name = "tut_matmul_v1",
    .summary = "NKI tutorial 'matrix multiplication', basic: one [64,128] x [128,512] matmul, bf16",
    .params = {{"M", 64}, {"N", 512}, {"K", 128}},
    .signature =
        [](const Params &p) {
          require(p["M"] <= TILE_M && p["N"] <= TILE_N && p["K"] <= TILE_K,
                  "tut_matmul_v1: one matmul: M <= 128, N <= 512, K <= 128");
          return matmulSignature("tut_matmul_v1", p, 1, 1, 1);
        },
    .body = body([](Hbm lhsT, Hbm rhs, Hbm result) {
      Tile lhs_tile = load(lhsT.tile(0, 0, {lhsT.dim(0), lhsT.dim(1)}));
      Tile rhs_tile = load(rhs.tile(0, 0, {rhs.dim(0), rhs.dim(1)}));
      Tile result_psum = matmul(lhs_tile, rhs_tile);
      Tile result_sbuf = copy<bf16>(result_psum);
      store(result.tile(0, 0, {result.dim(0), result.dim(1)}), result_sbuf);
    }),
    .reference = matmulReference,
}};

const Registration v2{{
    .name = "tut_matmul_v2",
    .summary = "NKI tutorial 'matrix multiplication', tiled: m, n, k loops, both tiles loaded every k, bf16",
    .params = {{"M", 256}, {"N", 1024}, {"K", 256}},
    .signature = [](const Params &p) { return matmulSignature("tut_matmul_v2", p, TILE_M, TILE_N, TILE_K); },
    .body = body([](Hbm lhsT, Hbm rhs, Hbm result) {
      const int64_t K = lhsT.dim(0), M = lhsT.dim(1), N = rhs.dim(1);
      for (auto m : affine_range(M / TILE_M))
        for (auto n : affine_range(N / TILE_N)) {
          Tile res_psum = psum<f32>({TILE_M, TILE_N});
          for (auto k : affine_range(K / TILE_K)) {
            Tile lhsT_tile = ndarray<bf16>({TILE_K, TILE_M});
            Tile rhs_tile = ndarray<bf16>({TILE_K, TILE_N});
            load(lhsT_tile, lhsT.tile(k, m, {TILE_K, TILE_M}));
            load(rhs_tile, rhs.tile(k, n, {TILE_K, TILE_N}));
            res_psum += matmul(lhsT_tile, rhs_tile);
          }
          Tile res_sb = copy<bf16>(res_psum);
          store(result.tile(m, n, {TILE_M, TILE_N}), res_sb);
        }
    }),
    .reference = matmulReference,
}};

const Registration v3{{
    .name = "tut_matmul_v3",
    .summary = "NKI tutorial 'matrix multiplication', hoisted loads: lhsT tiles once per m, rhs once per n, bf16",
    .params = {{"M", 256}, {"N", 1024}, {"K", 256}},
    .signature = [](const Params &p) { return matmulSignature("tut_matmul_v3", p, TILE_M, TILE_N, TILE_K); },
    .body = body([](Hbm lhsT, Hbm rhs, Hbm result) {
      const int64_t K = lhsT.dim(0), M = lhsT.dim(1), N = rhs.dim(1);
      for (auto m : affine_range(M / TILE_M)) {
        // lhsT_tiles[k] is the slice [k * TILE_M, (k + 1) * TILE_M).
        Tile lhsT_tiles = ndarray<bf16>({TILE_K, K / TILE_K * TILE_M});
        for (auto k : affine_range(K / TILE_K))
          load(lhsT_tiles.slice(k * TILE_M, TILE_M), lhsT.tile(k, m, {TILE_K, TILE_M}));
        for (auto n : affine_range(N / TILE_N)) {
          Tile rhs_tiles = ndarray<bf16>({TILE_K, K / TILE_K * TILE_N});
          for (auto k : affine_range(K / TILE_K))
            load(rhs_tiles.slice(k * TILE_N, TILE_N), rhs.tile(k, n, {TILE_K, TILE_N}));
          Tile res_psum = psum<f32>({TILE_M, TILE_N});
          for (auto k : affine_range(K / TILE_K))
            res_psum += matmul(lhsT_tiles.slice(k * TILE_M, TILE_M), rhs_tiles.slice(k * TILE_N, TILE_N));
          Tile res_sb = copy<bf16>(res_psum);
          store(result.tile(m, n, {TILE_M, TILE_N}), res_sb);
        }
      }
    }),
    .reference = matmulReference,
}};

constexpr int64_t TILES_IN_BLOCK_M = 2, TILES_IN_BLOCK_N = 2; // v4's blocking of the free dimensions
constexpr int64_t BLOCK_M = TILE_M * TILES_IN_BLOCK_M, BLOCK_N = TILE_N * TILES_IN_BLOCK_N;

const Registration v4{{
    .name = "tut_matmul_v4",
    .summary = "NKI tutorial 'matrix multiplication', free dimensions blocked 2 x 2 tiles, bf16",
    .params = {{"M", 256}, {"N", 1024}, {"K", 256}},
    .signature = [](const Params &p) { return matmulSignature("tut_matmul_v4", p, BLOCK_M, BLOCK_N, TILE_K); },
    .body = body([](Hbm lhsT, Hbm rhs, Hbm result) {
      const int64_t K = lhsT.dim(0), M = lhsT.dim(1), N = rhs.dim(1), KT = K / TILE_K;
      for (auto m : affine_range(M / BLOCK_M)) {
        // lhsT_tiles[bm, k] is the slice (bm * KT + k) * TILE_M.
        Tile lhsT_tiles = ndarray<bf16>({TILE_K, TILES_IN_BLOCK_M * KT * TILE_M});
        for (auto bm : affine_range(TILES_IN_BLOCK_M))
          for (auto k : affine_range(KT))
            load(lhsT_tiles.slice((bm * KT + k) * TILE_M, TILE_M),
                 lhsT.window(k * TILE_K, (m * TILES_IN_BLOCK_M + bm) * TILE_M, {TILE_K, TILE_M}));
        for (auto n : affine_range(N / BLOCK_N)) {
          Tile rhs_tiles = ndarray<bf16>({TILE_K, TILES_IN_BLOCK_N * KT * TILE_N});
          for (auto bn : affine_range(TILES_IN_BLOCK_N))
            for (auto k : affine_range(KT))
              load(rhs_tiles.slice((bn * KT + k) * TILE_N, TILE_N),
                   rhs.window(k * TILE_K, (n * TILES_IN_BLOCK_N + bn) * TILE_N, {TILE_K, TILE_N}));
          for (auto bm : affine_range(TILES_IN_BLOCK_M))
            for (auto bn : affine_range(TILES_IN_BLOCK_N)) {
              Tile res_psum = psum<f32>({TILE_M, TILE_N});
              for (auto k : affine_range(KT))
                res_psum += matmul(lhsT_tiles.slice((bm * KT + k) * TILE_M, TILE_M),
                                   rhs_tiles.slice((bn * KT + k) * TILE_N, TILE_N));
              Tile res_sb = copy<bf16>(res_psum);
              store(result.window((m * TILES_IN_BLOCK_M + bm) * TILE_M, (n * TILES_IN_BLOCK_N + bn) * TILE_N,
                                  {TILE_M, TILE_N}),
                    res_sb);
            }
        }
      }
    }),
    .reference = matmulReference,
}};

const Registration v5{{
    .name = "tut_matmul_v5",
    .summary = "NKI tutorial 'matrix multiplication', fully optimised: M, N, K blocked (tbm, tbn, tbk tiles), SBUF "
               "accumulation, bf16",
    .params = {{"M", 512}, {"N", 1024}, {"K", 512}},
    .kernelParams = {{"tbm", 2}, {"tbn", 1}, {"tbk", 2}},
    .signature =
        [](const Params &p) {
          return matmulSignature("tut_matmul_v5", p, TILE_M * p["tbm"], TILE_N * p["tbn"], TILE_K * p["tbk"]);
        },
    .body = body([](const Params &p, Hbm lhsT, Hbm rhs, Hbm result) {
      const int64_t K = lhsT.dim(0), M = lhsT.dim(1), N = rhs.dim(1);
      const int64_t TBM = p["tbm"], TBN = p["tbn"], TBK = p["tbk"];
      const int64_t blockM = TILE_M * TBM, blockN = TILE_N * TBN, blockK = TILE_K * TBK;
      const int64_t NUM_BLOCK_M = M / blockM, NUM_BLOCK_N = N / blockN, NUM_BLOCK_K = K / blockK;
      for (auto n : affine_range(NUM_BLOCK_N)) {
        // result_tiles[m, bm, bn] is the slice ((m * TBM + bm) * TBN + bn) * TILE_N, zeroed.
        Tile result_tiles = zeros<bf16>({TILE_M, NUM_BLOCK_M * TBM * TBN * TILE_N});
        for (auto k : affine_range(NUM_BLOCK_K)) { // nl.sequential_range in the tutorial
          Tile rhs_tiles = ndarray<bf16>({TILE_K, TBK * blockN}); // rhs_tiles[bk_r]: slice bk_r * blockN
          for (auto bk_r : affine_range(TBK))
            load(rhs_tiles.slice(bk_r * blockN, blockN),
                 rhs.window((k * TBK + bk_r) * TILE_K, n * blockN, {TILE_K, blockN}));
          for (auto m : affine_range(NUM_BLOCK_M)) {
            Tile lhsT_tiles = ndarray<bf16>({TILE_K, TBK * blockM}); // lhsT_tiles[bk_l]: slice bk_l * blockM
            for (auto bk_l : affine_range(TBK))
              load(lhsT_tiles.slice(bk_l * blockM, blockM),
                   lhsT.window((k * TBK + bk_l) * TILE_K, m * blockM, {TILE_K, blockM}));
            for (auto bn : affine_range(TBN))
              for (auto bm : affine_range(TBM)) {
                Tile res_tile = psum<f32>({TILE_M, TILE_N});
                for (auto bk : affine_range(TBK))
                  res_tile += matmul(lhsT_tiles.slice(bk * blockM + bm * TILE_M, TILE_M),
                                     rhs_tiles.slice(bk * blockN + bn * TILE_N, TILE_N));
                result_tiles.slice(((m * TBM + bm) * TBN + bn) * TILE_N, TILE_N) += res_tile;
              }
          }
        }
        for (auto m : affine_range(NUM_BLOCK_M))
          for (auto bm : affine_range(TBM)) {
            Tile result_packed = ndarray<bf16>({TILE_K, blockN}); // coalesced for one DMA
            for (auto bn : affine_range(TBN))
              assign(result_packed.slice(bn * TILE_N, TILE_N),
                     result_tiles.slice(((m * TBM + bm) * TBN + bn) * TILE_N, TILE_N));
            store(result.window((m * TBM + bm) * TILE_K, n * blockN, {TILE_K, blockN}), result_packed);
          }
      }
    }),
    .reference = matmulReference,
}};

} // namespace
