#pragma once
/// \file
/// The values a kernel handles: HBM tensors (kernel arguments), windows of them, and on-chip tiles in SBUF or PSUM.
/// Tiles are [partition, free]; the partition dimension comes first and holds at most tile_size::pmax rows.

#include "tessera/dsl/Index.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <string>
#include <vector>

namespace tsr {

using Shape = std::vector<int64_t>;

/// The most dimensions an HBM tensor (a kernel argument) may have: a batch, heads, and a [rows, columns] matrix,
/// and one more; the fewest is 2.
inline constexpr int kMaxHbmRank = 5;
using tessera::isa::DType;
using tessera::isa::MemSpace;

/// An on-chip tile (a buffer in SBUF or PSUM) produced by a DSL operation.
class Tile {
public:
  explicit Tile(int buffer) : buffer_(buffer) {}
  int buffer() const { return buffer_; }
  const Shape &shape() const;
  DType dtype() const;
  tessera::isa::MemSpace space() const;
  /// The number of partitions (the first dimension).
  int64_t partitions() const { return shape()[0]; }
  /// The free-dimension elements [start, start + size) of every partition of this tile, as a tile that shares
  /// this one's memory (NKI: `t[:, nl.ds(start, size)]`): it reads what was written to this tile, and writing it
  /// changes this tile. An SBUF tile, or a PSUM tile made with tsr::ndarray (e.g. transposes written side by side
  /// into one bank); not a zero-filled accumulator (tsr::psum), which matmuls accumulate into whole. `start` may depend on loop indices; every value it takes must keep the slice
  /// within the tile. The slice lives as long as this tile and the loops of `start` do.
  Tile slice(const Index &start, int64_t size, std::source_location loc = std::source_location::current()) const;
  /// Partitions [start, start + size) of this tile, every free element, as a tile that shares this one's memory
  /// (NKI: `t[start:start + size, :]`), under the same rules as `slice`. `start` is a number: a NeuronCore engine
  /// reaches an access of n partitions only from a start that is a multiple of 32 (n <= 32), of 64 (n <= 64) or 0
  /// (the compiler checks each instruction); a TPU, from a multiple of the dtype's sublane tile.
  Tile partition_slice(int64_t start, int64_t size,
                       std::source_location loc = std::source_location::current()) const;
  /// A hardware access pattern over this tile (NKI: `t.ap(pattern=[[F, n], [step, count], ...], offset=o)`, the
  /// "NKI Access Patterns" page): pattern[0] is [F, n], F this tile's free size (partitions are walked whole, as
  /// the page requires) and n the partitions; each further pair [step, count] walks the free dimension, outermost
  /// first, up to four of them. `offset` counts elements from the tile's start (o / F is the first partition,
  /// o % F the first free element); one that depends on loop indices addresses the first partition's row and
  /// must stay within it. The view's shape
  /// is [n, count_1 * ... * count_k] (its free dimensions flattened row-major; tsr::sum and tsr::max take them by
  /// number, NKI's axis). tsr::assign and tsr::copy read or write one, tsr::sum, tsr::max and the elementwise ops
  /// (+, *, tsr::exp, ...) read one, and the tsr::isa calls take one for any operand, on a NeuronCore (one engine
  /// instruction walking it); it cannot be sliced, and
  /// only a tile that is not a view takes one (as NKI's `.ap` on an `nl.ndarray`).
  Tile ap(std::vector<std::array<int64_t, 2>> pattern, const Index &offset = 0,
          std::source_location loc = std::source_location::current()) const;
  /// This tile repeated along its dimensions of size 1 into a new SBUF tile of `shape` (NKI:
  /// t.broadcast_to(shape)); tsr::broadcast_to (Broadcast.h) says how each target does it.
  Tile broadcast_to(Shape shape, std::source_location loc = std::source_location::current()) const;

private:
  int buffer_;
};

/// A window of an HBM tensor, ready to be loaded or stored: 2-D [partition, free], its rows and columns the tensor's
/// last two dimensions (its leading dimensions, if any, each fixed at one index: size 1 in the window), or their
/// transpose (transposed()).
class HbmTile {
public:
  explicit HbmTile(graph::HbmWindow window);
  const graph::HbmWindow &window() const { return window_; }
  /// The tile's shape: [rows, columns], the window's last two sizes (swapped when transposed).
  const Shape &shape() const { return shape_; }
  DType dtype() const;
  /// The window seen transposed: a [columns, rows] tile whose element (i, j) is the window's (j, i); a load of it
  /// is NKI's nl.load_transpose2d, a store into it NKI's store through out[i_f, i_p] (partition i_p walking the
  /// tensor's columns). A DMA moves it: nki.isa.dma_transpose where the NeuronCore has one (NeuronCore-v3 on, 2-byte
  /// dtypes, loads), else an element-strided dma_copy (likely slower on hardware than simulated: docs/dsl.md). A
  /// TPU's DMA cannot transpose: there the window moves as it lies and is transposed on chip, as tsr::transpose is.
  /// The window's steps must be 1, and its columns (the tile's partitions) at most tile_size::pmax.
  HbmTile transposed(std::source_location loc = std::source_location::current()) const;

private:
  graph::HbmWindow window_;
  Shape shape_;
};

/// A leading index of an N-D HBM tensor, as `x[b]` takes it: an Index (a number, a loop index, tsr::program_id)
/// with the line that wrote it, for the messages (operator[] takes one argument only).
struct LeadingIndex {
  LeadingIndex(const Index &i, std::source_location loc = std::source_location::current()) // NOLINT: implicit
      : index(i), loc(loc) {}
  LeadingIndex(int64_t i, std::source_location loc = std::source_location::current()) // NOLINT: implicit
      : index(i), loc(loc) {}
  LeadingIndex(int i, std::source_location loc = std::source_location::current()) // NOLINT: implicit
      : index(i), loc(loc) {}
  Index index;
  std::source_location loc;
};

/// A kernel argument: a tensor in HBM, [rows, columns] or N-D (up to tsr::kMaxHbmRank dimensions); or such a
/// tensor with its leading dimensions fixed at indices (x[b], x[b][h]), a view of the remaining dimensions.
class Hbm {
public:
  explicit Hbm(int tensor) : tensor_(tensor) {}
  int tensor() const { return tensor_; }
  const std::string &name() const;
  /// This view's shape: the tensor's, less the leading dimensions fixed by operator[].
  const Shape &shape() const;
  DType dtype() const;
  /// Size of dimension `d` of this view.
  int64_t dim(int d, std::source_location loc = std::source_location::current()) const;
  /// The view with its first dimension fixed at `index` (NKI: x[b]): one dimension fewer. `index` may depend on
  /// loop indices; every value it takes must lie in the dimension. Fix every leading dimension (x[b][h] of
  /// [B, H, S, D]) before taking a tile or window of the last two.
  Hbm operator[](const LeadingIndex &index) const;

