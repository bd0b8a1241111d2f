// conv2d: Y = conv(X, Wt), NCHW, a k x k filter (k = 1 or 3, zero padding k / 2: "same" at stride 1) at stride 1
// or 2, bf16 in and out, FP32 accumulation, no bias. X [N, C, H, W] is given as the 2-D x[N * C, H * W] (its memory
// as it is), Y [N, F, OH, OW] as y[N * F, OH * OW], and the filters in the layout JAX's convolutions use (HWIO):
// w[(kh * k + kw) * C + c, f] is filter f's weight of input channel c at tap (kh, kw), so that a tap's [C, F]
// weights, the matmul's stationary operand, are one window of w (PyTorch's OIHW filters Wt[f, c, kh, kw] become this
// with Wt.permute(2, 3, 1, 0)).
//
// On a systolic array a convolution is k * k matmuls that contract over the input channels: for each tap (kh, kw)
// of the filter, Y[f, (oh, ow)] += Wt[f, c, kh, kw] * X[c, s * oh + kh - pad, s * ow + kw - pad]; channels go to
// partitions (stationary: the tap's [C, F] weights; moving: X's pixels, shifted by the tap), the output's pixels
// to the free dimension, one PSUM bank of them per accumulation group. What makes every tap's moving operand one
// contiguous slice is the layout of X on chip: a block of input rows lies in SBUF with a zero border (a padded row
// pitch Q = OW + 2 pad, and pad zero rows above), so a tap's pixels are the block's shifted by (fh * Q + fw)
// elements, and the pixels a tap reads outside the image are the border's zeros. The output is computed at the Q
// pixels of each padded row; the 2 pad columns past OW are discarded when the result leaves PSUM.
// At stride 2 the tap would read every other pixel: X is split into its four phases X_ab[i, j] = X[2i + a, 2j + b]
// (loaded with strided windows, step 2), and each tap reads one phase, shifted by 0 or -1 row and column, at stride
// 1 again.
//
// Each block of R output rows (R * Q <= 512) takes, per 128 input channels, one padded tile per phase (a memset
// for the border, one DMA per input row; a 1x1 filter at stride 1 has neither border nor phases, and its block is
// one DMA), then per 128 output channels k * k * (C / 128) matmuls into one PSUM bank
// and one copy per output row to SBUF, and one store. The weights are loaded once, a [<= 128, F] tile per tap and
// block of input channels. Blocks at the top and bottom of the image, where some input rows lie outside it, are
// unrolled; the others are one loop.
//
// Limits: OW + 2 pad <= 512 (a padded output row fits a PSUM bank).

#include "DenseReference.h"
#include "Rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::DenseMatrix;
using tessera::kernels::denseRows;
using tessera::kernels::gemm;

constexpr const char *kName = "conv2d";
/// The pixels of one accumulation group: one PSUM bank of FP32, the moving operand's largest free size.
constexpr int64_t kBankPixels = tile_size::psum_fmax;
constexpr int64_t kChannels = tile_size::pmax;

/// The convolution's sizes, from the parameters.
struct Conv {
  int64_t N, C, F, H, W, k, s, pad, OH, OW;
  int64_t Q;    ///< the padded row pitch on chip: OW + 2 pad
  int64_t rows; ///< output rows per block: R * Q <= 512

  explicit Conv(const Params &p)
      : N(p["N"]), C(p["C"]), F(p["F"]), H(p["H"]), W(p["W"]), k(p["k"]), s(p["stride"]), pad(k / 2),
        OH((H + 2 * pad - k) / s + 1), OW((W + 2 * pad - k) / s + 1), Q(OW + 2 * pad),
        rows(std::min(OH, kBankPixels / Q)) {}

