// tut_sd_attention: NKI's "Fused Self Attention" tutorial kernel, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/sd_attention.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/sd_attention/sd_attention_nki_kernels.py
//             (fused_self_attn_for_SD_small_head_size)
// out = softmax(0.125 q k^T) v for one head, q, k, v, out [seqlen, d_head] FP32 (the tutorial's test) with d_head
// <= 128, seqlen a multiple of 128; the tensor engine's operands in bf16 (the tutorial's mixed_precision=True,
// pe_in_dt), FP32 accumulation, scores and statistics in the IO dtype (kernel_dtype).
// The tutorial's steps, in its order: (1) v loaded in 128-row tiles side by side, q and k loaded transposed to
// [d_head, 128] tiles (nl.load_transpose2d; q scaled by 0.125); per 128-row tile of q: (2) q k^T per 128-column tile of k into PSUM,
// copied into one [128, seqlen] row of scores; (4) each tile's negated row maxima (tensor_reduce max, negate), their
// minimum, exp(scores - max) over the whole row as one activation, its row sums (tensor_reduce add), the
// exponentials in bf16; (5) their 128 x 128 transposes (nc_transpose); (6) v^T times them accumulated over the k
// tiles into a [d_head, 128] PSUM tile; divided by the row sums (broadcast to [128, d_head] and transposed) and
// stored transposed into out's 128 rows.
//
// What differs from the tutorial, and why:
//  - nl.load(..., dtype=pe_in_dt), a load that converts FP32 to bf16, is a load and a conversion on an engine
//    (tsr::assign or tsr::copy): the DSL's loads keep the tensor's dtype, and NKI's documents do not say whether the
//    DMA or an engine converts.
//  - nl.load_transpose2d(..., dtype=pe_in_dt) is tsr::load_transpose2d (FP32, so an element-strided DMA: NKI's DMA
//    transpose takes 2-byte dtypes) and the conversion to bf16 into the [d_head, 128] slice (tsr::assign); the 0.125
//    multiplies the slice in place afterwards (exact in bf16).
//  - The 3-D SBUF tiles (trans_v [128, n, d_head], q_local and k_local [n, d_head, 128], trans_softmax_res
//    [128, n, 128]) are 2-D tiles with tile i at free offset i * d_head (or i * 128); their affine_range loops stay.
//  - qk_psum += nisa.nc_matmul(...) and attn_res_psum += nisa.nc_matmul(...) onto nl.zeros PSUM tiles are
//    `psum += tsr::matmul(...)`: the same nc_matmul instructions; tsr::isa::nc_matmul needs its accumulate flag at
//    trace time, which an affine_range index cannot give.
//  - (1.0 / sum_res).broadcast_to((128, d_head)) (a free-dimension broadcast): zeros [128, d_head] plus the
//    [128, 1] reciprocal, the DSL's broadcast of a [P, 1] operand.
//  - The final store writes attn_res_div [d_head, 128] into out's rows transposed, as the tutorial's
//    out_ref[i_q * 128 + if_out, ip_out]: a store into the window's transpose (HbmTile::transposed), an
//    element-strided DMA. The simulator charges element-strided DMAs NKI's strided-access rule only (docs/dsl.md,
//    "Transposed windows"), so these loads and stores may be slower on hardware than simulated.
//  - use_causal_mask (scalar parameter, 0 by default as in the tutorial): the tutorial writes the masked scores with
//    one nisa.affine_select from PSUM, whose offset (i_q - i_k) * 128 uses the loop indices; tsr::isa::affine_select
//    takes a trace-time offset and SBUF operands, so the scores are copied as without the mask and then set to
//    -9984 after the diagonal with tsr::fill by position (whose offset may use loop indices): one more
//    instruction, which a NeuronCore runs as an affine_select on GpSimd (the NKI backend emits nisa.affine_select).
//  - Accuracy: the products' operands are bf16, rounded as the tutorial's mixed precision does (the reference rounds
//    the same values); an exponential's rounding can still differ from the reference's, so the kernel declares a
//    tolerance of one bf16 ulp against it (kMixedPrecisionTolerance, below).
//  - NeuronCore only, as the tutorial's nisa calls (tensor_reduce, activation, nc_transpose): a TPU target
//    refuses it at the first tensor_reduce.

#include "../DenseReference.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/NumberFormats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace {

using namespace tsr;

constexpr int64_t kTile = 128; // q, k and v sequence tiles
constexpr float softmax_scale = 0.125f;

