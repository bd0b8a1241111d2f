#pragma once
/// \file
/// How SCALE-Sim v3 lays a layer's GEMM onto the array, fold by fold, as the demand its compute model puts on
/// each SRAM every cycle (`scalesim/compute/systolic_compute_{ws,os,is}.py`): column folds outer, row folds
/// inner; in each fold every operand is a block of its matrix, padded to the array, with the gap rows SCALE-Sim
/// puts before and after it, and skewed (row i a cycle later than row i - 1) where it streams. A fold lasts
/// 2R + C + T - 2 cycles (ws, is) or R + C + T - 2 (os). Nothing is materialised: line l of a fold is computed
/// when it is asked for.

#include "tessera/systolic/Mapping.h"
#include "tessera/systolic/scalesim/Config.h"
#include "tessera/systolic/scalesim/OperandMatrices.h"

#include <array>
#include <cstdint>
#include <vector>

namespace tessera::systolic::scalesim {

enum Operand { kIfmap = 0, kFilter = 1, kOfmap = 2 };

/// One operand's demand in one fold: data row r of the block (r in [rowLo, rows)), column c (c < cols) is wanted
/// on line `prefix + r` of the fold, plus c when the block is skewed. Its address is `matrix[i]` (-1: none) for
/// i = base + r * rowStride + c * colStride, or `i + offset` itself when there is no table (the operand is affine).
struct Stream {
  const int64_t *matrix = nullptr;
  int64_t base = 0, rowStride = 0, colStride = 0, offset = 0;
  int64_t prefix = 0, rowLo = 0, rows = 0, cols = 0;
  bool skewed = false;
  int64_t width = 0; ///< the array's rows or columns the operand enters along, empty slots included

  /// The address wanted on fold line `line` in column c, or -1.
  int64_t at(int64_t line, int64_t c) const;
  /// Writes the addresses wanted on fold line `line` to `out` (room for `width`), in the order of the array's
  /// columns (SCALE-Sim's order), leaving out the empty slots; returns how many.
  int64_t line(int64_t line, int64_t *out) const;
  /// How many addresses line(`line`) gives, for an operand without a table.
  int64_t count(int64_t line) const;
  /// Whether line(`line`) gives any address.
  bool any(int64_t line) const;
  /// Calls visit(address) for each address line(`line`) gives, in order; returns how many.
  template <typename Visit> int64_t forEach(int64_t line, Visit &&visit) const;

private:
  /// The columns [lo, hi) a skewed block fills on `line`, or all of them for a stationary block's data rows.
  void columns(int64_t line, int64_t &lo, int64_t &hi) const;
  /// The index of line `line`'s column `lo` and the step from one column to the next.
  int64_t indexOf(int64_t line, int64_t lo) const {
    return base + (line - prefix - (skewed ? lo : 0)) * rowStride + lo * colStride;
  }
  int64_t step() const { return colStride - (skewed ? rowStride : 0); } // a column right is a row up, skewed
};

template <typename Visit> int64_t Stream::forEach(int64_t line, Visit &&visit) const {
  int64_t lo = 0, hi = 0;
  columns(line, lo, hi);
  if (hi <= lo) return 0;
  int64_t i = indexOf(line, lo);
  const int64_t d = step();
  if (!matrix) {
    for (int64_t c = lo; c < hi; ++c, i += d) visit(i + offset);
    return hi - lo;
  }
  int64_t n = 0;
  for (int64_t c = lo; c < hi; ++c, i += d)
    if (const int64_t v = matrix[i]; v != -1) visit(v), ++n;
  return n;
}

struct Fold {
  std::array<Stream, 3> streams; ///< indexed by Operand
  int64_t usedRows = 0, usedCols = 0; ///< the PEs the fold's block covers
};

class FoldPlan {
public:
  FoldPlan(const Config &config, const OperandMatrices &mats);

  int64_t foldCount() const { return mapping_.folds(); }
  int64_t foldLines() const { return mapping_.cyclesPerFold; }
  /// Fold `index` (column folds outer, row folds inner).
  Fold fold(int64_t index) const;

  /// SCALE-Sim's SRAM request counts (its report's SRAM IFMAP Reads, Filter Reads, OFMAP Writes), which count
  /// the empty slots of a block as requests and add rows + cols per fold to the os ofmap writes.
  int64_t sramRequests(Operand op) const { return requests_[op]; }
  /// Averages over folds, in [0, 1], summed as SCALE-Sim sums them.
  double mappingEfficiency() const { return mappingEfficiency_; }
  double computeUtilization() const { return computeUtilization_; }

  /// USER mode: the order in which the ifmap (or filter) read buffer prefetches from DRAM, with SCALE-Sim's
  /// empty slots (-1) left in (they count towards its prefetch lines).
  std::vector<int64_t> prefetchOrder(Operand op) const;

private:
  const Config &config_;
  const OperandMatrices &mats_;
  Mapping mapping_; ///< the GEMM dimensions along the array's rows (Sr), its columns (Sc) and time (T); the folds
  std::array<int64_t, 3> requests_{};
  double mappingEfficiency_ = 0, computeUtilization_ = 0;
};

} // namespace tessera::systolic::scalesim
