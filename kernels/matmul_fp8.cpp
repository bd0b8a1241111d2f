// matmul_fp8: C[M, N] = scale_a * scale_b * (A[M, K] @ B[K, N]), A and B in fp8 e4m3 with one scale per tensor
// (the dequantisation factors of per-tensor fp8 quantisation), FP32 accumulation in PSUM, C in bf16. A is given
// transposed, a_t[K, M], as in matmul. Any M, N and K: the last block of each is a smaller tile.
//
// An fp8 row of 128 elements is 128 bytes, where a DMA streams at a quarter of its peak (docs/memory.md), so the
// kernel moves wide windows: for each group of `bm` rows of C (a kernel parameter), A's [K, bm] panel is loaded once
// (one DMA of bm bytes per partition per 128 rows of K) and stays in SBUF while B streams past in [128, <= 2048]
// tiles (2 KiB per partition, 90% of a DMA's peak); each 128 x 512 output tile accumulates its K / 128 products in
// one PSUM bank, matmuls reading slices of the resident tiles. A crosses HBM once, B M / bm times. The scales are
// applied once, to the FP32 result, as the activation that moves it out of PSUM (one Scalar-engine instruction on
// a NeuronCore: copy(acc * scale_a * scale_b) rounded to bf16), not to the operands.
//
// Kernel parameter rows: 1 (the default) is the language-level matmul on fp8 tiles, which every target runs (the
// tensor engine takes fp8 at its BF16 rate; a TPU without fp8 in its MXU, v5e, multiplies bf16 copies: fp8 values
// are bf16 values, so the products are the same). rows=2 is NKI's FP8 double row mode (nisa.nc_matmul with
// perf_mode=double_row, NeuronCore-v3 on: trn2): two contraction rows per partition, each operand [128, 2, X] with
// rows k and k + 128 of a 256-row block side by side, so one matmul contracts over 256 rows in the time of 128,
// twice the BF16 rate. It is written with tsr::isa::nc_matmul (double row exists only at the ISA level, as in NKI),
// so it runs on NeuronCores that have the mode and is refused elsewhere, at the matmul's line. Its operands are
// loaded in that layout, one DMA per 128 rows and per half (B: 512-byte rows; A: 128-byte rows, once).
// SBUF per partition: the A panel, K x bm / 128 bytes (2 x that with rows=2 layout: the same), plus the B tiles,
// K x 2048 / 128 bytes, per rotating copy.
//
// Scalar parameters scale_a and scale_b (default 1).

#include "Rows.h"

#include "tessera/dsl/isa/TensorEngine.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::forEachBlock;

constexpr const char *kName = "matmul_fp8";
constexpr int64_t kSingleRow = 1, kDoubleRow = 2;

/// The output tile: 128 rows (the stationary free size) by 512 columns (one PSUM bank of FP32).
constexpr int64_t kTileRows = tile_size::gemm_stationary_fmax, kTileColumns = tile_size::gemm_moving_fmax;
/// The columns of one B tile: 2 KiB of fp8 per partition.
constexpr int64_t kStreamColumns = 2048;
constexpr int64_t kPair = 2 * tile_size::pmax;

/// One contraction block of an operand: rows [k, + depth) of a_t or b, as one tile. A block of 256 rows (double row
/// mode) is [128, 2 * width], laid out per output tile t: slice [2 * start(t), + 2 * width(t)) holds rows k + i
/// then k + 128 + i of that tile's columns in partition i. Other blocks are [depth <= 128, width].
struct Block {
  int64_t k = 0, depth = 0;
  Tile tile;
  bool pair() const { return depth == kPair; }
  /// The operand of the output tile whose columns start at `start` (of the block's window) and span `width`.
  Tile operand(const Index &start, int64_t width) const {
    return pair() ? tile.slice(2 * start, 2 * width) : tile.slice(start, width);
  }
};

/// The contraction blocks of the window [.., col, + width] of x (a_t or b), every tile of `tileWidth` columns. The
/// loads go column tile by column tile, so that the first output tiles' operands arrive first.
std::vector<Block> loadBlocks(const Hbm &x, const Index &col, int64_t width, int64_t tileWidth, bool doubleRow) {
  const int64_t K = x.dim(0);
  std::vector<Block> blocks;
  for (int64_t k = 0; k < K;) {
    const int64_t depth = doubleRow && K - k >= kPair ? kPair : std::min(tile_size::pmax, K - k);
    blocks.push_back({k, depth, depth == kPair ? ndarray<f8e4m3>({tile_size::pmax, 2 * width})
                                               : ndarray<f8e4m3>({depth, width})});
    k += depth;
  }
  for (int64_t start = 0; start < width; start += tileWidth) {
    const int64_t w = std::min(tileWidth, width - start);
    for (const Block &b : blocks) {
      if (!b.pair()) {
        load(b.tile.slice(start, w), x.window(b.k, col + start, {b.depth, w}));
        continue;
      }
      load(b.tile.slice(2 * start, w), x.window(b.k, col + start, {tile_size::pmax, w}));
      load(b.tile.slice(2 * start + w, w), x.window(b.k + tile_size::pmax, col + start, {tile_size::pmax, w}));
    }
  }
  return blocks;
}

