#pragma once
/// \file
/// An access pattern over one row of a tile (Tile::ap's free dimensions) as a TPU vector unit walks it: a window of
/// the row reshaped into a row-major box, indexed, and transposed into the pattern's order. A TPU loads VMEM in
/// whole (sublane, lane) tiles, so another order than the row's own is a relayout of the loaded vector; this is
/// the form of it the real TPU compiler compiles (libtpu's Mosaic: `x.reshape(P, 8, 12).transpose(0, 2, 1)`, a
/// reshape and an index for a strided walk; docs/dsl.md, "Access patterns"), and it refuses a strided slice. The
/// TPU legalisation (which patterns a TPU target accepts) and the Pallas emitter (how it writes them) both use it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tessera::isa {

/// A pattern's offset as it moves with loops: constant + sum(coefficient x i), i in [0, trips) for each term.
struct MovingOffset {
  int64_t constant = 0;
  std::vector<std::pair<int64_t, int64_t>> terms; ///< (coefficient, trips), in the caller's order
};

/// A pattern as a relayout of a window of its row:
///   row[start, start + span()).reshape(box sizes)[index of each box dimension].transpose(into the pattern's order)
/// Element (i_0, ..., i_k) of the pattern (its walked dimensions, outermost first) is element
/// start + sum(stride_b x (first_b + i_d)) of the row, b = walk[d].
struct RowRelayout {
  /// One dimension of the box, outermost first; its stride in the row is the product of the sizes inside it.
  struct Dim {
    int64_t size = 1;
    int64_t stride = 1;
    int64_t first = 0;   ///< the first index taken (at the offset's constant)
    int64_t count = 0;   ///< how many are taken; 0: none of the pattern's dimensions walks it, it is indexed at first
    /// How `first` moves with the offset's terms: (term, multiplier): first + sum(multiplier x i_term).
    std::vector<std::pair<std::size_t, int64_t>> moves;
  };
  int64_t start = 0; ///< the window's first element at the offset's constant
  std::vector<std::pair<std::size_t, int64_t>> startMoves; ///< how start moves: (term, elements per iteration)
  std::vector<Dim> box;
  std::vector<std::size_t> walk; ///< walk[d]: the box dimension the pattern's d-th walked dimension indexes

  int64_t span() const;
  /// Whether it is the window itself in the row's order (no reshape, index or transpose needed).
  bool isWindow() const;
  /// Whether every element of the window is walked exactly once (a permutation of it): the only form that can be
  /// written back as a whole window.
  bool isPermutation() const;
  /// The arrays of `rows` rows the relayout materialises, rows first: the window reshaped into the box, and the
  /// walked dimensions transposed into the pattern's order when that is not the box's (none for a window). A TPU
  /// lays each out in (sublane, lane) tiles of its last two dimensions: what its cost and VMEM are counted in.
  std::vector<std::vector<int64_t>> intermediates(int64_t rows) const;
  /// The VMEM those arrays take for `rows` rows: FP32 in (sublanes, lanes) tiles (paddedVregBytes of each), where
  /// Mosaic keeps them while the statement that reads or writes the pattern runs.
  int64_t vmemBytes(int64_t rows, int64_t sublanes, int64_t lanes) const;
};

/// The vregs of a 32-bit array of `shape` laid out in (sublanes, lanes) tiles of its last two dimensions (a 1-D
/// shape is one row): shape[0] x ... x ceil(shape[k-2] / sublanes) x ceil(shape[k-1] / lanes).
int64_t paddedVregs(std::span<const int64_t> shape, int64_t sublanes, int64_t lanes);
/// The bytes of those vregs: what such an FP32 array takes in VMEM.
int64_t paddedVregBytes(std::span<const int64_t> shape, int64_t sublanes, int64_t lanes);

/// What a TPU materialises to reduce each of `rows` rows of `cols` elements into `groups` sums of consecutive
/// elements (jnp's `x.reshape(-1, groups, cols / groups)`, like a relayout's box): one [rows, groups, cols / groups]
/// array, or none for a single group.
std::vector<std::vector<int64_t>> groupedReductionArrays(int64_t rows, int64_t cols, int64_t groups);

/// Why a pattern has no relayout: what is wrong (`why`, in the pattern's terms) and of which kind, for the remedy.
struct RelayoutRefusal {
  enum class Kind {
    Repeats,     ///< a step of 0 over more than one element (a broadcast)
    Backwards,   ///< a negative step
    Steps,       ///< two equal steps, or steps that do not divide one another: not a reshape of the row
    Crosses,     ///< an index (at some iteration of the offset's loops) crosses into the next group
    PastTheRow,  ///< the window the relayout reshapes does not fit the row
  };
  Kind kind;
  std::string why;
};

/// The largest step of a pattern's dimensions that walk more than one element (1 when none does): its relayout's
/// window is a multiple of it, and an offset moved by multiples of it moves only the window.
int64_t outermostStep(std::span<const int64_t> freePattern);

/// The relayout of a pattern (flattened [step, count] pairs of free dimensions, outermost first, as
/// Tile::ap's after its partition pair) at `offset` in rows of `rowSize` elements; or, when it has none, why.
/// A pattern has one when its steps (of the dimensions walking more than one element) are distinct, positive and
/// each divides the one outside it, every offset term moves one box dimension (its coefficient a multiple of that
/// dimension's stride), and the indices stay within the box and the window within the row at every iteration.
std::variant<RowRelayout, RelayoutRefusal> rowRelayout(std::span<const int64_t> freePattern,
                                                       const MovingOffset &offset, int64_t rowSize);

} // namespace tessera::isa