/// The largest relative error accepted against the reference (KernelInfo::referenceTolerance): one bf16 ulp,
/// 2^-8, where an FP32 output is held to FP32's 1.02e-5. The reference rounds the products' operands as the kernel
/// does (below), but from exact scores: where an exponential lies within the kernel's FP32 error of a bf16 rounding
/// boundary, the two round it to neighbouring bf16 values, which moves the output by a bf16 ulp of that weight's
/// share. Measured: max rel err 9.5e-4 over seeds 0 to 11 at seqlen 256, 512 and 1024, with and without the causal
/// mask, on trn1 and trn2, and 7.6e-4 at most at 2048 and 4096 (the default uniform [-1, 1) inputs); 9.8e-6 on the
/// tutorial's own test (seqlen 4096, d_head 64, uniform [0, 1) inputs, which it checks with np.allclose(atol=1e-5,
/// rtol=1e-3)). bf16's default tolerance (0.0156) would not tell the kernel from one whose roundings differ from
/// the reference's: with the reference's rounding of the exponentials left out, 5.9e-3 to 7.2e-3 (seqlen 256, seeds
/// 0 to 2), with its rounding of q, k and v left out, 9.1e-3 to 1.1e-2; this one does.
constexpr double kMixedPrecisionTolerance = 1.0 / 256.0;

