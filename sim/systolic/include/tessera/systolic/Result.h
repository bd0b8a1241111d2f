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

} // namespace tessera::systolic