  int64_t taps() const { return k * k; }
  /// Phase a (of rows; of columns likewise) holds the input rows s * i + a: this many of them.
  int64_t phaseRows(int64_t a) const { return (H - a + s - 1) / s; }
  int64_t phaseColumns(int64_t b) const { return (W - b + s - 1) / s; }
  /// The rows of a block's padded tile: R output rows and pad above and below.
  int64_t tileRows(int64_t R) const { return R + 2 * pad; }
  /// Elements per partition of a block's padded tile; the 2 pad past the last row are read (into the discarded
  /// columns) by the taps that shift right and down.
  int64_t tileElements(int64_t R) const { return tileRows(R) * Q + 2 * pad; }
};

/// Tap t's place in the phases: phase (a, b) and the shift (fh, fw) of its reads there, in rows and columns.
struct Tap {
  int64_t a, b, fh, fw;
};

/// Floor division (the shift of a tap that reads above or left of the output pixel is negative).
int64_t floorDiv(int64_t x, int64_t y) { return (x - ((x % y) + y) % y) / y; }

Tap tapOf(const Conv &c, int64_t t) {
  const int64_t dh = t / c.k - c.pad, dw = t % c.k - c.pad;
  return {.a = dh - c.s * floorDiv(dh, c.s), .b = dw - c.s * floorDiv(dw, c.s), .fh = floorDiv(dh, c.s),
          .fw = floorDiv(dw, c.s)};
}

/// The phase index (a * s + b) of every phase some tap reads.
std::vector<int64_t> phasesRead(const Conv &c) {
  std::vector<int64_t> phases;
  for (int64_t t = 0; t < c.taps(); ++t) {
    const Tap tap = tapOf(c, t);
    const int64_t phase = tap.a * c.s + tap.b;
    if (std::find(phases.begin(), phases.end(), phase) == phases.end()) phases.push_back(phase);
  }
  return phases;
}

/// The weights, per input-channel block and tap: the tap's [cb, F] weights of those channels, one window of w. A
/// block of output channels is a slice of it, the matmul's stationary operand.
using Weights = std::vector<std::vector<Tile>>;

Weights loadWeights(const Conv &c, const Hbm &w) {
  Weights wt;
  for (int64_t c0 = 0; c0 < c.C; c0 += kChannels) {
    const int64_t cb = std::min(kChannels, c.C - c0);
    auto &taps = wt.emplace_back();
    for (int64_t t = 0; t < c.taps(); ++t) taps.push_back(load(w.window(t * c.C + c0, 0, {cb, c.F})));
  }
  return wt;
}

/// The padded tiles of one block of R output rows from output row oh0, per input-channel block and phase read:
/// the block's input rows (of each phase) at pitch Q inside a zero border. `knownInside` says every input row the
/// block reads lies in the image (a block of the loop); otherwise (an unrolled block, oh0 a constant) the rows
/// outside it stay zero.
std::vector<std::vector<Tile>> loadBlock(const Conv &c, const Hbm &x, const Index &image, const Index &oh0, int64_t R,
                                         bool knownInside) {
  const std::vector<int64_t> phases = phasesRead(c);
  std::vector<std::vector<Tile>> tiles;
  for (int64_t c0 = 0; c0 < c.C; c0 += kChannels) {
    const int64_t cb = std::min(kChannels, c.C - c0);
    auto &perPhase = tiles.emplace_back();
    if (c.k == 1 && c.s == 1) { // no border and one phase: the block's pixels are one run of x's row, one DMA
      Tile t = ndarray<bf16>({cb, R * c.W});
      load(t, x.window(image * c.C + c0, oh0 * c.W, {cb, R * c.W}));
      perPhase.push_back(t);
      continue;
    }
    for (int64_t phase : phases) {
      const int64_t a = phase / c.s, b = phase % c.s;
      Tile t = full(bf16, {cb, c.tileElements(R)}, 0.0f);
      const int64_t cols = std::min(c.phaseColumns(b), c.OW + c.pad);
      for (int64_t r = 0; r < c.tileRows(R); ++r) {
        // Tile row r holds phase row i = oh0 - pad + r: input row s * i + a.
        if (!knownInside) {
          const int64_t i = oh0.expr().constant - c.pad + r;
          if (i < 0 || i >= c.phaseRows(a)) continue; // outside the image: the border's zeros
        }
        const Index pixel = (oh0 - c.pad + r) * (c.s * c.W) + (a * c.W + b);
        load(t.slice(r * c.Q + c.pad, cols), x.window(image * c.C + c0, pixel, {cb, cols}, {1, c.s}));
      }
      perPhase.push_back(t);
    }
  }
  return tiles;
}

