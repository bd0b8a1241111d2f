#pragma once
/// \file
/// What Instruction::mode means for the instructions that have one: nc_matmul's performance and row-tiling
/// mode, packed into the byte, and nc_transpose's engine form. The nc dialect prints the byte as an integer
/// (`mode = 5`); encode()/decode() here are the one place that knows the layout.

#include <cstdint>

namespace tessera::isa {

/// nc_matmul's mode (NKI nc_matmul's perf_mode, tile_position and tile_size):
///   bits 0-1  row tiling: the PE rows split into 2^bits equal row tiles (0: the whole array; 1: 2x64 on a
///             128-row array, NeuronCore-v2 on; 2: 4x32, v3 on). The target's tensor_engine.max_row_tiles says
///             how many tiles a generation allows.
///   bits 2-3  which row tile (NKI tile_position's start_row / row_size), 0 when not tiled.
///   bit  4    FP8 double row (NKI perf_mode=double_row, v3 on): the contraction runs over 2 x K rows, the
///             partition dimension and a first free dimension of size 2 of both operands.
/// Column tiling is not modelled: NKI 0.6 requires start_column = 0 and column_size = 128.
struct MatmulMode {
  static constexpr uint8_t kTilingMask = 0x3, kTileShift = 2, kTileMask = 0x3, kDoubleRowBit = 0x10;

  uint8_t rowTilesLog2 = 0; ///< 0: not tiled; the array's rows split into 1 << rowTilesLog2 tiles
  uint8_t rowTile = 0;      ///< the tile this matmul uses, < (1 << rowTilesLog2)
  bool doubleRow = false;   ///< FP8 double row performance mode

  unsigned rowTiles() const { return 1u << rowTilesLog2; }
  bool tiled() const { return rowTilesLog2 != 0; }

  uint8_t encode() const {
    return static_cast<uint8_t>((rowTilesLog2 & kTilingMask) | ((rowTile & kTileMask) << kTileShift) |
                                (doubleRow ? kDoubleRowBit : 0));
  }
  static MatmulMode decode(uint8_t mode) {
    return {.rowTilesLog2 = static_cast<uint8_t>(mode & kTilingMask),
            .rowTile = static_cast<uint8_t>((mode >> kTileShift) & kTileMask),
            .doubleRow = (mode & kDoubleRowBit) != 0};
  }
  /// Whether `mode` sets bits this layout does not define.
  static bool hasUnknownBits(uint8_t mode) {
    return (mode & ~(kTilingMask | (kTileMask << kTileShift) | kDoubleRowBit)) != 0;
  }
};

/// nc_transpose's engine form (NKI nc_transpose's `engine`). Both compute dst[f, p] = data[p, f], exactly (NKI:
/// bit-accurate from NeuronCore-v3; v2's matmul-style transpose of NaN/Inf is not modelled).
enum class TransposeForm : uint8_t {
  /// On the tensor engine, as a matmul of the data (stationary) with an identity (moving): data [P, F] in SBUF,
  /// P <= max_contraction, F <= max_stationary_free; dst [F, P] in PSUM.
  Tensor = 0,
  /// On the vector engine, one 32x32 block: data [P, F] with P, F <= vector_engine.transpose_block (32), in
  /// SBUF or PSUM; dst [F, P]. NKI documents no larger vector-engine transpose; a kernel transposes a bigger
  /// tile block by block, one instruction per block.
  Vector = 1,
};

} // namespace tessera::isa
