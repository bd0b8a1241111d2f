#pragma once
/// \file
/// One layer through SCALE-Sim v3's memory system, cycle by cycle (`scalesim/memory/
/// double_buffered_scratchpad_mem.py`): each cycle of each fold, the array's demand on the ifmap, filter and
/// ofmap SRAMs is served by their buffers (EstimatingReadBuffer in CALC mode, PrefetchReadBuffer in USER mode,
/// WriteBuffer for the ofmap), and the slowest of the three pushes every later cycle back by its stall. The
/// report has every field of SCALE-Sim's COMPUTE_REPORT, BANDWIDTH_REPORT and DETAILED_ACCESS_REPORT.

#include "tessera/systolic/scalesim/Config.h"
#include "tessera/systolic/scalesim/Topology.h"

#include <cstdint>
#include <string>

namespace tessera::systolic::scalesim {

/// First and last cycle of an operand's accesses, and how many there were.
struct AccessSpan {
  int64_t start = 0, stop = 0, count = 0;
};

struct LayerReport {
  std::string name;
  int64_t m = 0, n = 0, k = 0, folds = 0;
  int64_t macs = 0;
  // COMPUTE_REPORT
  int64_t totalCyclesWithPrefetch = 0; ///< from the first DRAM read to the last DRAM write
  int64_t totalCycles = 0;             ///< the array's cycles, stalls included (SCALE-Sim: the last cycle's index)
  int64_t stallCycles = 0;
  double overallUtilPct = 0, mappingEfficiencyPct = 0, computeUtilPct = 0;
  // DETAILED_ACCESS_REPORT (words)
  AccessSpan ifmapSram, filterSram, ofmapSram; ///< reads, reads, writes
  AccessSpan ifmapDram, filterDram, ofmapDram; ///< reads, reads, writes
  // BANDWIDTH_REPORT (words per cycle): SRAM over totalCycles, DRAM over each operand's own span
  double avgIfmapSramBw = 0, avgFilterSramBw = 0, avgOfmapSramBw = 0;
  double avgIfmapDramBw = 0, avgFilterDramBw = 0, avgOfmapDramBw = 0;
};

/// SCALE-Sim's per-cycle SRAM traces of one layer (IFMAP_SRAM_TRACE.csv and its siblings): a line per cycle, the
/// cycle it was served, then the address each array row or column asked for (-1: none).
struct SramTraces {
  std::string ifmap, filter, ofmap;
};

/// Simulates one layer; `traces`, when given, receives its SRAM traces.
LayerReport simulateLayer(const Config &config, const Layer &layer, SramTraces *traces = nullptr);

/// About how many bytes simulateLayer() allocates for the layer: the ifmap's address table, and the read buffers'
/// bookkeeping (CALC: a set number per address; USER: the prefetch orders and their sets).
int64_t memoryBytes(const Config &config, const Layer &layer);

/// The lines of the layer's demand (its stall-free cycles): one line of each SRAM trace per cycle.
int64_t demandLines(const Config &config, const Layer &layer);

} // namespace tessera::systolic::scalesim
