// tut_tensor_add: NKI's "Single Kernel Tutorial" (tensor addition), ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/tensor_addition.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/tensor_addition/
//             tensor_addition_nki_kernels.py (nki_tensor_add_kernel_ and its caller nki_tensor_add)
// c = a + b on [M, N] tensors in tiles of [128, 512], float16 as the tutorial's test.
//
// What differs from the tutorial, and why:
//  - The SPMD launch grid [M / 128, N / 512] is the kernel's `grid`, and each program finds its tile from
//    program_id(0) and program_id(1), as the tutorial's instances do. On trn2/trn3 the programs of axis 0 are split
//    between a logical NeuronCore's two cores (the emitted NKI launches kernel[2]), on trn1 they run one after
//    another on one core.
//  - nl.arange index tiles (ix, iy) are the window a.tile(x, y, {128, 512}); the offsets are the same.
//  - nl.shared_hbm output allocation: outputs are part of the signature (tsr::output).
//  - The tutorial's kernel asserts nothing about masks; it needs M % 128 == N % 512 == 0, required here too.

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kTileRows = 128, kTileColumns = 512;

const Registration registration{{
    .name = "tut_tensor_add",
    .summary = "NKI tutorial 'tensor addition': c = a + b, fp16, [128, 512] tiles, one per program of an SPMD grid",
    .params = {{"M", 256}, {"N", 1024}},
    .signature =
        [](const Params &p) {
          require(p["M"] % kTileRows == 0 && p["N"] % kTileColumns == 0,
                  "tut_tensor_add: M must be a multiple of 128 and N of 512 (the tutorial's tiles)");
          return std::vector<TensorSpec>{input("a_input", {p["M"], p["N"]}, f16),
                                         input("b_input", {p["M"], p["N"]}, f16),
                                         output("c_output", {p["M"], p["N"]}, f16)};
        },
    .body = body([](Hbm a_input, Hbm b_input, Hbm c_output) {
      const Index x = program_id(0), y = program_id(1);
      Tile a_tile = load(a_input.tile(x, y, {kTileRows, kTileColumns}));
      Tile b_tile = load(b_input.tile(x, y, {kTileRows, kTileColumns}));
      Tile c_tile = a_tile + b_tile;
      store(c_output.tile(x, y, {kTileRows, kTileColumns}), c_tile);
    }),
    .reference =
        [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = in[0][i] + in[1][i];
        },
    .grid = [](const Params &p) { return std::vector<int64_t>{p["M"] / kTileRows, p["N"] / kTileColumns}; },
}};

} // namespace
