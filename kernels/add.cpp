// add: C = A + B, elementwise, FP32, any [M, N] with M a multiple of 128 and N a multiple of 128.
// Rows go to partitions, 128 at a time; each row block is cut into free-dimension chunks of up to 2048
// elements (8 KiB per partition, enough for full-speed DMA per NKI's >= 4 KiB advice: docs/memory.md "DMA").

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

/// The widest chunk of at most 2048 columns that divides n (n a multiple of 128).
int64_t chunkOf(int64_t n) {
  for (int64_t c : {2048, 1024, 512, 256, 128})
    if (n % c == 0) return std::min(c, n);
  return n;
}

const Registration registration{{
    .name = "add",
    .summary = "C = A + B elementwise, FP32",
    .params = {{"M", 256}, {"N", 1024}},
    .signature =
        [](const Params &p) {
          require(p["M"] % tile_size::pmax == 0, "add: M must be a multiple of 128");
          require(p["N"] % 128 == 0, "add: N must be a multiple of 128");
          return std::vector<TensorSpec>{input("a", {p["M"], p["N"]}, f32), input("b", {p["M"], p["N"]}, f32),
                                         output("c", {p["M"], p["N"]}, f32)};
        },
    .body = body([](Hbm a, Hbm b, Hbm c) {
      const int64_t rows = tile_size::pmax, cols = chunkOf(a.dim(1));
      for (auto i : affine_range(a.dim(0) / rows))
        for (auto j : affine_range(a.dim(1) / cols)) {
          Tile x = load(a.tile(i, j, {rows, cols}));
          Tile y = load(b.tile(i, j, {rows, cols}));
          store(c.tile(i, j, {rows, cols}), x + y);
        }
    }),
    .reference =
        [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = in[0][i] + in[1][i];
        },
}};

} // namespace
