#pragma once
/// \file
/// What a model of the array reports for one GEMM. Both models (PeModel.h, FoldModel.h) fill the same struct and
/// agree field for field; tests/unit/systolic/ModelAgreementTest.cpp checks it.

#include "tessera/systolic/ArrayConfig.h"
#include "tessera/systolic/Mapping.h"

#include <cstdint>
#include <string>

namespace tessera::systolic {

/// Accesses to one operand's SRAM and, behind it, DRAM (in elements).
struct OperandTraffic {
  int64_t sramReads = 0, sramWrites = 0;
  int64_t dramReads = 0, dramWrites = 0;

  bool operator==(const OperandTraffic &) const = default;
};

struct Result {
  std::string model;            ///< "pe" or "fold"
  Mapping mapping;
  int64_t computeCycles = 0;    ///< all folds, back to back, stall-free
  int64_t macs = 0;             ///< useful multiply-accumulates: M * N * K
  /// PE-folds that did useful work, summed over folds (each fold: the PEs its slice of the GEMM covers).
  int64_t usedPeFolds = 0;
  /// macs / (computeCycles * rows * cols): the share of PE-cycles doing useful work.
  double utilization = 0;
  /// usedPeFolds / (folds * rows * cols): the share of the array a fold covers, on average over folds.
  double mappingEfficiency = 0;
  OperandTraffic ifmap, filter, ofmap; ///< A, B, C
  /// PE model only: every output element equals the reference product (the model moves real values).
  bool valuesChecked = false;
};

/// The numbers SCALE-Sim 2.0.2 prints for the same array, GEMM and SRAM sizes (COMPUTE_REPORT.csv and
/// DETAILED_ACCESS_REPORT.csv in CALC mode), derived from a Result. Three follow conventions of SCALE-Sim's own
/// (docs/systolic.md, "Where the counts differ"):
///  - Total Cycles is the index of the last cycle, computeCycles - 1;
///  - Compute Util averages per-fold ratios whose ws/is fold length is counted cols - 1 cycles longer;
///  - os SRAM OFMAP Writes adds rows + cols per fold to the M * N outputs.
/// DRAM OFMAP Writes can also exceed ours when the ofmap SRAM drains while the array runs (padding of partly
/// filled write lines is counted as data); that one depends on SCALE-Sim's buffer timing and is not derived here.
struct ScaleSimReport {
  int64_t totalCycles = 0;
  double overallUtilPct = 0, mappingEfficiencyPct = 0, computeUtilPct = 0;
  int64_t ifmapSramReads = 0, filterSramReads = 0, ofmapSramWrites = 0;
  int64_t ifmapDramReads = 0, filterDramReads = 0, ofmapDramWrites = 0;
};

ScaleSimReport toScaleSimReport(const ArrayConfig &config, const Gemm &gemm, const Result &result);

} // namespace tessera::systolic
