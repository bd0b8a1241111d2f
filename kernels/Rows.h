#pragma once
/// \file
/// What the row-wise kernels share (gelu, rmsnorm, layernorm): rows go to partitions, 128 at a time, and a last
/// block of R % 128 rows is a smaller tile of its own (the DSL has no masks); a row block moves in column chunks,
/// several DMAs side by side; and a [1, C] row (gamma, beta) is broadcast to every partition.

#include "tessera/dsl/tsr.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace tessera::kernels {

/// Runs `block(start, size, prepared)` over the blocks of `size` of [0, extent): an affine_range loop over the
/// extent / size full blocks, then, after it, one block of the last extent % size (a smaller tile: the DSL has no
/// masks). `prepared` is what `prepare(size)` returned, called once per block size before that size's blocks and
/// outside the loop: tiles every block reads (gamma broadcast to `size` partitions), made once, not per block.
template <class Prepare, class Block> void forEachBlock(int64_t extent, int64_t size, Prepare prepare, Block block) {
  if (const int64_t full = extent / size; full > 0) {
    const auto prepared = prepare(size);
    for (auto i : tsr::affine_range(full)) block(i * size, size, prepared);
  }
  if (const int64_t rest = extent % size; rest > 0) {
    const auto prepared = prepare(rest);
    block(tsr::Index(extent - rest), rest, prepared);
  }
}

/// forEachBlock for blocks that read nothing prepared: `block(start, size)`.
template <class Block> void forEachBlock(int64_t extent, int64_t size, Block block) {
  forEachBlock(
      extent, size, [](int64_t) { return std::monostate{}; },
      [&](const tsr::Index &start, int64_t n, std::monostate) { block(start, n); });
}

/// Runs `body` inside a loop of one iteration, so that the tiles it makes release their memory when it ends: a
/// tile made at the top level of a kernel keeps its bytes to the kernel's end, a loop's tiles are freed when the loop
/// ends and its sibling loops reuse them (docs/compiler.md: allocation is a stack by scope). For the unrolled
/// pieces of a kernel (the last, smaller block after a loop; a kernel's sections), so that they do not all hold
/// their PSUM banks and SBUF at once. Tiles nested in a loop's body keep their bytes for the whole body either way.
template <class Body> void scoped(Body body) {
  for (auto once : tsr::affine_range(1)) {
    (void)once;
    body();
  }
}

/// The columns of one DMA of a row-wise kernel: 512 FP32 values, 2 KiB per partition, where a NeuronCore DMA
/// engine streams at 90% of its peak (docs/memory.md). A queue carries one transfer at a time and each runs on one
/// engine, a sixteenth of the core's bandwidth, so a row block moves in several transfers that run side by side.
inline constexpr int64_t kChunkColumns = 512;

/// Loads the window [rows, cols] of x at (row, col) in column chunks of kChunkColumns (the last one narrower
/// when cols is not a multiple of it), one [rows, <= 512] tile each.
std::vector<tsr::Tile> loadChunks(const tsr::Hbm &x, const tsr::Index &row, const tsr::Index &col, int64_t rows,
                                  int64_t cols);

/// Stores `chunks`, as loadChunks cut them, into the window of y at (row, col).
void storeChunks(const tsr::Hbm &y, const tsr::Index &row, const tsr::Index &col, const std::vector<tsr::Tile> &chunks);

/// The row sums of the columns `chunks` hold together (as loadChunks cut a row block): [rows, 1], FP32.
tsr::Tile rowSum(const std::vector<tsr::Tile> &chunks);

/// The reference of a row-wise softmax of x[R, C] into y (kernels/softmax.cpp, nki-tutorials/softmax.cpp), in double.
void softmaxReference(const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out);

/// The reference of a row-wise LayerNorm of x[R, C] with gamma and beta [1, C] and scalar parameter eps into y
/// (kernels/layernorm.cpp, nki-tutorials/layernorm.cpp): mean and biased variance in double, two passes.
void layerNormReference(const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out);

} // namespace tessera::kernels
