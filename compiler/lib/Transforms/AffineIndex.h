#pragma once
/// \file
/// Internal to the compiler: an index of the tile dialect (a window's start, a view's offset) as an affine function
/// of the iterations of the loops around it. The tile dialect computes indices with arith ops on scf.for induction
/// variables; the passes that reason about windows before the loops are unrolled (tile-legalize-for-tpu's DMA
/// alignment, tpu-plan-pallas' blocks and dynamic offsets, the export of a kernel's loops) read them through this one
/// analysis.

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace tessera::compiler {

/// constant + sum of coefficient x iteration, where a loop's iteration is 0, 1, ... (an induction variable
/// `lb + step * iteration` is folded into the coefficients and the constant).
struct AffineIndex {
  /// (loop, coefficient), at most one per loop, none zero, in the order the loops were first met.
  llvm::SmallVector<std::pair<mlir::scf::ForOp, int64_t>, 2> terms;
  int64_t constant = 0;

  bool isConstant() const { return terms.empty(); }
  /// The coefficient of `loop`'s iteration (0 when it does not appear).
  int64_t coefficient(mlir::scf::ForOp loop) const;
  /// The value modulo `m` (m > 0) at every iteration, when every coefficient is a multiple of m.
  std::optional<int64_t> residue(int64_t m) const;
  /// The largest power of two, up to `limit`, that divides every coefficient and the constant (1 when none).
  int64_t alignment(int64_t limit) const;
  /// The least and the greatest value over every iteration of the loops; nullopt when a loop's trip count is not
  /// a constant.
  std::optional<std::pair<int64_t, int64_t>> range() const;

  AffineIndex &operator+=(const AffineIndex &o);
  AffineIndex &operator*=(int64_t k);
};

/// `v` as an affine function of its loops' iterations: constants, sums, differences and products by a constant of
/// such values, and induction variables of scf.for loops with constant lower bound and step. nullopt otherwise.
std::optional<AffineIndex> affineIndexOf(mlir::Value v);

/// `v` modulo `m` (m > 0) at every iteration, when its arithmetic says: affine parts by their residues, and floor
/// divisions by constants (arith.floordivsi: a loop index divided in the kernel, tsr::Index's / and %) where a
/// multiple of m multiplies them. nullopt otherwise.
std::optional<int64_t> residueOf(mlir::Value v, int64_t m);

/// The constant trip count of `loop`, when its bounds and step are constants (0 for an empty loop).
std::optional<int64_t> tripCountOf(mlir::scf::ForOp loop);

} // namespace tessera::compiler
