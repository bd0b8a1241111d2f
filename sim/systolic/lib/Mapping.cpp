#include "tessera/systolic/Mapping.h"

namespace tessera::systolic {

Mapping mapGemm(const ArrayConfig &config, const Gemm &gemm) {
  Mapping m;
  switch (config.dataflow) {
  case Dataflow::OutputStationary:
    m.spatialRows = gemm.m, m.spatialCols = gemm.n, m.temporal = gemm.k;
    m.rowDim = 'M', m.colDim = 'N', m.timeDim = 'K';
    break;
  case Dataflow::WeightStationary:
    m.spatialRows = gemm.k, m.spatialCols = gemm.n, m.temporal = gemm.m;
    m.rowDim = 'K', m.colDim = 'N', m.timeDim = 'M';
    break;
  case Dataflow::InputStationary:
    m.spatialRows = gemm.k, m.spatialCols = gemm.m, m.temporal = gemm.n;
    m.rowDim = 'K', m.colDim = 'M', m.timeDim = 'N';
    break;
  }
  m.rowFolds = ceilDiv(m.spatialRows, config.rows);
  m.colFolds = ceilDiv(m.spatialCols, config.cols);
  // os: operands meet T cycles after the skew of rows - 1 and cols - 1. ws/is add `rows` cycles to shift the
  // stationary operand in, and the partial sums cross all rows before they leave the bottom edge.
  int64_t skew = config.rows - 1 + config.cols - 1;
  m.cyclesPerFold = config.dataflow == Dataflow::OutputStationary ? m.temporal + skew
                                                                  : config.rows + m.temporal + skew;
  return m;
}

std::string_view foldCycleFormula(Dataflow dataflow) {
  return dataflow == Dataflow::OutputStationary ? "R + C + T - 2" : "2R + C + T - 2";
}

} // namespace tessera::systolic
