#pragma once
/// \file
/// A layer's three operands as SCALE-Sim addresses them (`scalesim/compute/operand_matrix.py`): the im2col
/// ifmap matrix A [M x K] (row: an output pixel, column: an element of its convolution window, -1 where the
/// window runs off the ifmap), the filter matrix B [K x N] and the ofmap matrix C [M x N]. Addresses count
/// one-byte words from each operand's offset in the configuration.

#include "tessera/systolic/scalesim/Config.h"
#include "tessera/systolic/scalesim/Topology.h"

#include <cstdint>
#include <vector>

namespace tessera::systolic::scalesim {

struct OperandMatrices {
  int64_t m = 0, n = 0, k = 0;
  std::vector<int64_t> ifmap;  ///< A, row-major [m][k]; -1: no element
  std::vector<int64_t> filter; ///< B, row-major [k][n]
  std::vector<int64_t> ofmap;  ///< C, row-major [m][n]
  /// The address range [first, end) each operand's addresses fall in.
  int64_t ifmapFirst = 0, ifmapEnd = 0, filterFirst = 0, filterEnd = 0;
};

OperandMatrices buildOperandMatrices(const Layer &layer, const Config &config);

} // namespace tessera::systolic::scalesim
