#pragma once
/// \file
/// Filling the elements of a tile picked by their position (NKI's masks, nisa.affine_select): a causal mask, an
/// identity matrix. A position test is affine in the element's partition p and free index f, which keeps it one
/// instruction on a NeuronCore (GpSimd's affine_select) and a fill per row on a TPU.
///
/// ```cpp
/// Tile scores = ...;  // [128 queries, 128 keys] of one diagonal block, in SBUF
/// // causal: a key after its query gets -inf (f - p > 0)
/// tsr::fill(scores, -INFINITY, {.partition = -1, .free = 1, .cmp = tsr::op::greater});
/// ```

#include "tessera/dsl/Index.h"
#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"

namespace tsr {

/// The elements at partition p and free index f where offset + partition * p + free * f <cmp> 0: cmp a comparison
/// (tsr::op::greater ...), the coefficients any integers (the test is linear in f, so the elements of a row that
/// pass form at most two runs: a TPU fills each with one instruction), `offset` may depend on loop indices (a
/// causal mask's block offset). A band, such as a pooling matrix's ones at k * q <= p < k * q + k, is two fills.
struct Position {
  int64_t partition = 0;
  int64_t free = 1;
  Index offset = 0;
  tessera::isa::AluOp cmp = tessera::isa::AluOp::IsGt;
};

/// Sets the elements of `dst` (an SBUF tile) where `where` holds to `value`; the others keep theirs.
void fill(const Tile &dst, float value, const Position &where, Loc loc = Loc::current());

} // namespace tsr
