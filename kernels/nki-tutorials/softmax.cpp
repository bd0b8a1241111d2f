// tut_softmax: NKI's softmax tutorial kernel, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/softmax.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/softmax/softmax_nki_kernels.py
//             (nki_softmax_kernel)
// y = exp(x - max x) / sum exp(x - max x) along each row, FP32, 128 rows per tile, the whole row in one tile.
//
// What differs from the tutorial, and why:
//  - The tutorial's loop runs ceil(R / 128) times and masks the last tile's rows (mask= on the load, the max, the
//    subtract and the store). The DSL has no masks: R must be a multiple of 128, and the loop runs R / 128 times.
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
          require(p["R"] % tile_size::pmax == 0, "tut_softmax: R must be a multiple of 128 (the DSL has no masks)");
          return std::vector<TensorSpec>{input("a_tensor", {p["R"], p["C"]}, f32),
                                         output("out_tensor", {p["R"], p["C"]}, f32)};
        },
    .body = body([](Hbm a_tensor, Hbm out_tensor) {
      const int64_t cols = a_tensor.dim(1);
      for (auto i : affine_range(a_tensor.dim(0) / 128)) {
        Tile a_tile = load(a_tensor.tile(i, 0, {128, cols}));
        Tile max_vals = max(a_tile);
        Tile shifted = a_tile - max_vals;
        Tile numerator = exp(shifted);
        Tile denominator = sum(numerator);
        Tile sm = numerator / denominator;
        store(out_tensor.tile(i, 0, {128, cols}), sm);
      }
    }),
    .reference = tessera::kernels::softmaxReference, // the library softmax's
}};

} // namespace
