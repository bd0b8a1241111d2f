#pragma once
/// \file
/// The activation function at the language level with its scale, a bias per row and the sums of the result's
/// rows, as one operation (NKI: nisa.activation / activation_reduce with bias and scale): the softmax step
/// exp(scale * x - scale * max) with its row sums, on every target. On a NeuronCore it is one Scalar-engine
/// instruction; on a TPU the VPU computes it in FP32 (scale, bias, function, sum) before rounding into `dst`.
///
/// ```cpp
/// Tile rowSum = tsr::ndarray<tsr::f32>({128, 1});
/// Tile p = tsr::activation(tsr::act::exp, scores, {.bias = negMax, .scale = 0.125f, .sum = rowSum});
/// ```

#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"
#include "tessera/dsl/isa/Scalar.h"

#include <optional>

namespace tsr {

/// What an activation takes besides its function and input: func(x * scale + bias).
struct ActivationOptions {
  std::optional<Operand> bias; ///< a [P, 1] tile added to every element of row p after the scale; none: 0
  /// Multiplies x first: a number, or a [P, 1] tile whose row p scales row p (NKI's scale, a scalar or a vector).
  isa::Scalar scale = 1.0f;
  std::optional<Tile> sum;     ///< a [P, 1] FP32 tile that gets the sum of each row of the result (before its
                               ///< rounding into dst's dtype), or none
};

/// func(x * scale + bias) into a new SBUF tile of x's dtype (FP32 when x is in PSUM).
Tile activation(tessera::isa::ActFunc func, const Operand &x, const ActivationOptions &options = {},
                Loc loc = Loc::current());
/// The same into an existing SBUF tile or slice of x's shape.
void activation(const Tile &dst, tessera::isa::ActFunc func, const Operand &x, const ActivationOptions &options = {},
                Loc loc = Loc::current());

} // namespace tsr
