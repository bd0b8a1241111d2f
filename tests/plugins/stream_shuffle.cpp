// plugin_stream_shuffle: data moved across partitions on chip with tsr::isa::nc_stream_shuffle (NKI's
// nki.isa.nc_stream_shuffle), NeuronCore only. Row 0 of x [1, N] is broadcast onto all 128 partitions of y, one
// call per quadrant of y, each copying partition 0 of the loaded row with a mask of zeros (what the NKI library's
// stream_shuffle_broadcast does); and each quadrant of a [128, N] is reversed in place:
//   y[p, f] = x[0, f],   r[32q + i, f] = a[32q + 31 - i, f]
// Run and checked on the NKI model (tests/compiler.cmake, tests/backends.cmake).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kPartitions = 128, kQuadrant = 32;

const Registration registration{{
    .name = "plugin_stream_shuffle",
    .summary = "a row broadcast onto 128 partitions and quadrants reversed, with nc_stream_shuffle (a test plugin's "
               "kernel, NeuronCore only)",
    .params = {{"N", 512}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("x", {1, p["N"]}, f32), input("a", {kPartitions, p["N"]}, f32),
                                         output("y", {kPartitions, p["N"]}, f32),
                                         output("r", {kPartitions, p["N"]}, f32)};
        },
    .body = body([](Hbm x, Hbm a, Hbm y, Hbm r) {
      const int64_t n = x.dim(1);
      Tile row = load(x.tile(0, 0, {1, n}));
      Tile all = ndarray<f32>({kPartitions, n});
      for (int64_t q = 0; q < kPartitions / kQuadrant; ++q)
        isa::nc_stream_shuffle(all.partition_slice(q * kQuadrant, kQuadrant), row, isa::ShuffleMask{});
      store(y.tile(0, 0, {kPartitions, n}), all);
      Tile t = load(a.tile(0, 0, {kPartitions, n}));
      isa::ShuffleMask reversed;
      for (int i = 0; i < int(kQuadrant); ++i) reversed[i] = int(kQuadrant) - 1 - i;
      isa::nc_stream_shuffle(t, t, reversed);
      store(r.tile(0, 0, {kPartitions, n}), t);
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t n = p["N"];
          for (int64_t row = 0; row < kPartitions; ++row)
            for (int64_t f = 0; f < n; ++f) {
              out[0][row * n + f] = in[0][f];
              const int64_t from = row / kQuadrant * kQuadrant + kQuadrant - 1 - row % kQuadrant;
              out[1][row * n + f] = in[1][from * n + f];
            }
        },
}};

} // namespace