const Registration registration{{
    .name = "tut_sd_attention",
    .summary = "NKI tutorial 'fused self attention' (SD, d_head <= 128): softmax(0.125 q k^T) v, FP32 IO, bf16 "
               "matmuls (NeuronCore only)",
    .params = {{"seqlen", 256}, {"d_head", 64}},
    .scalarParams = {{"use_causal_mask", 0.0}},
    .signature =
        [](const Params &p) {
          const int64_t S = p["seqlen"], d = p["d_head"];
          require(d <= tile_size::pmax, fmt::format("tut_sd_attention: d_head={} must be at most 128", d));
          require(S % kTile == 0, fmt::format("tut_sd_attention: seqlen={} must be a multiple of 128", S));
          return std::vector<TensorSpec>{input("q_ref", {S, d}, f32), input("k_ref", {S, d}, f32),
                                         input("v_ref", {S, d}, f32), output("out_ref", {S, d}, f32)};
        },
    .body = body([](const Params &p, Hbm q_ref, Hbm k_ref, Hbm v_ref, Hbm out_ref) {
      const bool use_causal_mask = p.scalar("use_causal_mask") == 1.0;
      const int64_t seqlen = q_ref.dim(0), d_head = q_ref.dim(1), n_tiles = seqlen / kTile;
      // The tutorial's dtypes: kernel_dtype is the IO's, the tensor engine's operands bf16 (mixed_precision).
      const DType kernel_dtype = q_ref.dtype(), pe_in_dt = bf16;
      // Step 1: v in 128-row tiles side by side; q (scaled) and k transposed, tile i at free offset i * 128. Each
      // nl.load(..., dtype=pe_in_dt) is a load and a conversion (assign); the transposes move bf16.
      Tile trans_v = ndarray(pe_in_dt, {kTile, n_tiles * d_head});
      for (auto i : affine_range(n_tiles))
        assign(trans_v.slice(i * d_head, d_head), load(v_ref.window(i * kTile, 0, {kTile, d_head})));
      Tile q_local = ndarray(pe_in_dt, {d_head, n_tiles * kTile});
      for (auto i : affine_range(n_tiles)) {
        assign(q_local.slice(i * kTile, kTile), load_transpose2d(q_ref.window(i * kTile, 0, {kTile, d_head})));
        q_local.slice(i * kTile, kTile) *= softmax_scale;
      }
      Tile k_local = ndarray(pe_in_dt, {d_head, n_tiles * kTile});
      for (auto i : affine_range(n_tiles))
        assign(k_local.slice(i * kTile, kTile), load_transpose2d(k_ref.window(i * kTile, 0, {kTile, d_head})));

      for (auto i_q : affine_range(n_tiles)) {
        Tile qk_res_buf = ndarray(kernel_dtype, {kTile, seqlen});
        Tile neg_max_res = ndarray(kernel_dtype, {kTile, n_tiles});
        for (auto i_k : affine_range(n_tiles)) {
          // Step 2: q k^T, the q tile stationary, contracting over d_head.
          Tile qk_psum = psum<f32>({kTile, kTile});
          qk_psum += matmul(q_local.slice(i_q * kTile, kTile), k_local.slice(i_k * kTile, kTile));
          // Step 3: the PSUM result into the row of scores, and the optional causal mask: -9984 where the key
          // i_k * 128 + f comes after the query i_q * 128 + p, f - p + (i_k - i_q) 128 > 0.
          assign(qk_res_buf.slice(i_k * kTile, kTile), qk_psum);
          if (use_causal_mask)
            fill(qk_res_buf.slice(i_k * kTile, kTile), -9984.0f,
                 {.partition = -1, .free = 1, .offset = (i_k - i_q) * kTile, .cmp = op::greater});
          // Step 4: this tile's negated row maxima.
          isa::tensor_reduce(neg_max_res.slice(i_k, 1), op::maximum, qk_res_buf.slice(i_k * kTile, kTile), true);
        }
        Tile neg_max_res_final = ndarray(kernel_dtype, {kTile, 1});
        isa::tensor_reduce(neg_max_res_final, op::minimum, neg_max_res);
        Tile exp_res = ndarray(kernel_dtype, {kTile, seqlen});
        isa::activation(exp_res, act::exp, qk_res_buf, neg_max_res_final, 1.0f);
        Tile sum_res = ndarray(kernel_dtype, {kTile, 1});
        isa::tensor_reduce(sum_res, op::add, exp_res);
        Tile softmax_res = copy(exp_res, pe_in_dt);
        Tile sum_divisor = full(kernel_dtype, {kTile, d_head}, 0.0f) + 1.0f / sum_res;
        // Step 5: the exponentials transposed, 128 x 128 at a time, through PSUM.
        Tile trans_softmax_res = ndarray(pe_in_dt, {kTile, n_tiles * kTile});
        for (auto i_k : affine_range(n_tiles)) {
          Tile transposed = ndarray(pe_in_dt, {kTile, kTile}, buffer::psum);
          isa::nc_transpose(transposed, softmax_res.slice(i_k * kTile, kTile));
          assign(trans_softmax_res.slice(i_k * kTile, kTile), transposed);
        }
        // Step 6: v^T p^T, accumulated over the k tiles: [d_head, 128].
        Tile attn_res_psum = psum<f32>({d_head, kTile});
        for (auto i_k : affine_range(n_tiles))
          attn_res_psum += matmul(trans_v.slice(i_k * d_head, d_head), trans_softmax_res.slice(i_k * kTile, kTile));
        Tile attn_res_sbuf = copy(attn_res_psum, kernel_dtype);
        Tile divisor_t = ndarray(kernel_dtype, {d_head, kTile}, buffer::psum);
        isa::nc_transpose(divisor_t, sum_divisor);
        Tile attn_res_div = attn_res_sbuf * divisor_t;
        // The tutorial's transposed store: [d_head, 128] into out's 128 rows.
        store(out_ref.window(i_q * kTile, 0, {kTile, d_head}).transposed(), attn_res_div);
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          // The tutorial's cpu_golden_attn, in double: softmax((0.125 q) k^T) v, with the kernel's mask, on the
          // products' operands as its mixed precision makes them: q, k and v rounded to bf16, and the exponentials
          // too (softmax_res, the second matmul's operand), each row's sum of the unrounded ones, as the kernel's.
          // Without these roundings an output near 0 differs from the FP32 inputs' exact result by a bf16 operand's
          // error relative to the whole output's rms (up to 3.6e-2 with the causal mask at seqlen 1024).
          using tessera::kernels::DenseMatrix;
          const int64_t S = p["seqlen"], d = p["d_head"];
          const auto bf16Rows = [&](const HostTensor &t) {
            DenseMatrix m = tessera::kernels::denseRows(t, d, 0, S);
            for (int64_t r = 0; r < S; ++r)
              for (int64_t c = 0; c < d; ++c) m.at(r, c) = tessera::isa::roundTo(bf16, static_cast<float>(m.at(r, c)));
            return m;
          };
          const DenseMatrix q = bf16Rows(in[0]), k = bf16Rows(in[1]), v = bf16Rows(in[2]);
          DenseMatrix scores(S, S), o(S, d);
          tessera::kernels::gemm(q, false, k, true, scores, softmax_scale);
          const bool causal = p.scalar("use_causal_mask") == 1.0; // the tutorial's -9984 after the diagonal
          std::vector<double> total(S, 0.0);
          for (int64_t r = 0; r < S; ++r) {
            if (causal)
              for (int64_t c = r + 1; c < S; ++c) scores.at(r, c) = -9984.0;
            double mx = -std::numeric_limits<double>::infinity();
            for (int64_t c = 0; c < S; ++c) mx = std::max(mx, scores.at(r, c));
            for (int64_t c = 0; c < S; ++c) {
              const double e = std::exp(scores.at(r, c) - mx);
              total[r] += e;
              scores.at(r, c) = tessera::isa::roundTo(bf16, static_cast<float>(e));
            }
          }
          tessera::kernels::gemm(scores, false, v, false, o);
          for (int64_t r = 0; r < S; ++r)
            for (int64_t c = 0; c < d; ++c) out[0][r * d + c] = static_cast<float>(o.at(r, c) / total[r]);
        },
    .referenceTolerance = kMixedPrecisionTolerance,
}};

} // namespace
