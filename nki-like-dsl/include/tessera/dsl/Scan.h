#pragma once
/// \file
/// The linear recurrence along the free dimension, as one operation: x[p, f] = a[p, f] * x[p, f - 1] + b[p, f],
/// from x[p, -1] = initial[p] (or 0). The state update of a selective scan (Mamba: a the decay exp(delta A), b the
/// input delta B u), on every target: on a NeuronCore one Vector-engine instruction (nisa.tensor_tensor_scan with
/// multiply and add), on a TPU log2(F) rounds of vector operations on shifted slices (tile-legalize-for-tpu: the
/// doubling scan, x[f] += A[f] x[f - d] and A[f] *= A[f - d] for d = 1, 2, 4, ...). The two differ in the order of
/// their FP32 roundings only.
///
/// ```cpp
/// Tile decay = tsr::activation(tsr::act::exp, deltaA);            // [128, L]
/// Tile state = tsr::scan(decay, deltaBu, {.initial = carried});    // carried: [128, 1], the last chunk's end
/// ```

#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"

#include <optional>

namespace tsr {

/// What a scan takes besides its two operands.
struct ScanOptions {
  std::optional<Operand> initial; ///< x[p, -1]: a [P, 1] tile, one value per row; none: 0
};

/// x = the scan of (a, b) into a new FP32 SBUF tile of a's shape. a and b share a shape, in SBUF or PSUM (not both
/// in PSUM).
Tile scan(const Operand &a, const Operand &b, const ScanOptions &options = {}, Loc loc = Loc::current());
/// The same into an existing SBUF tile or slice of a's shape: scan(dst, a, b).
void scan(const Tile &dst, const Operand &a, const Operand &b, const ScanOptions &options = {},
          Loc loc = Loc::current());

} // namespace tsr
