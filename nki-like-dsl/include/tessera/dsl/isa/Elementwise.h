#pragma once
/// \file
/// Elementwise and position-driven engine instructions as tsr::isa calls, with NKI 0.6's arguments in NKI's
/// order (dst first): tensor_scalar, scalar_tensor_tensor, reciprocal, tensor_copy_predicated, iota,
/// affine_select, range_select and local_gather. Each records exactly one instruction, checked against its
/// definition (`tessera isa`) at the kernel's line; the target-specific limits are checked when it is compiled.
///
/// ```cpp
/// Tile masked = tsr::ndarray<tsr::f32>({128, 128});
/// // causal mask: keep x[p, i] where p - i >= 0, else -inf
/// tsr::isa::affine_select(masked, {{-1, 128}}, 0, 1, x, -INFINITY, tsr::op::greater_equal);
/// ```

#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"
#include "tessera/dsl/isa/Scalar.h"

#include <array>
#include <optional>
#include <vector>

namespace tsr::isa {

/// NKI's affine pattern `[[step, num], ...]`, outermost first (iota, affine_select): element (p, i...) gets
/// offset + channel_multiplier * p + sum of step_d * i_d. Tiles here are [P, F], so the pattern must flatten to
/// one free dimension (each step = the next inner step x its num, e.g. {{64, 2}, {1, 64}}) and cover F.
using Pattern = std::vector<std::array<int64_t, 2>>;

/// dst = (data <op0> operand0) <op1> operand1, operands numbers or [P, 1] tiles; `reverse0`/`reverse1` swap a
/// stage's inputs (operand <op> x); without op1 only the first stage runs (nki.isa.tensor_scalar).
void tensor_scalar(const Tile &dst, const Operand &data, tessera::isa::AluOp op0, const Scalar &operand0,
                   bool reverse0 = false, std::optional<tessera::isa::AluOp> op1 = std::nullopt,
                   const std::optional<Scalar> &operand1 = std::nullopt, bool reverse1 = false,
                   std::optional<Engine> engine = std::nullopt, Loc loc = Loc::current());

/// dst = (data <op0> operand0) <op1> operand1: operand0 a number or [P, 1] tile, operand1 a tile of data's shape,
/// on the vector engine (nki.isa.scalar_tensor_tensor).
void scalar_tensor_tensor(const Tile &dst, const Operand &data, tessera::isa::AluOp op0, const Scalar &operand0,
                          tessera::isa::AluOp op1, const Operand &operand1, bool reverse0 = false,
                          bool reverse1 = false, Loc loc = Loc::current());

/// dst = 1 / data in FP32, on the vector engine (nki.isa.reciprocal).
void reciprocal(const Tile &dst, const Operand &data, Loc loc = Loc::current());

/// dst[k] = src[k] where predicate[k] != 0 (== 0 with `reverse_pred`); other elements of dst keep their value.
/// The predicate is u8 or u32 (nki.isa.tensor_copy_predicated).
void tensor_copy_predicated(const Tile &dst, const Operand &src, const Operand &predicate, bool reverse_pred = false,
                            Loc loc = Loc::current());
/// As above with a number copied where the predicate holds (NKI's `src` as a Python number).
void tensor_copy_predicated(const Tile &dst, float src, const Operand &predicate, bool reverse_pred = false,
                            Loc loc = Loc::current());

/// dst[p, i] = offset + channel_multiplier * p + pattern(i), computed in int32 and converted to dst's dtype, on
/// the GpSimd engine; dst in SBUF (nki.isa.iota).
void iota(const Tile &dst, const Pattern &pattern, int64_t offset, int64_t channel_multiplier = 0,
          Loc loc = Loc::current());

/// dst = (offset + channel_multiplier * p + pattern(i)) <cmp_op> 0 ? on_true_tile : on_false_value, on the GpSimd
/// engine, all in SBUF (nki.isa.affine_select).
void affine_select(const Tile &dst, const Pattern &pattern, int64_t offset, int64_t channel_multiplier,
                   const Operand &on_true_tile, float on_false_value,
                   tessera::isa::AluOp cmp_op = tessera::isa::AluOp::IsEqual, Loc loc = Loc::current());

/// dst[p, i] = (i + range_start <comp_op0> bound0[p]) and (i + range_start <comp_op1> bound1[p]) ? on_true_tile[p,
/// i] : on_false_value; `reduce_res` [P, 1], if given, gets each row's maximum (nki.isa.range_select, NeuronCore-v3
/// on). NKI's reduce_cmd and reduce_op are not taken: each call resets and reduces with max, the only ones modelled.
void range_select(const Tile &dst, const Operand &on_true_tile, tessera::isa::AluOp comp_op0,
                  tessera::isa::AluOp comp_op1, const Operand &bound0, const Operand &bound1,
                  const std::optional<Tile> &reduce_res = std::nullopt, int64_t range_start = 0,
                  float on_false_value = 0.0f, Loc loc = Loc::current());

/// dst[p, v*E + e] = src_buffer[p, idx[v] + e], idx the first num_valid_indices indices of p's GpSimd core (its
/// partitions of `index`, partition first), E = num_elem_per_idx; all in SBUF (nki.isa.local_gather). Without
/// num_valid_indices every index of the core's partitions is used.
void local_gather(const Tile &dst, const Operand &src_buffer, const Operand &index, int64_t num_elem_per_idx = 1,
                  std::optional<int64_t> num_valid_indices = std::nullopt, Loc loc = Loc::current());

} // namespace tsr::isa
