// mlp: the gated MLP of Llama-style transformers, Y = (act(X @ W_gate) * (X @ W_up)) @ W_down, fused: the
// [T, F] hidden activations never leave SBUF. Kernel parameter act: 1 = SiLU (SwiGLU, Llama), 2 = exact GELU
// (GeGLU, Gemma). bf16 in and out, FP32 accumulation. T tokens, model dimension D,
// hidden dimension F; X is given transposed, x_t[D, T], as the matmul kernels take a_t.
//
// Blocked like matmul_blocked, with kernel parameters bt (tokens, at most 512), bf (hidden units) and bd (model
// columns of W_down), in elements, each capped at its dimension. Per block of bt tokens, x_t's [128, bt] tiles
// are loaded once, and the block's [bt, D] output accumulates in an FP32 SBUF tile over the F / bf steps of a
// loop that streams the weights, each step:
//  1. Gate and up projections of bf hidden units, computed transposed: matmul(stationary = a [128 (D), 128 (F)]
//     slice of a weight block, moving = x_t's [128 (D), bt] tile) gives [128 (F), bt] = (X @ W)^T in PSUM, so
//     the hidden units land on partitions: what the down projection contracts over. No transpose anywhere.
//     g^T = act(gate) * up, rounded to bf16 (the down projection's operand), into one [128, bf/128 x bt] tile.
//  2. Down projection of those bf hidden units: each [128 tokens, <= 512 (D)] partial product accumulates
//     bf/128 matmuls (g^T's slices stationary, W_down's rows moving) in a PSUM bank, then adds into the SBUF
//     accumulator; W_down is loaded bd columns at a time.
// Every weight crosses HBM once per token block: 3 D F bf16 values for 6 bt D F FLOPs, bt FLOP per byte (512 at
// the default), above every target's BF16 ridge point. The loop's tiles rotate, so step i+1's weights load
// while step i computes, as long as two copies fit: SBUF per partition per copy is x_t's block D/128 x bt x 2
// bytes, the accumulator bt/128 x D x 4, gate and up weights 2 x D/128 x bf x 2, g^T bf/128 x bt x 2 and down
// weights bf/128 x bd x 2 (at D=2048 and the defaults: 16 + 32 + 32 + 4 + 8 KiB; at D=4096 one copy is all that
// fits, and the steps no longer overlap: 50% of trn2's peak at T=2048, D=4096, F=8192 against 89% at
// T=2048, D=2048, F=4096).

#include "DenseReference.h"
#include "Matmul.h"

#include "tessera/isa/NumberFormats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace {

using namespace tsr;
using tessera::isa::roundTo;
using tessera::kernels::matmulBlock;
using tessera::kernels::denseRows;
using tessera::kernels::gemm;

constexpr const char *kName = "mlp";
constexpr int64_t kSilu = 1, kGelu = 2; // kernel parameter act

/// The gate's activation, in double, as the reference applies it.
double activation(double x, int64_t act) {
  return act == kGelu ? 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))) : x / (1.0 + std::exp(-x));
}

