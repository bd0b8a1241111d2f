// plugin_access_pattern: tiles read and written through hardware access patterns (Tile::ap, NKI's NkiTensor.ap). Each
// row of x [P, F1 * F2] is a row-major [F1, F2] matrix:
//   t  = the rows' [F2, F1] transposes: a copy into out.ap({{F, P}, {1, F1}, {F1, F2}}) (the Transpose2D tutorial)
//   e  = every other element of a row, twice: copies of x.ap({{F, P}, {2, F / 2}}, i) for i = 0, 1 (a loop offset)
//   m  = each matrix row's maximum: tsr::max(x.ap({{F, P}, {F2, F1}, {1, F2}}), {2}), one group per matrix row
//   s  = each row's sum walked column by column: tsr::sum(x.ap({{F, P}, {1, F2}, {F2, F1}}), {1, 2})
//   h  = t's rows 32 to 63, both sides patterns of the same counts: x.ap({{F, 32}, {F2, F1}, {1, F2}}, 32 * F) (a
//        contiguous walk from partition 32: a pattern's offset picks the partition) into a [32, F] tile's transpose
// Run on trn1, trn2 and trn3 and checked on the NKI model, and on tpu-v5e (a relayout of each row there) through
// Pallas interpret mode and the real TPU compiler (tests/compiler.cmake, tests/backends.cmake); so are
// plugin_access_pattern_elementwise, whose elementwise ops read them, and plugin_access_pattern_columns; and
// plugin_access_pattern_isa, whose tsr::isa calls take access patterns as operands, on the NeuronCores.

#include "tessera/dsl/tsr.h"

#include <algorithm>
#include <cmath>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "plugin_access_pattern",
    .summary = "copies and reductions through access patterns (Tile::ap): a per-row transpose, a strided gather, "
               "grouped maxima and sums (a test plugin's kernel)",
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
      Tile both = ndarray<f32>({32, F});
      assign(both.ap({{F, 32}, {1, F1}, {F1, F2}}), in.ap({{F, 32}, {F2, F1}, {1, F2}}, 32 * F));
      store(h.tile(0, 0, {32, F}), both);
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
            for (int64_t f = 0; f < F; ++f) out[4][r * F + f] = out[0][(32 + r) * F + f];
        },
}};

} // namespace

