#pragma once
/// \file
/// Broadcasts of a tile on chip (NKI: nl.broadcast_to, "Broadcast a tile to a new shape following numpy
/// broadcasting rules"): a row on every partition (a bias or a norm's gamma), a column along the free dimension,
/// or one value everywhere, without a matmul by ones and without loading it again from HBM.
///
/// ```cpp
/// tsr::Tile g = tsr::load(gamma.tile(0, 0, {1, n}));      // [1, n], once, before the loop
/// tsr::Tile g_bcast = tsr::broadcast_to(g, {128, n});     // [128, n]: row 0 on every partition
/// ```
///
/// What each target runs:
///  - NeuronCore: along the free dimension, one tensor_copy; onto partitions, one nc_stream_shuffle per quadrant of
///    32 destination partitions (a mask of zeros: what the NKI library's stream_shuffle_broadcast does), after a
///    tensor_copy into the result's first partition when the dtype changes or the free dimension is broadcast too.
///    A row loaded from HBM just before (in the same loop body) that only broadcasts read, broadcast in its own
///    dtype, is loaded onto every partition instead (one broadcast DMA, no Vector-engine work: what NKI's fused
///    Mamba tutorial's profile implies its compiler does; docs/fidelity.md).
///  - TPU: one VPU copy reading the source row (or column) repeatedly (a sublane or lane broadcast);
///    Pallas: jnp.broadcast_to.

#include "tessera/dsl/Ops.h"

namespace tsr {

/// A new SBUF tile of `shape` holding `x` repeated along each dimension where `x` has size 1 ([1, F] -> [P, F],
/// [P, 1] -> [P, F], [1, 1] -> [P, F]), converted to `dtype` (NKI: nl.broadcast_to(x, shape, dtype)). `x` is in
/// SBUF or PSUM; each dimension of `shape` equals x's or x's is 1. A shape equal to x's gives `x` itself in the same
/// dtype, else a copy of it converted (tsr::copy).
Tile broadcast_to(const Operand &x, Shape shape, DType dtype, Loc loc = Loc::current());
/// broadcast_to in x's own dtype.
Tile broadcast_to(const Operand &x, Shape shape, Loc loc = Loc::current());

} // namespace tsr