const Registration registration{{
    .name = kName,
    .summary = "fused gated MLP (act(X @ W_gate) * (X @ W_up)) @ W_down, X given as x_t[D, T], bf16, FP32 "
               "accumulation; act=1 SiLU (SwiGLU), act=2 GELU (GeGLU)",
    .params = {{"T", 512}, {"D", 512}, {"F", 1024}},
    .kernelParams = {{"bt", 512}, {"bf", 512}, {"bd", 1024}, {"act", kSilu}},
    .signature =
        [](const Params &p) {
          require(p["act"] == kSilu || p["act"] == kGelu, fmt::format("{}: act must be 1 (SiLU) or 2 (GELU)", kName));
          for (const char *dim : {"T", "D", "F"})
            require(p[dim] % tile_size::pmax == 0, fmt::format("{}: {} must be a multiple of 128", kName, dim));
          const int64_t bt = matmulBlock(kName, p, "bt", "T", tile_size::pmax);
          require(bt <= tile_size::gemm_moving_fmax,
                  fmt::format("{}: block bt={} must be at most 512 tokens (the moving tile of the gate and up "
                              "projections)",
                              kName, bt));
          matmulBlock(kName, p, "bf", "F", tile_size::pmax);
          matmulBlock(kName, p, "bd", "D", tile_size::pmax);
          const int64_t T = p["T"], D = p["D"], F = p["F"];
          return std::vector<TensorSpec>{input("x_t", {D, T}, bf16), input("w_gate", {D, F}, bf16),
                                         input("w_up", {D, F}, bf16), input("w_down", {F, D}, bf16),
                                         output("y", {T, D}, bf16)};
        },
    .body = body([](const Params &p, Hbm x_t, Hbm w_gate, Hbm w_up, Hbm w_down, Hbm y) {
      const int64_t D = x_t.dim(0), T = x_t.dim(1), F = w_gate.dim(1), tp = tile_size::pmax;
      const int64_t bt = matmulBlock(kName, p, "bt", "T", tp), bf = matmulBlock(kName, p, "bf", "F", tp),
                    bd = matmulBlock(kName, p, "bd", "D", tp);
      // The down projection's moving tiles: the widest of at most 512 columns that divides bd.
      const int64_t tn = std::gcd(bd, tile_size::gemm_moving_fmax);
      for (auto tb : affine_range(T / bt)) {
        std::vector<Tile> xs; // x_t's [128, bt] tiles of this token block, one per 128 rows of D
        for (int64_t k = 0; k < D / tp; ++k) xs.push_back(load(x_t.window(k * tp, tb * bt, {tp, bt})));
        // Output row tile i of the block (tokens [i * 128, (i + 1) * 128)) is acc's columns [i * D, (i + 1) * D).
        Tile acc = zeros<f32>({tp, bt / tp * D});
        for (auto fb : affine_range(F / bf)) {
          std::vector<Tile> gate, up; // [128, bf] per 128 rows of D
          for (int64_t k = 0; k < D / tp; ++k) {
            gate.push_back(load(w_gate.window(k * tp, fb * bf, {tp, bf})));
            up.push_back(load(w_up.window(k * tp, fb * bf, {tp, bf})));
          }
          // g^T of the hidden units [fb * bf + f * 128, + 128) is gT's columns [f * bt, (f + 1) * bt).
          Tile gT = zeros<bf16>({tp, bf / tp * bt});
          for (auto f : affine_range(bf / tp)) {
            Tile hGate = psum<f32>({tp, bt}), hUp = psum<f32>({tp, bt});
            for (int64_t k = 0; k < D / tp; ++k) {
              hGate += matmul(gate[k].slice(f * tp, tp), xs[k]);
              hUp += matmul(up[k].slice(f * tp, tp), xs[k]);
            }
            gT.slice(f * bt, bt) += (p["act"] == kGelu ? gelu(hGate) : silu(hGate)) * hUp;
          }
          for (auto db : affine_range(D / bd)) {
            std::vector<Tile> down; // [128, bd] per 128 hidden units of the block
            for (int64_t f = 0; f < bf / tp; ++f)
              down.push_back(load(w_down.window(fb * bf + f * tp, db * bd, {tp, bd})));
            for (auto i : affine_range(bt / tp))
              for (auto n : affine_range(bd / tn)) {
                Tile part = psum<f32>({tp, tn});
                for (int64_t f = 0; f < bf / tp; ++f)
                  part += matmul(gT.slice(f * bt + i * tp, tp), down[f].slice(n * tn, tn));
                acc.slice(i * D + db * bd + n * tn, tn) += part;
              }
          }
        }
        for (auto i : affine_range(bt / tp))
          store(y.window(tb * bt + i * tp, 0, {tp, D}), copy<bf16>(acc.slice(i * D, D)));
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t T = p["T"], D = p["D"], F = p["F"];
          using tessera::kernels::DenseMatrix;
          const DenseMatrix x_t = denseRows(in[0], T, 0, D), w_gate = denseRows(in[1], F, 0, D),
                            w_up = denseRows(in[2], F, 0, D), w_down = denseRows(in[3], D, 0, F);
          DenseMatrix gate(T, F), up(T, F), y(T, D);
          gemm(x_t, /*transposeA=*/true, w_gate, false, gate);
          gemm(x_t, /*transposeA=*/true, w_up, false, up);
          // The kernel keeps g in bf16 (the down projection's operand); the rest is exact.
          for (size_t i = 0; i < gate.values.size(); ++i)
            gate.values[i] = roundTo(bf16, static_cast<float>(activation(gate.values[i], p["act"]) * up.values[i]));
          gemm(gate, false, w_down, false, y);
          std::transform(y.values.begin(), y.values.end(), out[0].begin(),
                         [](double v) { return static_cast<float>(v); });
        },
}};

} // namespace
