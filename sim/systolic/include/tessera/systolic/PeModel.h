#pragma once
/// \file
/// The PE-level model: every processing element, every cycle. Each PE has registers for the operand passing
/// through it (moving right), the partial sum or second operand (moving down) and the stationary value; the
/// array's edges inject SRAM data on the skewed schedule that keeps operands aligned (row i of the array starts
/// i cycles late, column j j cycles late). The model moves real values (small integers, so the sums are exact)
/// and checks the product against a plain triple loop: a skew that was off by a cycle would give a wrong C, not
/// just a wrong cycle count.
///
/// A fold ends when the last token (datum or bubble) has left the array; PEs outside the fold's slice of the GEMM
/// still pass bubbles, so every fold takes the full array's fill and drain, as in SCALE-Sim. Outputs leave the
/// bottom edge (ws, is; partial sums of K folds accumulate where they are written, as SCALE-Sim counts them: one
/// write per element per fold, no read) or are written by each PE as its last MAC completes (os; the drain of
/// results out of the array is not counted, as in SCALE-Sim). So os writes C[m0+i][n0+j] in fold cycle
/// T-1 + i + j, the first cycle it exists. SCALE-Sim's OFMAP demand writes it in T-1 + (R-1-i) + j: bottom row
/// first, as a drain from the bottom edge would, but in a full fold before the lower rows' last MACs; the totals
/// agree, and so do the per-cycle counts of full row folds, not those of partial ones.
///
/// Cost: rows * cols * computeCycles PE updates at 100-200 million a second; a 32x32 array with a 64^3 GEMM
/// takes about 4 ms (bench/SystolicBench.cpp).

#include "tessera/systolic/ArrayConfig.h"
#include "tessera/systolic/Result.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace tessera::systolic {

/// What one PE does in one cycle.
enum class PeActivity : uint8_t {
  Idle,   ///< no token here
  Load,   ///< a stationary value of the GEMM is shifting into place (ws, is)
  Mac,    ///< a useful multiply-accumulate
  Bubble, ///< a bubble passes: the PE is outside the fold's slice of the GEMM, or (ws, is load) a padding row of
          ///< a partial row fold is on its way to the bottom rows
};

/// One cycle of the array, for an observer (the animation, the SVG).
struct CycleView {
  int64_t cycle = 0;             ///< from the start of the GEMM
  int64_t fold = 0, folds = 0;   ///< 0-based fold index, in SCALE-Sim's order (column folds outer)
  int64_t rowFold = 0, colFold = 0;
  int64_t foldCycle = 0;         ///< from the start of this fold
  int64_t rows = 0, cols = 0;
  int64_t macs = 0;              ///< useful MACs this cycle
  int64_t sramReads = 0, sramWrites = 0; ///< this cycle, all operands
  const std::vector<PeActivity> *activity = nullptr; ///< rows * cols, row-major
};

struct PeModelOptions {
  /// Called after every cycle (slows the model down by the observer's cost).
  std::function<void(const CycleView &)> observer;
  /// Move real values and compare C with a reference product. Off: only tokens move (about twice as fast).
  bool checkValues = true;
};

/// Runs the GEMM on the array cycle by cycle. Throws tessera::Error on bad sizes, and (an internal bug) when a
/// product differs from the reference.
Result runPeModel(const ArrayConfig &config, const Gemm &gemm, const PeModelOptions &options = {});

} // namespace tessera::systolic