/// One block of R output rows from oh0: per block of output channels (a loop, and the last, narrower block after
/// it) k * k * (C / 128) matmuls into one PSUM bank, the valid OW pixels of each row copied out, and one store.
void convolveBlock(const Conv &c, const Hbm &x, const Hbm &y, const Weights &wt, const Index &image, const Index &oh0,
                   int64_t R, bool knownInside) {
  const std::vector<std::vector<Tile>> in = loadBlock(c, x, image, oh0, R, knownInside);
  const std::vector<int64_t> phases = phasesRead(c);
  tessera::kernels::forEachBlock(c.F, kChannels, [&](const Index &f0, int64_t fb) {
    std::optional<Tile> acc;
    for (size_t ci = 0; ci < in.size(); ++ci)
      for (int64_t t = 0; t < c.taps(); ++t) {
        const Tap tap = tapOf(c, t);
        const int64_t phase = std::find(phases.begin(), phases.end(), tap.a * c.s + tap.b) - phases.begin();
        // Output pixel (r, q) reads tile row r + pad + fh, column q + pad + fw.
        const Tile pixels = in[ci][phase].slice((c.pad + tap.fh) * c.Q + c.pad + tap.fw, R * c.Q);
        const Tile weights = wt[ci][t].slice(f0, fb);
        if (!acc) acc = matmul(weights, pixels);
        else *acc += matmul(weights, pixels);
      }
    Tile out = ndarray<bf16>({fb, R * c.OW});
    if (c.Q == c.OW) assign(out, *acc);
    else
      for (int64_t r = 0; r < R; ++r) assign(out.slice(r * c.OW, c.OW), acc->slice(r * c.Q, c.OW));
    store(y.window(image * c.F + f0, oh0 * c.OW, {fb, R * c.OW}), out);
  });
}

