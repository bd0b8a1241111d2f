// plugin_fp16: FP16 in and out, FP16 arithmetic on every unit a kernel reaches: elementwise ops, an activation with
// a bias and row sums, a division by a row's value, a matmul with FP16 operands. On a NeuronCore every engine takes
// FP16; on a TPU FP16 is storage only and the compiler converts around each op
// (compiler/lib/Targets/Tpu/LegalizeForTpu.cpp), so this kernel runs, deploys and compiles for both
// (tests/compiler.cmake, tests/backends.cmake). Per block of 256 columns:
//   h = x * x - x;  e = exp(h / 2 + 1/2), s = the row sums of e (FP32);  y = w^T @ (e / s)
// x [128, C] (C a multiple of 256), w [128, 128]; y [128, C].

#include "tessera/dsl/tsr.h"
#include "tessera/isa/NumberFormats.h"

#include <cmath>

namespace {

using namespace tsr;

constexpr int64_t kRows = 128, kBlock = 256;

const Registration registration{{
    .name = "plugin_fp16",
    .summary = "FP16 elementwise, activation with bias and row sums, and matmul (a test plugin's kernel)",
    .params = {{"C", 512}},
    .signature =
        [](const Params &p) {
          require(p["C"] > 0 && p["C"] % kBlock == 0, "plugin_fp16: C must be a positive multiple of 256");
          return std::vector<TensorSpec>{input("x", {kRows, p["C"]}, f16), input("w", {kRows, kRows}, f16),
                                         output("y", {kRows, p["C"]}, f16)};
        },
    .body = body([](Hbm x, Hbm w, Hbm y) {
      Tile wt = load(w.tile(0, 0, {kRows, kRows}));
      Tile half = full(f16, {kRows, 1}, 0.5f);
      for (auto j : affine_range(x.dim(1) / kBlock)) {
        Tile xt = load(x.tile(0, j, {kRows, kBlock}));
        Tile h = xt * xt - xt;
        Tile sums = ndarray(f32, {kRows, 1});
        Tile e = activation(act::exp, h, {.bias = half, .scale = 0.5f, .sum = sums});
        Tile p = matmul(wt, e / sums);
        store(y.tile(0, j, {kRows, kBlock}), copy<f16>(p));
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t C = p["C"];
          const float *x = in[0].data(), *w = in[1].data();
          // Each op's result rounded to its tile's dtype as the kernel stores it: h, e and e / s are FP16 tiles;
          // the row sums are of e before its rounding.
          auto f16 = [](double v) { return double(tessera::isa::roundTo(tessera::isa::DType::F16, float(v))); };
          std::vector<double> e(kRows * C), sums(kRows * C / kBlock, 0.0);
          for (int64_t r = 0; r < kRows; ++r)
            for (int64_t c = 0; c < C; ++c) {
              const double v = x[r * C + c], h = f16(f16(v * v) - v), exact = std::exp(h * 0.5 + 0.5);
              sums[r * (C / kBlock) + c / kBlock] += exact;
              e[r * C + c] = f16(exact);
            }
          for (int64_t r = 0; r < kRows; ++r)
            for (int64_t c = 0; c < C; ++c) e[r * C + c] = f16(e[r * C + c] / sums[r * (C / kBlock) + c / kBlock]);
          for (int64_t m = 0; m < kRows; ++m)
            for (int64_t n = 0; n < C; ++n) {
              double acc = 0;
              for (int64_t k = 0; k < kRows; ++k) acc += double(w[k * kRows + m]) * e[k * C + n];
              out[0][m * C + n] = static_cast<float>(acc);
            }
        },
}};

} // namespace