namespace {

using namespace tsr;

// plugin_access_pattern_isa: tsr::isa calls with access-pattern operands, as nki.isa calls take .ap() (no golden
// model: it has no tsr::isa instructions; the reference checks):
//   y = (each row's [F1, F2] matrix, read transposed) + b, one tensor_tensor reading x.ap({{F, P}, {1, F1}, {F1, F2}})
//   z = exp(x) written into z's row transposed, one activation writing z.ap({{F, P}, {1, F1}, {F1, F2}})
const Registration isaRegistration{{
    .name = "plugin_access_pattern_isa",
    .summary = "tsr::isa calls reading and writing access patterns (a test plugin's kernel, NeuronCore only)",
    .params = {{"P", 64}, {"F1", 8}, {"F2", 12}},
    .signature =
        [](const Params &p) {
          const int64_t P = p["P"], F = p["F1"] * p["F2"];
          return std::vector<TensorSpec>{input("x", {P, F}, f32), input("b", {P, F}, f32), output("y", {P, F}, f32),
                                         output("z", {P, F}, f32)};
        },
    .body = body([](const Params &p, Hbm x, Hbm b, Hbm y, Hbm z) {
      const int64_t P = p["P"], F1 = p["F1"], F2 = p["F2"], F = F1 * F2;
      Tile in = load(x.tile(0, 0, {P, F}));
      Tile sum = ndarray<f32>({P, F});
      isa::tensor_tensor(sum, in.ap({{F, P}, {1, F1}, {F1, F2}}), load(b.tile(0, 0, {P, F})), op::add);
      store(y.tile(0, 0, {P, F}), sum);
      Tile e = ndarray<f32>({P, F});
      isa::activation(e.ap({{F, P}, {1, F1}, {F1, F2}}), act::exp, in, 0.0f);
      store(z.tile(0, 0, {P, F}), e);
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t P = p["P"], F1 = p["F1"], F2 = p["F2"], F = F1 * F2;
          for (int64_t r = 0; r < P; ++r)
            for (int64_t i = 0; i < F1; ++i)
              for (int64_t j = 0; j < F2; ++j) {
                // the walk (i, j): x[r, i + j F1] + b[r, i F2 + j]; e: z[r, i + j F1] = exp(x[r, i F2 + j])
                out[0][r * F + i * F2 + j] = in[0][r * F + i + j * F1] + in[1][r * F + i * F2 + j];
                out[1][r * F + i + j * F1] = std::exp(in[0][r * F + i * F2 + j]);
              }
        },
}};

} // namespace

namespace {

using namespace tsr;

// plugin_access_pattern_elementwise: the language-level elementwise ops reading access patterns, as NKI's nl.add,
// nl.exp, nl.multiply take `.ap()` operands (one engine instruction walking the pattern; checked by the golden model):
//   y = (each row's [F1, F2] matrix, read transposed) + b:      x.ap({{F, P}, {1, F1}, {F1, F2}}) + b
//   z = exp(every other element of a row, from a loop offset)  exp(x.ap({{F, P}, {2, F / 2}}, i)) into z's halves
//   w = (2 * (row transposed) + (row transposed)) * (row transposed), in place: w = x.ap(T) * 2.0f; w += x.ap(T);
//       w *= x.ap(T)
//   v = both operands patterns of different walks:              maximum(x.ap(T), x.ap(column-major sum order))
const Registration elementwiseRegistration{{
    .name = "plugin_access_pattern_elementwise",
    .summary = "elementwise ops (+, *, exp, maximum, +=) reading access patterns (a test plugin's kernel)",
    .params = {{"P", 64}, {"F1", 8}, {"F2", 12}},
    .signature =
        [](const Params &p) {
          const int64_t P = p["P"], F = p["F1"] * p["F2"];
          return std::vector<TensorSpec>{input("x", {P, F}, f32),  input("b", {P, F}, f32),
                                         output("y", {P, F}, f32), output("z", {P, F}, f32),
                                         output("w", {P, F}, f32), output("v", {P, F}, f32)};
        },
    .body = body([](const Params &p, Hbm x, Hbm b, Hbm y, Hbm z, Hbm w, Hbm v) {
      const int64_t P = p["P"], F1 = p["F1"], F2 = p["F2"], F = F1 * F2;
      Tile in = load(x.tile(0, 0, {P, F}));
      const std::vector<std::array<int64_t, 2>> transposed{{F, P}, {1, F1}, {F1, F2}};
      store(y.tile(0, 0, {P, F}), in.ap(transposed) + load(b.tile(0, 0, {P, F})));
      Tile halves = ndarray<f32>({P, F});
      for (auto i : affine_range(2)) assign(halves.slice(i * (F / 2), F / 2), exp(in.ap({{F, P}, {2, F / 2}}, i)));
      store(z.tile(0, 0, {P, F}), halves);
      Tile twice = in.ap(transposed) * 2.0f;
      twice += in.ap(transposed);
      twice *= in.ap(transposed);
      store(w.tile(0, 0, {P, F}), twice);
      store(v.tile(0, 0, {P, F}), maximum(in.ap(transposed), in.ap({{F, P}, {1, F2}, {F2, F1}})));
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t P = p["P"], F1 = p["F1"], F2 = p["F2"], F = F1 * F2;
          const HostTensor &x = in[0];
          for (int64_t r = 0; r < P; ++r) {
            for (int64_t i = 0; i < F1; ++i)
              for (int64_t j = 0; j < F2; ++j) {
                // element (i, j) of the transposed walk reads x[r, i + j F1], the column-major one x[r, i F2 + j]
                // at its own (j, i): flat position i F2 + j of the first, j F1 + i of the second
                const float t = x[r * F + i + j * F1];
                out[0][r * F + i * F2 + j] = t + in[1][r * F + i * F2 + j];
                out[2][r * F + i * F2 + j] = (t * 2.0f + t) * t;
              }

            for (int64_t k = 0; k < F; ++k) {
              const int64_t a = k / F2, c = k % F2;  // transposed walk: (a, c) -> x[a + c F1]
              const int64_t d = k / F1, e = k % F1;  // column-major walk: (d, e) -> x[d + e F2]
              out[3][r * F + k] = std::max(x[r * F + a + c * F1], x[r * F + d + e * F2]);
            }
            for (int64_t k = 0; k < F / 2; ++k) {
              out[1][r * F + k] = std::exp(x[r * F + 2 * k]);
              out[1][r * F + F / 2 + k] = std::exp(x[r * F + 2 * k + 1]);
            }
          }
        },
}};

} // namespace

namespace {

using namespace tsr;

// plugin_access_pattern_columns: access patterns beside [P, 1] columns, and one over the tile an op writes:
//   u = (row transposed) + each row's sum s, a [P, 1] column: x.ap(T) + sum(x) (tensor_scalar with a vector)
//   q = (row transposed) * s + s:                             activation(copy, x.ap(T), {.bias = s, .scale = s})
//   r = x with r[k] += x[2k + 1] for k < F / 2, in place:      r.slice(0, F / 2) += r.ap(odd elements); the walk
//       reads each element it shares with the destination before writing it (step (k - 1) / 2 reads what step k
//       writes), so a NeuronCore accepts it
const Registration columnsRegistration{{
    .name = "plugin_access_pattern_columns",
    .summary = "access patterns with [P, 1] operands, and read in place before they are written (a test plugin's "
               "kernel)",
    .params = {{"P", 64}, {"F1", 8}, {"F2", 12}},
    .signature =
        [](const Params &p) {
          const int64_t P = p["P"], F = p["F1"] * p["F2"];
          return std::vector<TensorSpec>{input("x", {P, F}, f32), output("u", {P, F}, f32),
                                         output("q", {P, F}, f32), output("r", {P, F}, f32)};
        },
    .body = body([](const Params &p, Hbm x, Hbm u, Hbm q, Hbm r) {
      const int64_t P = p["P"], F1 = p["F1"], F2 = p["F2"], F = F1 * F2;
      Tile in = load(x.tile(0, 0, {P, F}));
      const std::vector<std::array<int64_t, 2>> transposed{{F, P}, {1, F1}, {F1, F2}};
      Tile rowSum = sum(in);
      store(u.tile(0, 0, {P, F}), in.ap(transposed) + rowSum);
      store(q.tile(0, 0, {P, F}), activation(act::copy, in.ap(transposed), {.bias = rowSum, .scale = rowSum}));
      Tile own = copy(in, f32);
      Tile firstHalf = own.slice(0, F / 2);
      firstHalf += own.ap({{F, P}, {2, F / 2}}, 1);
      store(r.tile(0, 0, {P, F}), own);
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t P = p["P"], F1 = p["F1"], F2 = p["F2"], F = F1 * F2;
          const HostTensor &x = in[0];
          for (int64_t r = 0; r < P; ++r) {
            double rowSum = 0;
            for (int64_t k = 0; k < F; ++k) rowSum += x[r * F + k];
            const float s = static_cast<float>(rowSum);
            for (int64_t k = 0; k < F; ++k) {
              const float t = x[r * F + (k / F2) + (k % F2) * F1]; // the transposed walk's element k
              out[0][r * F + k] = t + s;
              out[1][r * F + k] = t * s + s;
              out[2][r * F + k] = k < F / 2 ? x[r * F + k] + x[r * F + 2 * k + 1] : x[r * F + k];
            }
          }
        },
}};

// plugin_access_pattern_mxu: an f16 tile written through an access pattern (each row's [8, 16] matrix transposed),
// then a matmul's stationary operand. A TPU's MXU does not take f16: the matmul reads an f32 copy refreshed after
// every write to the tile, which must see the pattern's write in the row's order (it once copied the walk).
const Registration mxuAfterPattern{{
    .name = "plugin_access_pattern_mxu",
    .summary = "an f16 tile written through an access pattern, then a matmul operand (a test plugin's kernel)",
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("x", {128, 128}, f16), input("m", {128, 128}, f16),
                                     output("y", {128, 128}, f32)};
    },
    .body = body([](Hbm x, Hbm m, Hbm y) {
      Tile in = load(x.tile(0, 0, {128, 128}));
      Tile w = ndarray<f16>({128, 128});
      assign(w.ap({{128, 128}, {1, 8}, {8, 16}}), in);
      Tile product = matmul(w, load(m.tile(0, 0, {128, 128})));
      store(y.tile(0, 0, {128, 128}), copy(product, f32));
    }),
    .reference =
        [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          std::vector<double> w(128 * 128);
          for (int64_t r = 0; r < 128; ++r)
            for (int64_t i = 0; i < 8; ++i)
              for (int64_t j = 0; j < 16; ++j) w[r * 128 + i + 8 * j] = in[0][r * 128 + 16 * i + j];
          for (int64_t a = 0; a < 128; ++a)
            for (int64_t b = 0; b < 128; ++b) {
              double sum = 0;
              for (int64_t k = 0; k < 128; ++k) sum += w[k * 128 + a] * in[1][k * 128 + b];
              out[0][a * 128 + b] = static_cast<float>(sum);
            }
        },
}};

// plugin_access_pattern_grid: a loop that loads (a grid candidate for Pallas) and reads every other element of a tile
// loaded before it from the loop's offset i: the relayout's index moves with i, so the loop must stay a Python loop
// in Pallas (a grid dimension's index is traced; it once was one, and the emitter refused the kernel).
const Registration patternInGridLoop{{
    .name = "plugin_access_pattern_grid",
    .summary = "an access pattern whose offset moves with a loop that loads (a test plugin's kernel)",
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("x", {64, 256}, f32), input("b", {64, 256}, f32),
                                     output("y", {64, 256}, f32)};
    },
    .body = body([](Hbm x, Hbm b, Hbm y) {
      Tile in = load(x.tile(0, 0, {64, 256}));
      for (auto i : affine_range(2))
        store(y.tile(0, i, {64, 128}), in.ap({{256, 64}, {2, 128}}, i) + load(b.tile(0, i, {64, 128})));
    }),
    .reference =
        [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (int64_t r = 0; r < 64; ++r)
            for (int64_t i = 0; i < 2; ++i)
              for (int64_t k = 0; k < 128; ++k)
                out[0][r * 256 + i * 128 + k] = in[0][r * 256 + 2 * k + i] + in[1][r * 256 + i * 128 + k];
        },
}};

} // namespace
