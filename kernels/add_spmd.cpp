// add_spmd: C = A + B as an SPMD launch, after NKI's SPMD tensor-add tutorial: a launch grid of
// [M / 128, N / 512] programs, each adding one [128, 512] tile at (program_id(0), program_id(1)). On trn2/trn3 the
// programs run on the two physical cores of a logical NeuronCore (axis 0 split between them), on TPU v4/v5p on the
// two TensorCores of a megacore; elsewhere on one core, one after another.
// https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/tutorials/spmd_tensor_addition.html

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kRows = tile_size::pmax, kCols = 512;

const Registration registration{{
    .name = "add_spmd",
    .summary = "C = A + B, FP32, one [128, 512] tile per program of an SPMD launch grid",
    .params = {{"M", 256}, {"N", 1024}},
    .signature =
        [](const Params &p) {
          require(p["M"] % kRows == 0, "add_spmd: M must be a multiple of 128");
          require(p["N"] % kCols == 0, "add_spmd: N must be a multiple of 512");
          return std::vector<TensorSpec>{input("a", {p["M"], p["N"]}, f32), input("b", {p["M"], p["N"]}, f32),
                                         output("c", {p["M"], p["N"]}, f32)};
        },
    .body = body([](Hbm a, Hbm b, Hbm c) {
      const Index i = program_id(0), j = program_id(1);
      Tile x = load(a.tile(i, j, {kRows, kCols}));
      Tile y = load(b.tile(i, j, {kRows, kCols}));
      store(c.tile(i, j, {kRows, kCols}), x + y);
    }),
    .reference =
        [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = in[0][i] + in[1][i];
        },
    .grid = [](const Params &p) { return std::vector<int64_t>{p["M"] / kRows, p["N"] / kCols}; },
}};

} // namespace
