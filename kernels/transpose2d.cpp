// transpose2d: Y[C, R] = X[R, C] transposed, bf16, any R and C (NKI: nl.transpose, nisa.nc_transpose,
// nisa.dma_transpose). A transpose swaps a tile's partition and free dimensions, at most 128 x 128 at a time, so
// the kernel works on 128 x 128 blocks: rows of X go to partitions, and a block's transpose puts X's columns on
// partitions, the rows of Y. A step covers up to 512 rows of X (four row blocks) by up to 512 columns: four
// loads of [<= 128, <= 512] (1 KiB per partition), then for each 128-column block of them four transposes side
// by side into one [<= 128, <= 512] result, stored as one 1 KiB-per-partition DMA into Y. Edges that are not
// multiples of 128 (or 512) are smaller blocks.
//
// Kernel parameter engine: 1 = the tensor engine (the transposes write a PSUM bank, which a copy moves to SBUF
// for the store: nc_transpose, NKI's usual way), 2 = the DMA queues (dma_transpose writes SBUF directly: no
// tensor engine and no copy, but a 256-byte-per-partition transfer per block). On a TPU both run as MXU matmuls
// with an identity (tile-legalize-for-tpu).

#include "Rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::forEachBlock;

constexpr const char *kName = "transpose2d";
constexpr int64_t kTensorEngine = 1, kDma = 2;
/// Rows (four row blocks) and columns of one step: a transposed block of 512 bf16 output columns is 1 KiB per
/// partition, one PSUM bank's half, and one DMA that streams at 75% of a DMA engine's peak (docs/memory.md).
constexpr int64_t kStepRows = 4 * tile_size::pmax, kStepColumns = tessera::kernels::kChunkColumns;

const Registration registration{{
    .name = kName,
    .summary = "Y = X^T, bf16, any [R, C]; engine=1 tensor-engine transposes through PSUM, engine=2 DMA transposes",
    .params = {{"R", 512}, {"C", 512}},
    .kernelParams = {{"engine", kTensorEngine}},
    .signature =
        [](const Params &p) {
          require(p["engine"] == kTensorEngine || p["engine"] == kDma,
                  fmt::format("{}: engine must be 1 (the tensor engine, through PSUM) or 2 (DMA transposes)", kName));
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, bf16), output("y", {p["C"], p["R"]}, bf16)};
        },
    .body = body([](const Params &p, Hbm x, Hbm y) {
      const bool dma = p["engine"] == kDma;
      forEachBlock(x.dim(0), kStepRows, [&](const Index &row, int64_t rows) {
        forEachBlock(x.dim(1), kStepColumns, [&](const Index &col, int64_t cols) {
          std::vector<Tile> blocks; // the step's row blocks, [<= 128, cols] each
          for (int64_t r = 0; r < rows; r += tile_size::pmax)
            blocks.push_back(load(x.window(row + r, col, {std::min(tile_size::pmax, rows - r), cols})));
          for (int64_t c = 0; c < cols; c += tile_size::pmax) {
            const int64_t width = std::min(tile_size::pmax, cols - c);
            // Y's rows [col + c, + width), columns [row, + rows): the transposes of the blocks side by side.
            Tile out = dma ? ndarray<bf16>({width, rows}) : ndarray(bf16, {width, rows}, buffer::psum);
            for (size_t b = 0; b < blocks.size(); ++b)
              transpose(out.slice(int64_t(b) * tile_size::pmax, blocks[b].partitions()), blocks[b].slice(c, width));
            store(y.window(col + c, row, {width, rows}), dma ? out : copy<bf16>(out));
          }
        });
      });
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t R = p["R"], C = p["C"];
          for (int64_t r = 0; r < R; ++r)
            for (int64_t c = 0; c < C; ++c) out[0][c * R + r] = in[0][r * C + c];
        },
}};

} // namespace
