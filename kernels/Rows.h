#pragma once
/// \file
/// What the row-wise kernels share (add, gelu, rmsnorm, layernorm): rows go to partitions, 128 at a time, and a
/// last block of R % 128 rows is a smaller tile of its own (the DSL has no masks); columns are cut into chunks
/// wide enough for full-speed DMA; and a [1, C] row (gamma, beta) is broadcast to every partition.

#include "tessera/dsl/tsr.h"

#include <cstdint>
#include <variant>

namespace tessera::kernels {

/// The widest chunk of at most 2048 columns that divides n when n is a multiple of 128 (8 KiB per partition of
/// FP32, enough for full-speed DMA per TARGETS.md's >= 4 KiB advice), else all n columns.
int64_t columnChunk(int64_t n);

/// Runs `block(firstRow, rows, prepared)` for each block of an R-row tensor: an affine_range loop over the
/// R / 128 blocks of 128 rows (tsr::tile_size::pmax), then, after it, one block of the last R % 128 rows.
/// `prepared` is what `prepare(rows)` returned, called once per block height before that height's blocks and
/// outside the loop: tiles every block reads (gamma broadcast to `rows` partitions), made once, not per block.
template <class Prepare, class Block> void forEachRowBlock(int64_t R, Prepare prepare, Block block) {
  constexpr int64_t pmax = tsr::tile_size::pmax;
  if (const int64_t full = R / pmax; full > 0) {
    const auto prepared = prepare(pmax);
    for (auto i : tsr::affine_range(full)) block(i * pmax, pmax, prepared);
  }
  if (const int64_t rest = R % pmax; rest > 0) {
    const auto prepared = prepare(rest);
    block(tsr::Index(R - rest), rest, prepared);
  }
}

/// forEachRowBlock for blocks that read nothing prepared: `block(firstRow, rows)`.
template <class Block> void forEachRowBlock(int64_t R, Block block) {
  forEachRowBlock(
      R, [](int64_t) { return std::monostate{}; },
      [&](const tsr::Index &row, int64_t rows, std::monostate) { block(row, rows); });
}

/// A new [rows, C] FP32 tile whose every partition holds `row` (a [1, C] tile): the tensor engine's partition
/// broadcast (NKI's broadcast_to along partitions), ones[1, rows].T @ row, 512 columns per matmul. Exact: each
/// result is one product with 1.0. Runs on every target (the MXU on a TPU).
tsr::Tile broadcastRows(const tsr::Tile &row, int64_t rows);

} // namespace tessera::kernels
