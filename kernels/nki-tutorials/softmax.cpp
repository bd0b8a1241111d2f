// tut_softmax: NKI's softmax tutorial kernel, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/softmax.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/softmax/softmax_nki_kernels.py
//             (nki_softmax_kernel)
// y = exp(x - max x) / sum exp(x - max x) along each row, FP32, 128 rows per tile, the whole row in one tile.
//
// What differs from the tutorial, and why:
//  - The tutorial's loop runs ceil(R / 128) times and masks the last tile's rows (mask= on the load, the max, the
//    subtract and the store). NKI 0.2 deprecated masks for slices bounded by min() (its migration guide,
//    "Deprecation of masking"); here the loop runs over the R / 128 full tiles and the same body runs once more on
//    the last R % 128 rows, a tile of that many partitions.
//  - Otherwise line for line: load, nl.max -> tsr::max, nl.subtract -> -, nl.exp -> tsr::exp, nl.sum -> tsr::sum,
//    numerator / denominator (a [128, 1] divisor broadcast along the row), store.

#include "../Rows.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "tut_softmax",
    .summary = "NKI tutorial 'softmax': row-wise softmax of a_tensor[R, C], FP32, 128 rows per tile",
    .params = {{"R", 256}, {"C", 512}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("a_tensor", {p["R"], p["C"]}, f32),
                                         output("out_tensor", {p["R"], p["C"]}, f32)};
        },
    .body = body([](Hbm a_tensor, Hbm out_tensor) {
      const int64_t cols = a_tensor.dim(1);
      tessera::kernels::forEachBlock(a_tensor.dim(0), 128, [&](const Index &row, int64_t rows) {
        Tile a_tile = load(a_tensor.window(row, 0, {rows, cols}));
        Tile max_vals = max(a_tile);
        Tile shifted = a_tile - max_vals;
        Tile numerator = exp(shifted);
        Tile denominator = sum(numerator);
        Tile sm = numerator / denominator;
        store(out_tensor.window(row, 0, {rows, cols}), sm);
      });
    }),
    .reference = tessera::kernels::softmaxReference, // the library softmax's
}};

} // namespace
