#pragma once
/// \file
/// A layer's three operands as SCALE-Sim addresses them (`scalesim/compute/operand_matrix.py`): the im2col
/// ifmap matrix A [M x K] (row: an output pixel, column: an element of its convolution window, -1 where the
/// window runs off the ifmap), the filter matrix B [K x N] and the ofmap matrix C [M x N]. Addresses count
/// one-byte words from each operand's offset in the configuration. B and C are affine in their indices
/// (B[i][j] = filter offset + j * K + i, C[i][j] = ofmap offset + i * N + j), and so is A for a GEMM row or a 1 x 1
/// unit-stride layer (A[i][j] = ifmap offset + i * K + j); only other convolutions' A is a table.

#include "tessera/systolic/scalesim/Config.h"
#include "tessera/systolic/scalesim/Topology.h"

#include <cstdint>
#include <vector>

namespace tessera::systolic::scalesim {

struct OperandMatrices {
  int64_t m = 0, n = 0, k = 0;
  /// A, row-major [m][k] (-1: no element); empty when A is affine.
  std::vector<int64_t> ifmap;
  int64_t ifmapOffset = 0, filterOffset = 0, ofmapOffset = 0;
  /// The address range [first, end) each operand's addresses fall in, and how many distinct addresses are read.
  int64_t ifmapFirst = 0, ifmapEnd = 0, filterFirst = 0, filterEnd = 0;
  int64_t ifmapDistinct = 0, filterDistinct = 0;
};

OperandMatrices buildOperandMatrices(const Layer &layer, const Config &config);

/// Whether the layer's A needs a table (it is not a GEMM row or a 1 x 1 unit-stride layer).
bool ifmapNeedsTable(const Layer &layer);

} // namespace tessera::systolic::scalesim
