#pragma once
/// \file
/// Transposes at the language level (NKI: nl.transpose, nisa.nc_transpose, nisa.dma_transpose), on every target:
/// the partition and free dimensions of a tile swap. Where the result goes says how it is made:
///  - into PSUM: on the tensor engine (a NeuronCore's PE array multiplies the data by an identity), up to
///    [128, 128]; several side by side into one PSUM bank when the destination is a slice of a tsr::ndarray PSUM
///    tile;
///  - into SBUF: by a DMA queue (nki.isa.dma_transpose), for 2-byte dtypes, which leaves the tensor engine and the
///    PSUM-to-SBUF copy free (flash attention splits its transposes between the two).
/// On a TPU both are one MXU matmul with an identity matrix (exact: one product with 1.0 per element).
///
/// ```cpp
/// Tile pt = tsr::ndarray(tsr::bf16, {128, 512}, tsr::buffer::psum);
/// for (int64_t c = 0; c < 4; ++c) tsr::transpose(pt.slice(c * 128, 128), p.slice(c * 128, 128));
/// ```

#include "tessera/dsl/Ops.h"

namespace tsr {

/// src [P, F] transposed into a new PSUM tile [F, P] of src's dtype, on the tensor engine (NKI: nl.transpose).
/// P, F <= tile_size::pmax; src in SBUF.
Tile transpose(const Operand &src, Loc loc = Loc::current());

/// dst[f, p] = src[p, f]. dst [F, P] in PSUM (the tensor engine; dst's dtype src's or f32), or in SBUF (a DMA
/// transpose; a 2-byte dtype, the same on both sides); src in SBUF, P, F <= tile_size::pmax.
void transpose(const Tile &dst, const Operand &src, Loc loc = Loc::current());

} // namespace tsr
