// plugin_transposed_window: HBM windows moved transposed, as NKI kernels write them: nl.load_transpose2d of a
// [rows, D] block of x into a [D, rows] tile, and a store of a [D, rows] tile into a [rows, D] block of y through the
// window's transpose (NKI: y[i * rows + i_f, i_p]). Over 3-D [B, S, D] tensors, the batch a loop index:
//   xt[b] = x[b]^T  (a plain store of the transposed load)      y[b] = 2 x[b]  (doubled, stored transposed back)
// With --param dtype=2 the tensors are bf16 (dtype=1, the default: f32): a NeuronCore-v3 (trn2) moves the load with
// nki.isa.dma_transpose, other loads and every store are element-strided DMAs; a TPU loads and stores the windows as
// they lie and transposes on chip. --param rows=1 moves single rows (a [D, 1] tile), --shape D=1 tensors of one
// column, rows=512 a DMA transpose of 512 source rows. Run on both families, their NKI and Pallas modules checked
// (tests/compiler.cmake, tests/backends.cmake).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "plugin_transposed_window",
    .summary = "xt[b] = x[b]^T and y[b] = 2 x[b] through transposed HBM windows (load_transpose2d, a transposed "
               "store), over 3-D tensors (a test plugin's kernel)",
    .params = {{"B", 2}, {"S", 256}, {"D", 64}},
    .kernelParams = {{"dtype", 1}, {"rows", 128}},
    .signature =
        [](const Params &p) {
          const int64_t B = p["B"], S = p["S"], D = p["D"];
          const int64_t rows = p["rows"];
          require(rows <= tile_size::gemm_moving_fmax && S % rows == 0 && D <= tile_size::pmax,
                  "plugin_transposed_window: rows must be at most 512 and divide S, D at most 128");
          require(p["dtype"] == 1 || p["dtype"] == 2, "plugin_transposed_window: dtype must be 1 (f32) or 2 (bf16)");
          const DType dtype = p["dtype"] == 2 ? bf16 : f32;
          return std::vector<TensorSpec>{input("x", {B, S, D}, dtype), output("xt", {B, D, S}, dtype),
                                         output("y", {B, S, D}, dtype)};
        },
    .body = body([](const Params &p, Hbm x, Hbm xt, Hbm y) {
      const int64_t D = x.dim(2), rows = p["rows"];
      for (auto b : affine_range(x.dim(0)))
        for (auto i : affine_range(x.dim(1) / rows)) {
          Tile t = load_transpose2d(x[b].window(i * rows, 0, {rows, D})); // [D, rows]
          store(xt[b].window(0, i * rows, {D, rows}), t);
          store(y[b].window(i * rows, 0, {rows, D}).transposed(), t * 2.0f);
        }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t B = p["B"], S = p["S"], D = p["D"];
          for (int64_t b = 0; b < B; ++b)
            for (int64_t s = 0; s < S; ++s)
              for (int64_t d = 0; d < D; ++d) {
                const float v = in[0][(b * S + s) * D + d];
                out[0][(b * D + d) * S + s] = v;
                out[1][(b * S + s) * D + d] = 2 * v;
              }
        },
}};

} // namespace