  /// The block at block indices (i, j) of a tiling of this 2-D tensor (or view) into `size` blocks: rows
  /// [i*size[0], (i+1)*size[0]), columns [j*size[1], (j+1)*size[1]). Indices may be loop indices.
  HbmTile tile(const Index &i, const Index &j, Shape size,
               std::source_location loc = std::source_location::current()) const;
  /// The window with its first element at element offsets (row, col) and extent `size`.
  HbmTile window(const Index &row, const Index &col, Shape size,
                 std::source_location loc = std::source_location::current()) const;
  /// A strided window: its element (i, j) is this tensor's (row + i * step[0], col + j * step[1]), as NKI's
  /// x[r:r + n * s0:s0, c:c + m * s1:s1]. For a load or store that gathers or scatters: every other column of an
  /// image row (a stride-2 convolution), or one weight of every 3 x 3 filter. A step of 0 repeats one row (or
  /// column) along the window, a broadcast to load (NKI: x[r:r + 1, c:c + m].broadcast(0, n)): a bias row on
  /// every partition, `{0, 1}`; a load only, never a store.
  HbmTile window(const Index &row, const Index &col, Shape size, Shape step,
                 std::source_location loc = std::source_location::current()) const;

private:
  /// The leading dimensions' fixed indices and the rest of the shape (a view; both empty for the whole tensor).
  void checkTwoDimensional(const char *what, const std::source_location &loc) const;
  int tensor_;
  std::vector<graph::IndexExpr> fixed_;
  Shape rest_;
};

/// Whether an operation takes an access pattern (Tile::ap) as an operand: copies, reductions, elementwise ops and
/// the tsr::isa calls read one (one engine instruction walks it); the others need a tile.
enum class Patterns : bool { Refused, Read };

/// Anything a compute operation may be handed. Accepting HBM here (and reporting it) lets the DSL name the line
/// where an HBM tensor was passed to an engine instruction, which cannot read HBM.
class Operand {
public:
  Operand(const Tile &t, std::source_location loc = std::source_location::current()) // NOLINT: implicit
      : tile_(t.buffer()), loc_(loc) {}
  Operand(const HbmTile &t, std::source_location loc = std::source_location::current()) // NOLINT: implicit
      : hbm_(true), loc_(loc) {
    (void)t;
  }
  Operand(const Hbm &t, std::source_location loc = std::source_location::current()) // NOLINT: implicit
      : hbm_(true), loc_(loc) {
    (void)t;
  }

  /// The tile, or a tsr::Error at the user's line if this operand lives in HBM, or is an access pattern that `op`
  /// does not take. `role` names it in the message.
  Tile tile(const char *op, const char *role, Patterns patterns = Patterns::Refused) const;
  const std::source_location &loc() const { return loc_; }

private:
  int tile_ = -1;
  bool hbm_ = false;
  std::source_location loc_;
};

} // namespace tsr
