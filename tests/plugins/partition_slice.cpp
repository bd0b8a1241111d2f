// plugin_partition_slice: tiles sliced along the partition dimension (NKI's `t[32:64, :]`), in three ways NKI
// kernels use them. x and y are [R, C]; every full block of 128 rows is loaded whole, and
//  - its four quadrants of 32 partitions are copied one quadrant down, the last to the first (x's rows 32 q to
//    32 q + 31 become y's rows 32 ((q + 1) % 4) to ...), each copy between two 32-partition slices, which a
//    NeuronCore engine does across quadrants;
//  - the upper half (64 partitions) of the result is doubled and the lower half has 1 added, each half stored by a
//    DMA of its own from a 64-partition slice;
//  - the last R % 128 rows (a ragged block) are loaded into the first partitions of a full-size tile and stored
//    from them tripled.
// Run, deployed and compiled for both families (tests/compiler.cmake, tests/backends.cmake).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kPartitions = 128, kQuadrant = 32, kHalf = 64;

/// The value y holds at row r (within a full block: r % 128) for x's row-block value v, and at a ragged row.
double blockValue(int64_t rowInBlock, double v) { return rowInBlock < kHalf ? 2 * v : v + 1; }

const Registration registration{{
    .name = "plugin_partition_slice",
    .summary = "tiles sliced along the partition dimension: quadrant copies, half stores, a ragged last block",
    .params = {{"R", 320}, {"C", 512}},
    .signature =
        [](const Params &p) {
          require(p["R"] > 0 && p["C"] > 0, "plugin_partition_slice: R and C must be positive");
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](Hbm x, Hbm y) {
      const int64_t rows = x.dim(0), columns = x.dim(1), full = rows / kPartitions, rest = rows % kPartitions;
      if (full > 0)
        for (auto i : affine_range(full)) {
          Tile xt = load(x.tile(i, 0, {kPartitions, columns}));
          Tile rotated = ndarray<f32>({kPartitions, columns});
          for (int64_t q = 0; q < kPartitions / kQuadrant; ++q)
            assign(rotated.partition_slice((q + 1) % 4 * kQuadrant, kQuadrant), xt.partition_slice(q * kQuadrant, kQuadrant));
          store(y.window(i * kPartitions, 0, {kHalf, columns}), rotated.partition_slice(0, kHalf) * 2.0f);
          store(y.window(i * kPartitions + kHalf, 0, {kHalf, columns}), rotated.partition_slice(kHalf, kHalf) + 1.0f);
        }
      if (rest > 0) {
        Tile last = ndarray<f32>({kPartitions, columns});
        load(last.partition_slice(0, rest), x.window(full * kPartitions, 0, {rest, columns}));
        store(y.window(full * kPartitions, 0, {rest, columns}), last.partition_slice(0, rest) * 3.0f);
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t rows = p["R"], columns = p["C"], full = rows / kPartitions * kPartitions;
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t inBlock = r % kPartitions;
            // y's row r of a full block came from x's row one quadrant up (the first quadrant's from the last).
            const int64_t from = r < full ? r - inBlock + (inBlock + kPartitions - kQuadrant) % kPartitions : r;
            for (int64_t c = 0; c < columns; ++c) {
              const double v = in[0][from * columns + c];
              out[0][r * columns + c] = static_cast<float>(r < full ? blockValue(inBlock, v) : 3 * v);
            }
          }
        },
}};

} // namespace
