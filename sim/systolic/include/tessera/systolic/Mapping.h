#pragma once
/// \file
/// How a GEMM is laid onto the array, as SCALE-Sim lays it (compute/systolic_compute_{os,ws,is}.py): one GEMM
/// dimension along the array's rows (SCALE-Sim's Sr), one along its columns (Sc), and one along time (T):
///
///   dataflow | rows (Sr) | cols (Sc) | time (T)
///   ---------+-----------+-----------+---------
///   os       |     M     |     N     |    K
///   ws       |     K     |     N     |    M
///   is       |     K     |     M     |    N
///
/// When Sr > rows or Sc > cols the GEMM is cut into folds: ceil(Sr / rows) row folds times ceil(Sc / cols)
/// column folds, run one after the other (column folds outer, row folds inner). Each fold takes the whole array's
/// fill and drain, used or not:
///   ws, is:  rows (load the stationary operand) + T + (rows - 1) + (cols - 1)  =  2R + C + T - 2 cycles
///   os:      T + (rows - 1) + (cols - 1)                                       =   R + C + T - 2 cycles

#include "tessera/systolic/ArrayConfig.h"

namespace tessera::systolic {

/// ceil(a / b) for a >= 0, b > 0: folds of a dimension, lines of a buffer.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Mapping {
  int64_t spatialRows = 0;   ///< Sr: the GEMM dimension along the array's rows
  int64_t spatialCols = 0;   ///< Sc: along the columns
  int64_t temporal = 0;      ///< T: along time
  char rowDim = '?', colDim = '?', timeDim = '?'; ///< which of 'M', 'N', 'K' each is
  int64_t rowFolds = 0, colFolds = 0;
  int64_t cyclesPerFold = 0;

  int64_t folds() const { return rowFolds * colFolds; }
  int64_t computeCycles() const { return folds() * cyclesPerFold; }
};

/// The mapping of `gemm` onto `config`'s array. Call validate() first.
Mapping mapGemm(const ArrayConfig &config, const Gemm &gemm);

/// "2R + C + T - 2" or "R + C + T - 2".
std::string_view foldCycleFormula(Dataflow dataflow);

} // namespace tessera::systolic
