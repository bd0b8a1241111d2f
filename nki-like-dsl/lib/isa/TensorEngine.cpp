#include "tessera/dsl/isa/TensorEngine.h"

#include "../IsaCall.h"
#include "../Recording.h"

#include "tessera/dsl/TileSize.h"
#include "tessera/isa/Modes.h"

#include <fmt/format.h>

#include <bit>

namespace tsr::isa {

using detail::fail;
using detail::IsaCall;
using detail::recordInstruction;
using tessera::isa::MatmulMode;
using tessera::isa::Opcode;
using tessera::isa::TransposeForm;

namespace {

/// NKI's tile_position and tile_size as the matmul's row tiling. NKI counts them in rows of its 128-row PE array
/// (nki.language.tile_size.pmax); the mode says which fraction of the array's rows the matmul uses, so a target
/// with another array size scales it.
MatmulMode rowTiling(PeTile position, PeTile size, int64_t contraction, const Loc &loc) {
  constexpr int64_t pmax = ::tsr::tile_size::pmax;
  MatmulMode mode;
  if (!position.set() && !size.set())
    return mode;
  if (!position.set() || !size.set())
    fail(loc, fmt::format("tsr::isa::nc_matmul: tile_{} without tile_{}", position.set() ? "position" : "size",
                          position.set() ? "size" : "position"),
         "give both, e.g. tile_position {64, 0} and tile_size {64, 128}, or neither");
  if (position.column != 0 || size.column != pmax)
    fail(loc, fmt::format("tsr::isa::nc_matmul: column tiling (tile_position column {}, tile_size column {}) is not "
                          "modelled; use column 0 and size {}",
                          position.column, size.column, pmax));
  const int64_t rows = size.row;
  constexpr int64_t kMostTiles = 4; // isa/Modes.h: the rows split into 1, 2 or 4 tiles
  if (rows <= 0 || pmax % rows != 0 || !std::has_single_bit(static_cast<uint64_t>(pmax / rows)) ||
      pmax / rows > kMostTiles)
    fail(loc, fmt::format("tsr::isa::nc_matmul: tile_size row {} is not a row tile; the {} PE rows split into tiles "
                          "of {}, {} or {} rows",
                          rows, pmax, pmax, pmax / 2, pmax / 4));
  if (position.row < 0 || position.row % rows != 0 || position.row >= pmax)
    fail(loc, fmt::format("tsr::isa::nc_matmul: tile_position row {} does not start a {}-row tile (0, {}, ...)",
                          position.row, rows, rows));
  if (contraction > rows)
    fail(loc, fmt::format("tsr::isa::nc_matmul: the contraction (partition) dimension is {}, more than the {} rows "
                          "of the row tile",
                          contraction, rows),
         "use a larger tile_size row, or split the contraction over several matmuls with accumulate");
  mode.rowTilesLog2 = static_cast<uint8_t>(std::countr_zero(static_cast<uint64_t>(pmax / rows)));
  mode.rowTile = static_cast<uint8_t>(position.row / rows);
  return mode;
}

} // namespace

void nc_matmul(const Tile &dst, const Operand &stationary, const Operand &moving, bool accumulate,
               PeTile tile_position, PeTile tile_size, matmul_perf_mode perf_mode, Loc loc) {
  const Tile stationaryTile = stationary.tile("tsr::isa::nc_matmul", "stationary", Patterns::Read);
  MatmulMode mode = rowTiling(tile_position, tile_size, stationaryTile.partitions(), loc);
  mode.doubleRow = perf_mode == matmul_perf_mode::double_row;
  IsaCall call{.dst = dst, .src0 = stationary, .src1 = moving};
  call.settings.op = Opcode::Matmul;
  call.settings.accumulate = accumulate;
  call.settings.mode = mode.encode();
  recordInstruction(call, loc);
}

void nc_transpose(const Tile &dst, const Operand &data, std::optional<Engine> engine, Loc loc) {
  const Tile source = data.tile("tsr::isa::nc_transpose", "data", Patterns::Read);
  const bool tensorShaped = source.space() == MemSpace::Sbuf && dst.space() == MemSpace::Psum;
  const Engine chosen = engine.value_or(tensorShaped ? Engine::Tensor : Engine::Vector);
  IsaCall call{.engine = chosen, .dst = dst, .src0 = data};
  call.settings.op = Opcode::Transpose;
  call.settings.mode =
      static_cast<uint8_t>(chosen == Engine::Tensor ? TransposeForm::Tensor : TransposeForm::Vector);
  recordInstruction(call, loc);
}

void dma_transpose(const Tile &dst, const Operand &src, Loc loc) {
  IsaCall call{.dst = dst, .src0 = src};
  call.settings.op = Opcode::DmaTranspose;
  recordInstruction(call, loc);
}

} // namespace tsr::isa
