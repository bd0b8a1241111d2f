// my_swiglu: y = silu(a) * b elementwise, the gate of a SwiGLU MLP; FP32 [T, F], T a multiple of 128.
// Rows go to partitions, 128 at a time, in chunks of up to 512 columns: silu on the scalar engine, the product on
// the vector engine.

#include "references.h"

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

/// The widest chunk of at most 512 columns that divides `cols` (a multiple of 128).
int64_t chunkOf(int64_t cols) {
  for (int64_t c : {512, 384, 256, 128})
    if (cols % c == 0) return c;
  return cols;
}

const Registration registration{{
    .name = "my_swiglu",
    .summary = "y = silu(a) * b elementwise, FP32 (examples/out-of-tree)",
    .params = {{"T", 256}, {"F", 1024}},
    .signature =
        [](const Params &p) {
          require(p["T"] % tile_size::pmax == 0, "my_swiglu: T must be a multiple of 128");
          require(p["F"] % 128 == 0, "my_swiglu: F must be a multiple of 128");
          return std::vector<TensorSpec>{input("a", {p["T"], p["F"]}, f32), input("b", {p["T"], p["F"]}, f32),
                                         output("y", {p["T"], p["F"]}, f32)};
        },
    .body = body([](Hbm a, Hbm b, Hbm y) {
      const int64_t rows = tile_size::pmax, cols = chunkOf(a.dim(1));
      for (auto i : affine_range(a.dim(0) / rows))
        for (auto j : affine_range(a.dim(1) / cols)) {
          Tile gate = load(a.tile(i, j, {rows, cols}));
          Tile up = load(b.tile(i, j, {rows, cols}));
          store(y.tile(i, j, {rows, cols}), silu(gate) * up);
        }
    }),
    .reference = my_kernels::swigluReference,
}};

} // namespace