const Registration registration{{
    .name = kName,
    .summary = "C[M,N] = scale_a scale_b A[M,K] @ B[K,N] (A as a_t[K,M]), fp8 e4m3 in, FP32 accumulation, bf16 out, "
               "any M, N, K; bm = rows of A resident; rows=2: FP8 double row (NeuronCore-v3 on)",
    .params = {{"M", 512}, {"N", 512}, {"K", 512}},
    .kernelParams = {{"rows", kSingleRow}, {"bm", 2048}},
    .scalarParams = {{"scale_a", 1.0}, {"scale_b", 1.0}},
    .signature =
        [](const Params &p) {
          require(p["rows"] == kSingleRow || p["rows"] == kDoubleRow,
                  fmt::format("{}: rows must be 1 (the language-level matmul) or 2 (FP8 double row), not {}", kName,
                              p["rows"]));
          require(p["bm"] % kTileRows == 0, fmt::format("{}: bm={} must be a multiple of 128", kName, p["bm"]));
          return std::vector<TensorSpec>{input("a_t", {p["K"], p["M"]}, f8e4m3), input("b", {p["K"], p["N"]}, f8e4m3),
                                         output("c", {p["M"], p["N"]}, bf16)};
        },
    .body = body([](const Params &p, Hbm a_t, Hbm b, Hbm c) {
      const int64_t M = a_t.dim(1), N = b.dim(1);
      const bool doubleRow = p["rows"] == kDoubleRow;
      const float scale = static_cast<float>(p.scalar("scale_a") * p.scalar("scale_b"));
      // The groups of rows are a plain C++ loop (unrolled at trace time), each group scoped: the tiles of sibling
      // loops share memory, those nested in one loop's body do not (docs/compiler.md), and a group's N loop and its
      // last, narrower N block each need their PSUM banks.
      for (int64_t row = 0; row < M; row += p["bm"]) tessera::kernels::scoped([&] {
        const int64_t rows = std::min(p["bm"], M - row);
        const std::vector<Block> panel = loadBlocks(a_t, row, rows, kTileRows, doubleRow);
        forEachBlock(N, std::min(kStreamColumns, N), [&](const Index &col, int64_t cols) {
          const std::vector<Block> moving = loadBlocks(b, col, cols, kTileColumns, doubleRow);
          // Per 128 rows, the block's output tiles side by side: each stored on its own as soon as it is computed,
          // so that with a loop's rotating copies many stores are in flight (a store of [128, 512] bf16 takes
          // longer than the matmuls of a tile).
          forEachBlock(rows, kTileRows, [&](const Index &m, int64_t height) {
            Tile out = ndarray<bf16>({height, cols});
            for (int64_t n = 0; n < cols; n += kTileColumns) {
              const int64_t width = std::min(kTileColumns, cols - n);
              Tile result = out.slice(n, width);
              if (!doubleRow) {
                Tile acc = psum<f32>({height, width});
                for (size_t i = 0; i < panel.size(); ++i)
                  acc += matmul(panel[i].operand(m, height), moving[i].operand(n, width));
                activation(result, act::copy, acc, {.scale = scale});
              } else {
                Tile acc = ndarray(f32, {height, width}, buffer::psum);
                for (size_t i = 0; i < panel.size(); ++i)
                  isa::nc_matmul(acc, panel[i].operand(m, height), moving[i].operand(n, width),
                                 /*accumulate=*/i > 0, {}, {},
                                 panel[i].pair() ? isa::matmul_perf_mode::double_row : isa::matmul_perf_mode::none);
                activation(result, act::copy, acc, {.scale = scale});
              }
              store(c.window(row + m, col + n, {height, width}), result);
            }
          });
        });
      });
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          // In double, from the fp8 inputs as given: scale_a * scale_b * sum_k a_t[k, m] * b[k, n].
          const int64_t M = p["M"], N = p["N"], K = p["K"];
          const double scale = p.scalar("scale_a") * p.scalar("scale_b");
          std::vector<double> row(N);
          for (int64_t m = 0; m < M; ++m) {
            std::fill(row.begin(), row.end(), 0.0);
            for (int64_t k = 0; k < K; ++k)
              for (int64_t n = 0; n < N; ++n) row[n] += double(in[0][k * M + m]) * in[1][k * N + n];
            for (int64_t n = 0; n < N; ++n) out[0][m * N + n] = static_cast<float>(scale * row[n]);
          }
        },
    .scheduleInstructions = true,
}};

} // namespace
