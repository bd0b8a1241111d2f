// plugin_access_pattern: tiles read and written through hardware access patterns (Tile::ap, NKI's NkiTensor.ap),
// NeuronCore only. Each row of x [P, F1 * F2] is a row-major [F1, F2] matrix:
//   t  = the rows' [F2, F1] transposes: a copy into out.ap({{F, P}, {1, F1}, {F1, F2}}) (the Transpose2D tutorial)
//   e  = every other element of a row, twice: copies of x.ap({{F, P}, {2, F / 2}}, i) for i = 0, 1 (a loop offset)
//   m  = each matrix row's maximum: tsr::max(x.ap({{F, P}, {F2, F1}, {1, F2}}), {2}), one group per matrix row
//   s  = each row's sum walked column by column: tsr::sum(x.ap({{F, P}, {1, F2}, {F2, F1}}), {1, 2})
//   h  = partitions 32 to 63: a copy of x.ap({{F, 32}, {1, F}}, 32 * F) (a pattern's offset picks the partition)
// Run on trn1 and trn2 and checked on the NKI model (tests/compiler.cmake, tests/backends.cmake).

#include "tessera/dsl/tsr.h"

#include <algorithm>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "plugin_access_pattern",
    .summary = "copies and reductions through access patterns (Tile::ap): a per-row transpose, a strided gather, "
               "grouped maxima and sums (a test plugin's kernel, NeuronCore only)",
    .params = {{"P", 64}, {"F1", 8}, {"F2", 12}},
    .signature =
        [](const Params &p) {
          const int64_t P = p["P"], F = p["F1"] * p["F2"];
          return std::vector<TensorSpec>{input("x", {P, F}, f32),         output("t", {P, F}, f32),
                                         output("e", {P, F}, f32),        output("m", {P, p["F1"]}, f32),
                                         output("s", {P, 1}, f32),        output("h", {32, F}, f32)};
        },
    .body = body([](const Params &p, Hbm x, Hbm t, Hbm e, Hbm m, Hbm s, Hbm h) {
      const int64_t P = p["P"], F1 = p["F1"], F2 = p["F2"], F = F1 * F2;
      Tile in = load(x.tile(0, 0, {P, F}));
      Tile transposed = ndarray<f32>({P, F});
      assign(transposed.ap({{F, P}, {1, F1}, {F1, F2}}), in);
      store(t.tile(0, 0, {P, F}), transposed);
      Tile even = ndarray<f32>({P, F});
      for (auto i : affine_range(2)) assign(even.slice(i * (F / 2), F / 2), in.ap({{F, P}, {2, F / 2}}, i));
      store(e.tile(0, 0, {P, F}), even);
      store(m.tile(0, 0, {P, F1}), max(in.ap({{F, P}, {F2, F1}, {1, F2}}), {2}));
      store(s.tile(0, 0, {P, 1}), sum(in.ap({{F, P}, {1, F2}, {F2, F1}}), {1, 2}));
      store(h.tile(0, 0, {32, F}), copy(in.ap({{F, 32}, {1, F}}, 32 * F), f32));
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t P = p["P"], F1 = p["F1"], F2 = p["F2"], F = F1 * F2;
          const HostTensor &x = in[0];
          for (int64_t r = 0; r < P; ++r) {
            double total = 0;
            for (int64_t i = 0; i < F1; ++i) {
              float rowMax = x[r * F + i * F2];
              for (int64_t j = 0; j < F2; ++j) {
                const float v = x[r * F + i * F2 + j];
                out[0][r * F + j * F1 + i] = v;
                rowMax = std::max(rowMax, v);
                total += v;
              }
              out[2][r * F1 + i] = rowMax;
            }
            for (int64_t k = 0; k < F / 2; ++k) {
              out[1][r * F + k] = x[r * F + 2 * k];
              out[1][r * F + F / 2 + k] = x[r * F + 2 * k + 1];
            }
            out[3][r] = static_cast<float>(total);
          }
          for (int64_t r = 0; r < 32; ++r)
            for (int64_t f = 0; f < F; ++f) out[4][r * F + f] = x[(32 + r) * F + f];
        },
}};

} // namespace
