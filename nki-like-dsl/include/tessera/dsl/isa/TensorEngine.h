#pragma once
/// \file
/// The tensor engine's instructions and the transposes as tsr::isa calls, with NKI 0.6's arguments in NKI's
/// order (dst first): nc_matmul with row tiling and FP8 double row, nc_transpose on the tensor or vector engine,
/// and dma_transpose between SBUF tiles. The plain `nc_matmul(dst, stationary, moving, accumulate)` is in
/// tessera/dsl/Isa.h.
///
/// ```cpp
/// // two 64-row matmuls that may run side by side in the two row tiles of the PE array
/// tsr::isa::nc_matmul(top, a0, b0, false, {0, 0}, {64, 128});
/// tsr::isa::nc_matmul(bottom, a1, b1, false, {64, 0}, {64, 128});
/// ```

#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"

#include <cstdint>
#include <optional>

namespace tsr::isa {

/// One of nc_matmul's tile_position or tile_size pairs: (row, column) in PE rows and columns, as NKI's tuples.
/// `{}` leaves it unset (NKI's `()`): the whole array.
struct PeTile {
  int64_t row = -1;
  int64_t column = -1;
  bool set() const { return row >= 0 || column >= 0; }
};

/// nc_matmul's performance mode (NKI: nki.isa.matmul_perf_mode).
enum class matmul_perf_mode : uint8_t {
  none,
  double_row, ///< FP8 double row (NeuronCore-v3 on): stationary [K, 2*M] and moving [K, 2*N] hold rows (k, 0)
              ///< and (k, 1) side by side, so one matmul contracts over 2K rows
};

/// dst (+)= stationary.T @ moving as one matmul instruction in a row tile of the PE array (tile_position row
/// and tile_size row: 64-row tiles at rows 0 and 64, or 32-row tiles at 0, 32, 64, 96; column tiling is not
/// modelled, so column 0 and size tile_size::pmax), optionally in FP8 double row mode (nki.isa.nc_matmul).
/// `accumulate` as in the plain nc_matmul.
void nc_matmul(const Tile &dst, const Operand &stationary, const Operand &moving, bool accumulate,
               PeTile tile_position, PeTile tile_size, matmul_perf_mode perf_mode = matmul_perf_mode::none,
               Loc loc = Loc::current());

/// dst[f, p] = data[p, f] (nki.isa.nc_transpose): on the tensor engine (data in SBUF, dst in PSUM, up to
/// [128, 128]) or the vector engine (one 32x32 block, SBUF or PSUM). Without `engine`, the tensor engine when
/// data is in SBUF and dst in PSUM, else the vector engine.
void nc_transpose(const Tile &dst, const Operand &data, std::optional<Engine> engine = std::nullopt,
                  Loc loc = Loc::current());

/// dst[f, p] = src[p, f] on a DMA queue, for 2-byte dtypes (nki.isa.dma_transpose with axes (1, 0)). Here both
/// are SBUF tiles: the on-chip form (an HBM source would be a load; NKI's dge_mode is not modelled).
void dma_transpose(const Tile &dst, const Operand &src, Loc loc = Loc::current());

} // namespace tsr::isa
