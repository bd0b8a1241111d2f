#include "tessera/systolic/Result.h"

namespace tessera::systolic {

ScaleSimReport toScaleSimReport(const ArrayConfig &config, const Gemm &gemm, const Result &result) {
  const Mapping &mp = result.mapping;
  const double peCount = double(config.rows) * double(config.cols);
  ScaleSimReport s;
  // memory/double_buffered_scratchpad_mem.py: total_cycles = the cycle at which the last ofmap row is served,
  // counted from 0.
  s.totalCycles = result.computeCycles - 1;
  // single_layer_sim.py: num_compute * 100 / (total_cycles * num_mac_unit).
  s.overallUtilPct = s.totalCycles > 0 ? double(result.macs * 100) / (double(s.totalCycles) * peCount) : 0.0;
  s.mappingEfficiencyPct = result.mappingEfficiency * 100;
  // compute/systolic_compute_*.py: the mean over folds of used PEs * T / (PEs * cycles_this_fold), where
  // cycles_this_fold = rows + cols - 1 of one fold's demand matrix: the fold's length for os, but for ws and is
  // the filter/ifmap matrix before its skew, cols - 1 cycles longer than the fold.
  int64_t foldCycles = mp.cyclesPerFold + (config.dataflow == Dataflow::OutputStationary ? 0 : config.cols - 1);
  s.computeUtilPct = double(result.usedPeFolds) * double(mp.temporal) * 100 /
                     (peCount * double(foldCycles) * double(mp.folds()));
  s.ifmapSramReads = result.ifmap.sramReads;
  s.filterSramReads = result.filter.sramReads;
  // compute/systolic_compute_os.py adds the shape of each fold's (rows x cols) output block to the write count.
  s.ofmapSramWrites = result.ofmap.sramWrites +
                      (config.dataflow == Dataflow::OutputStationary ? mp.folds() * (config.rows + config.cols) : 0);
  s.ifmapDramReads = result.ifmap.dramReads;
  s.filterDramReads = result.filter.dramReads;
  s.ofmapDramWrites = result.ofmap.dramWrites;
  (void)gemm;
  return s;
}

} // namespace tessera::systolic
