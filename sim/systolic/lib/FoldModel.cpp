#include "tessera/systolic/FoldModel.h"

#include "tessera/systolic/ReadBuffer.h"

#include <algorithm>

namespace tessera::systolic {

namespace {

/// Sizes of the blocks a dimension of `extent` is cut into by folds of `tile`, each times `other`.
std::vector<int64_t> blockSizes(int64_t extent, int64_t tile, int64_t other) {
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < extent; start += tile) sizes.push_back(std::min(tile, extent - start) * other);
  return sizes;
}

} // namespace

Result runFoldModel(const ArrayConfig &config, const Gemm &gemm) {
  validate(config, gemm);
  Result r;
  r.model = "fold";
  r.mapping = mapGemm(config, gemm);
  const Mapping &mp = r.mapping;
  const int64_t M = gemm.m, N = gemm.n, K = gemm.k, Fr = mp.rowFolds, Fc = mp.colFolds;
  r.computeCycles = mp.computeCycles();
  r.macs = gemm.macs();
  // The folds tile Sr x Sc exactly once, so the PEs they use add up to Sr * Sc.
  r.usedPeFolds = mp.spatialRows * mp.spatialCols;
  double peCycles = double(r.computeCycles) * double(config.rows) * double(config.cols);
  r.utilization = double(r.macs) / peCycles;
  r.mappingEfficiency = double(r.usedPeFolds) / (double(mp.folds()) * double(config.rows) * double(config.cols));

  // Reads at the array's edges: each fold reads its slice of each operand once. The streams' shapes (the order
  // of folds: column folds outer, row folds inner) decide how often DRAM is read behind them.
  const int64_t ifmapEpoch = epochFetches(config.sramKiB[0]), filterEpoch = epochFetches(config.sramKiB[1]);
  switch (config.dataflow) {
  case Dataflow::OutputStationary:
    // A's row blocks in turn, once per column fold; B's column blocks each read Fr times in a row.
    r.ifmap.sramReads = Fc * M * K;
    r.filter.sramReads = Fr * K * N;
    r.ofmap.sramWrites = M * N;
    r.ifmap.dramReads = dramReadsOfRounds(M * K, Fc, ifmapEpoch);
    r.filter.dramReads = dramReadsOfRepeatedBlocks(blockSizes(N, config.cols, K), Fr, filterEpoch);
    break;
  case Dataflow::WeightStationary:
    // A's K blocks in turn, once per column fold; each block of B is loaded once; one partial C per K fold.
    r.ifmap.sramReads = Fc * M * K;
    r.filter.sramReads = K * N;
    r.ofmap.sramWrites = Fr * M * N;
    r.ifmap.dramReads = dramReadsOfRounds(M * K, Fc, ifmapEpoch);
    r.filter.dramReads = K * N;
    break;
  case Dataflow::InputStationary:
    // Each block of A is loaded once; B's K blocks in turn, once per column fold; one partial C per K fold.
    r.ifmap.sramReads = M * K;
    r.filter.sramReads = Fc * K * N;
    r.ofmap.sramWrites = Fr * M * N;
    r.ifmap.dramReads = M * K;
    r.filter.dramReads = dramReadsOfRounds(K * N, Fc, filterEpoch);
    break;
  }
  r.ofmap.dramWrites = r.ofmap.sramWrites;
  return r;
}

} // namespace tessera::systolic
