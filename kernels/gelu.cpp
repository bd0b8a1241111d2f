// gelu: Y = gelu(X) elementwise, FP32, rows on partitions. Kernel parameter form: 1 = the exact form,
// x/2 (1 + erf(x / sqrt 2)) (NKI's nl.gelu, PyTorch's approximate='none'), 2 = the tanh approximation,
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (nl.gelu_apprx_tanh, approximate='tanh'). A loop step is a block
// of up to 128 rows by up to 4096 columns, moved in chunks of 512 columns (Rows.h: eight DMAs each way side by
// side), one activation per chunk. R need not be a multiple of 128, nor C of 4096 or 512: the last rows, the
// last columns and the last chunk are smaller blocks. At R=1024, C=4096 on trn2 this takes 276 us, against
// 618 us with one 512-column chunk per step and 341 us with one 2048-column chunk (add's choice): a queue
// carries one DMA at a time, on a sixteenth of the bandwidth, and a step's tiles rotate through four copies.

#include "Rows.h"

#include <cmath>
#include <numbers>

namespace {

using namespace tsr;
using tessera::kernels::forEachBlock;
using tessera::kernels::loadChunks;
using tessera::kernels::storeChunks;

constexpr int64_t kErfForm = 1, kTanhForm = 2;
/// Columns of one loop step: 8 chunks of 512, 16 KiB per partition in and out, 8 transfers each way in flight.
constexpr int64_t kGroupColumns = 8 * tessera::kernels::kChunkColumns;

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
      const bool tanhForm = p["form"] == kTanhForm;
      forEachBlock(x.dim(0), tile_size::pmax, [&](const Index &row, int64_t rows) {
        forEachBlock(x.dim(1), kGroupColumns, [&](const Index &col, int64_t cols) {
          std::vector<Tile> out;
          for (const Tile &t : loadChunks(x, row, col, rows, cols))
            out.push_back(tanhForm ? gelu_apprx_tanh(t) : gelu(t));
          storeChunks(y, row, col, out);
        });
      });
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = static_cast<float>(geluOf(in[0][i], p["form"]));
        },
}};

} // namespace