const Registration registration{{
    .name = kName,
    .summary = "NCHW convolution, k x k filters (k = 1 or 3, pad k/2), stride 1 or 2: x[N*C, H*W], w[k*k*C, F] "
               "(HWIO), y[N*F, OH*OW], bf16, FP32 accumulation, any C, F, H, W",
    .params = {{"N", 1}, {"C", 128}, {"F", 128}, {"H", 32}, {"W", 32}},
    .kernelParams = {{"k", 3}, {"stride", 1}},
    .signature =
        [](const Params &p) {
          require(p["k"] == 1 || p["k"] == 3, fmt::format("{}: k={} must be 1 or 3", kName, p["k"]));
          require(p["stride"] == 1 || p["stride"] == 2,
                  fmt::format("{}: stride={} must be 1 or 2", kName, p["stride"]));
          const Conv c(p);
          require(c.Q <= kBankPixels, fmt::format("{}: an output row of OW={} pixels and {} of padding must fit one "
                                                  "PSUM bank of {} (W at most about {} at stride {})",
                                                  kName, c.OW, 2 * c.pad, kBankPixels,
                                                  (kBankPixels - 2 * c.pad) * c.s, c.s));
          return std::vector<TensorSpec>{input("x", {c.N * c.C, c.H * c.W}, bf16),
                                         input("w", {c.taps() * c.C, c.F}, bf16),
                                         output("y", {c.N * c.F, c.OH * c.OW}, bf16)};
        },
    .body = body([](const Params &p, Hbm x, Hbm w, Hbm y) {
      const Conv c(p);
      const Weights wt = loadWeights(c, w);
      // Full blocks b (oh0 = b * R) read only rows inside the image when b >= 1 and their last tile row is in
      // every phase; those form the loop, the rest are unrolled.
      const int64_t R = c.rows, full = c.OH / R, rest = c.OH % R;
      int64_t minPhaseRows = c.phaseRows(0);
      for (int64_t a = 0; a < c.s; ++a) minPhaseRows = std::min(minPhaseRows, c.phaseRows(a));
      auto inside = [&](int64_t b) { return b * R - c.pad >= 0 && b * R - c.pad + c.tileRows(R) <= minPhaseRows; };
      int64_t loopEnd = 1; // blocks [1, loopEnd) form the loop
      while (loopEnd < full && inside(loopEnd)) ++loopEnd;
      // Images are a plain C++ loop, and the unrolled blocks scoped, so that the blocks' tiles (the PSUM banks of
      // their output-channel loops, above all) take turns in the same memory: tiles nested in one loop's body keep
      // their bytes for the whole body (docs/compiler.md).
      using tessera::kernels::scoped;
      for (int64_t n = 0; n < c.N; ++n) {
        if (full > 0) scoped([&] { convolveBlock(c, x, y, wt, n, Index(0), R, /*knownInside=*/false); });
        if (loopEnd > 1)
          for (auto b : affine_range(loopEnd - 1)) convolveBlock(c, x, y, wt, n, (b + 1) * R, R, true);
        for (int64_t b = std::max<int64_t>(loopEnd, 1); b < full; ++b)
          scoped([&] { convolveBlock(c, x, y, wt, n, Index(b * R), R, false); });
        if (rest > 0) scoped([&] { convolveBlock(c, x, y, wt, n, Index(full * R), rest, false); });
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          // The definition, in double: y[n, f, oh, ow] = sum over c, kh, kw of w[kh, kw, c, f] *
          // x[n, c, s * oh + kh - pad, s * ow + kw - pad], zero outside the image. As one GEMM per image and block
          // of output rows: y[f, pixels] = w[(kh, kw, c), f]^T @ cols[(kh, kw, c), pixels], where cols holds each
          // pixel's inputs under the filter (im2col).
          const Conv c(p);
          const DenseMatrix w = denseRows(in[1], c.F, 0, c.taps() * c.C);
          const int64_t rowsPerBlock = std::max<int64_t>(1, 4096 / c.OW);
          for (int64_t n = 0; n < c.N; ++n)
            for (int64_t oh0 = 0; oh0 < c.OH; oh0 += rowsPerBlock) {
              const int64_t rows = std::min(rowsPerBlock, c.OH - oh0), pixels = rows * c.OW;
              DenseMatrix cols(c.taps() * c.C, pixels), y(c.F, pixels);
              for (int64_t kh = 0; kh < c.k; ++kh)
                for (int64_t kw = 0; kw < c.k; ++kw)
                  for (int64_t ch = 0; ch < c.C; ++ch)
                    for (int64_t oh = 0; oh < rows; ++oh)
                      for (int64_t ow = 0; ow < c.OW; ++ow) {
                        const int64_t h = c.s * (oh0 + oh) + kh - c.pad, wc = c.s * ow + kw - c.pad;
                        const bool inside = h >= 0 && h < c.H && wc >= 0 && wc < c.W;
                        cols.at((kh * c.k + kw) * c.C + ch, oh * c.OW + ow) =
                            inside ? in[0][((n * c.C + ch) * c.H + h) * c.W + wc] : 0.0;
                      }
              gemm(w, /*transposeA=*/true, cols, false, y);
              for (int64_t f = 0; f < c.F; ++f)
                for (int64_t px = 0; px < pixels; ++px)
                  out[0][((n * c.F + f) * c.OH + oh0) * c.OW + px] = static_cast<float>(y.at(f, px));
            }
        },
    .scheduleInstructions = true,
}};

} // namespace
