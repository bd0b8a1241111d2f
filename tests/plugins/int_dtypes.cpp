// plugin_int_dtypes: the narrow integer dtypes of a quantized kernel (NKI nl.int8, nl.int16, nl.uint16), loaded,
// converted, computed with and stored. Weights w_q i8 [K, N] are dequantized by a per-row scale s f32 [K, 1] into
// bf16, multiplied by x_t bf16 [K, M], and a bias b u16 [M, N] is added:
//   y[m, n] = sum_k x_t[k, m] * bf16(w_q[k, n] * s[k]) + b[m, n]
// An integer output is exact whatever the summation order, and tests the conversion rule's saturation and the
// rounding of a fill: sat[k, n] = w_q[k, n] * -40000 + i8(-2.7) as i16, the fill rounding to -3 (truncation
// would give -2), w_q = 1 saturating to -32768, w_q = -1 to 32767. Run, deployed and
// compiled for both families (tests/compiler.cmake, tests/backends.cmake). With quantized_matmul=1 the kernel
// multiplies by w_q itself (y = x_t^T w_q + b): a NeuronCore refuses it (nc_matmul takes float types;
// compiler/test/Backends/int-dtypes.test), a TPU makes f32 copies of the operands.

#include "tessera/dsl/tsr.h"
#include "tessera/isa/NumberFormats.h"

#include <algorithm>
#include <cmath>

namespace {

using namespace tsr;
using tessera::isa::roundTo;

constexpr int64_t kPartitions = 128;

/// `v` converted to an integer type of range [lo, hi] as the engines convert (rounded to nearest, saturated).
float saturate(float v, float lo, float hi) { return std::clamp(std::nearbyint(v), lo, hi); }

const Registration registration{{
    .name = "plugin_int_dtypes",
    .summary = "int8 weights dequantized into a bf16 matmul with a uint16 bias, and a saturated int16 output (a test "
               "plugin's kernel)",
    .params = {{"M", 128}, {"N", 512}},
    .kernelParams = {{"quantized_matmul", 0}},
    .signature =
        [](const Params &p) {
          require(p["M"] <= kPartitions && p["N"] <= 512, "plugin_int_dtypes: M must be at most 128 and N 512");
          const int64_t m = p["M"], n = p["N"];
          return std::vector<TensorSpec>{input("x_t", {kPartitions, m}, bf16), input("w_q", {kPartitions, n}, i8),
                                         input("s", {kPartitions, 1}, f32),    input("b", {m, n}, u16),
                                         output("y", {m, n}, f32),             output("sat", {kPartitions, n}, i16)};
        },
    .body = body([](const Params &p, Hbm x_t, Hbm w_q, Hbm s, Hbm b, Hbm y, Hbm sat) {
      const int64_t m = x_t.dim(1), n = w_q.dim(1);
      Tile x = load(x_t.tile(0, 0, {kPartitions, m}));
      Tile q = load(w_q.tile(0, 0, {kPartitions, n}));
      Tile scale = load(s.tile(0, 0, {kPartitions, 1}));
      Tile wide = copy<f32>(q); // integer operands compute in FP32; the first operand's dtype is the result's
      Tile w = copy<bf16>(wide * scale);
      Tile bias = load(b.tile(0, 0, {m, n}));
      Tile product = p["quantized_matmul"] ? matmul(x, q) : matmul(x, w);
      store(y.tile(0, 0, {m, n}), product + bias);
      Tile offset = full(i8, {kPartitions, n}, -2.7f); // a memset on a NeuronCore, rounded into the tile's dtype
      store(sat.tile(0, 0, {kPartitions, n}), copy<i16>(wide * -40000 + offset));
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t m = p["M"], n = p["N"];
          std::vector<float> w(static_cast<size_t>(kPartitions * n));
          for (int64_t k = 0; k < kPartitions; ++k)
            for (int64_t j = 0; j < n; ++j) {
              const float q = in[1][k * n + j];
              w[k * n + j] = p["quantized_matmul"] ? q : roundTo(bf16, q * in[2][k]);
              out[1][k * n + j] = saturate(q * -40000.0f - 3.0f, -32768, 32767);
            }
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double sum = 0;
              for (int64_t k = 0; k < kPartitions; ++k) sum += double(in[0][k * m + i]) * w[k * n + j];
              out[0][i * n + j] = static_cast<float>(sum) + in[3][i * n + j];
            }
        },
}};

} // namespace
