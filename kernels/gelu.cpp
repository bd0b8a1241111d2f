// gelu: Y = gelu(X) elementwise, FP32, rows on partitions. Kernel parameter form: 1 = the exact form,
// x/2 (1 + erf(x / sqrt 2)) (NKI's nl.gelu, PyTorch's approximate='none'), 2 = the tanh approximation,
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (nl.gelu_apprx_tanh, approximate='tanh'). Each block of up to
// 128 rows is cut into column chunks of up to 2048 (as add's); each chunk is one load, one activation, one
// store. R need not be a multiple of 128 (the last R % 128 rows are a smaller block), nor C of 128 (then a row
// is one chunk).

#include "Rows.h"

#include <cmath>
#include <numbers>

namespace {

using namespace tsr;
using tessera::kernels::columnChunk;
using tessera::kernels::forEachRowBlock;

constexpr int64_t kErfForm = 1, kTanhForm = 2;

double geluOf(double x, int64_t form) {
  if (form == kTanhForm)
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
}

const Registration registration{{
    .name = "gelu",
    .summary = "Y = gelu(X) elementwise, FP32; form=1 exact (erf), form=2 tanh approximation",
    .params = {{"R", 256}, {"C", 1024}},
    .kernelParams = {{"form", kErfForm}},
    .signature =
        [](const Params &p) {
          require(p["form"] == kErfForm || p["form"] == kTanhForm,
                  "gelu: form must be 1 (exact, erf) or 2 (tanh approximation)");
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](const Params &p, Hbm x, Hbm y) {
      const int64_t cols = columnChunk(x.dim(1));
      const bool tanhForm = p["form"] == kTanhForm;
      forEachRowBlock(x.dim(0), [&](const Index &row, int64_t rows) {
        for (auto j : affine_range(x.dim(1) / cols)) {
          Tile t = load(x.window(row, j * cols, {rows, cols}));
          store(y.window(row, j * cols, {rows, cols}), tanhForm ? gelu_apprx_tanh(t) : gelu(t));
        }
      });
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = static_cast<float>(geluOf(in[0][i], p["form"]));
        },
}};

} // namespace
