#include "tessera/systolic/scalesim/GemmRun.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>

namespace tessera::systolic::scalesim {

Config calcConfig(const ArrayConfig &config) {
  Config c;
  c.runName = "gemm";
  c.rows = config.rows, c.cols = config.cols, c.dataflow = config.dataflow;
  c.ifmapKiB = config.sramKiB[0], c.filterKiB = config.sramKiB[1], c.ofmapKiB = config.sramKiB[2];
  c.bandwidthMode = BandwidthMode::Calc;
  return c;
}

Layer gemmLayer(const Gemm &gemm) {
  Layer layer;
  layer.name = "gemm";
  layer.ifmapHeight = gemm.m, layer.ifmapWidth = gemm.k, layer.filterHeight = 1, layer.filterWidth = gemm.k;
  layer.channels = 1, layer.filters = gemm.n;
  return layer;
}

GemmOutcome scaleSimGemm(const ArrayConfig &config, const Gemm &gemm) {
  const Config c = calcConfig(config);
  const Layer layer = gemmLayer(gemm);
  if (const int64_t lines = demandLines(c, layer); lines > kMaxGemmDemandLines)
    return {std::nullopt, fmt::format("not run: {} cycles to simulate one by one (the limit is 2^26)", lines)};
  if (const int64_t bytes = memoryBytes(c, layer); bytes > kMaxGemmBytes)
    return {std::nullopt, fmt::format("not run: it would take {} MiB of memory (the limit is 2 GiB)", bytes >> 20)};
  try {
    return {simulateLayer(c, layer), ""};
  } catch (const Error &e) {
    return {std::nullopt, "not run: " + e.message()}; // a corner SCALE-Sim fails on too: the models stand alone
  }
}

nlohmann::json scaleSimColumns(const LayerReport &r) {
  nlohmann::json j = {{"Total Cycles (incl. prefetch)", r.totalCyclesWithPrefetch},
                      {"Total Cycles", r.totalCycles},
                      {"Stall Cycles", r.stallCycles},
                      {"Overall Util %", r.overallUtilPct},
                      {"Mapping Efficiency %", r.mappingEfficiencyPct},
                      {"Compute Util %", r.computeUtilPct}};
  auto span = [&](const char *where, const char *what, const char *count, const AccessSpan &s) {
    j[fmt::format("{} {} Start Cycle", where, what)] = s.start;
    j[fmt::format("{} {} Stop Cycle", where, what)] = s.stop;
    j[fmt::format("{} {} {}", where, what, count)] = s.count;
  };
  span("SRAM", "IFMAP", "Reads", r.ifmapSram);
  span("SRAM", "Filter", "Reads", r.filterSram);
  span("SRAM", "OFMAP", "Writes", r.ofmapSram);
  span("DRAM", "IFMAP", "Reads", r.ifmapDram);
  span("DRAM", "Filter", "Reads", r.filterDram);
  span("DRAM", "OFMAP", "Writes", r.ofmapDram);
  j["Avg IFMAP SRAM BW"] = r.avgIfmapSramBw;
  j["Avg FILTER SRAM BW"] = r.avgFilterSramBw;
  j["Avg OFMAP SRAM BW"] = r.avgOfmapSramBw;
  j["Avg IFMAP DRAM BW"] = r.avgIfmapDramBw;
  j["Avg FILTER DRAM BW"] = r.avgFilterDramBw;
  j["Avg OFMAP DRAM BW"] = r.avgOfmapDramBw;
  return j;
}

} // namespace tessera::systolic::scalesim
