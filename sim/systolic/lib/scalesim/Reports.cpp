#include "tessera/systolic/scalesim/Reports.h"

#include <fmt/format.h>

#include <cmath>

namespace tessera::systolic::scalesim {

std::string pythonFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // fmt's shortest round-trip form matches Python's repr, which switches to an exponent at the same points
  // (below 1e-4, from 1e16), except that Python keeps ".0" on a whole number.
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

namespace {

/// SCALE-Sim's cycles in the detailed report come from float trace matrices.
std::string cycleText(int64_t cycle) { return pythonFloat(double(cycle)); }

std::string rows(const std::vector<LayerReport> &layers, const std::string &header,
                 std::string (*row)(const LayerReport &)) {
  std::string out = header + "\n";
  for (size_t i = 0; i < layers.size(); ++i) out += fmt::format("{}, {},\n", i, row(layers[i]));
  return out;
}

} // namespace

std::string computeReportCsv(const std::vector<LayerReport> &layers) {
  return rows(layers,
              "LayerID, Total Cycles (incl. prefetch), Total Cycles, Stall Cycles, Overall Util %, "
              "Mapping Efficiency %, Compute Util %,",
              [](const LayerReport &r) {
                return fmt::format("{}, {}, {}, {}, {}, {}", r.totalCyclesWithPrefetch, r.totalCycles, r.stallCycles,
                                   pythonFloat(r.overallUtilPct), pythonFloat(r.mappingEfficiencyPct),
                                   pythonFloat(r.computeUtilPct));
              });
}

std::string bandwidthReportCsv(const std::vector<LayerReport> &layers) {
  return rows(layers,
              "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, "
              "Avg FILTER DRAM BW, Avg OFMAP DRAM BW,",
              [](const LayerReport &r) {
                return fmt::format("{}, {}, {}, {}, {}, {}", pythonFloat(r.avgIfmapSramBw),
                                   pythonFloat(r.avgFilterSramBw), pythonFloat(r.avgOfmapSramBw),
                                   pythonFloat(r.avgIfmapDramBw), pythonFloat(r.avgFilterDramBw),
                                   pythonFloat(r.avgOfmapDramBw));
              });
}

std::string detailedAccessReportCsv(const std::vector<LayerReport> &layers) {
  std::string header = "LayerID, ";
  for (const char *where : {"SRAM", "DRAM"})
    for (const char *what : {"IFMAP", "Filter", "OFMAP"})
      header += fmt::format("{0} {1} Start Cycle, {0} {1} Stop Cycle, {0} {1} {2}, ", where, what,
                            std::string_view(what) == "OFMAP" ? "Writes" : "Reads");
  header.pop_back(); // SCALE-Sim's header ends "Writes," with no space
  return rows(layers, header, [](const LayerReport &r) {
    std::string out;
    for (const AccessSpan *s :
         {&r.ifmapSram, &r.filterSram, &r.ofmapSram, &r.ifmapDram, &r.filterDram, &r.ofmapDram})
      out += fmt::format("{}{}, {}, {}", out.empty() ? "" : ", ", cycleText(s->start), cycleText(s->stop), s->count);
    return out;
  });
}

std::string layerTable(const Config &config, const std::vector<LayerReport> &layers) {
  std::string out = fmt::format("{}x{} systolic array, {} ({}); SRAM {}/{}/{} KiB; {}\n", config.rows, config.cols,
                                longName(config.dataflow), shortName(config.dataflow), config.ifmapKiB,
                                config.filterKiB, config.ofmapKiB,
                                config.bandwidthMode == BandwidthMode::Calc
                                    ? std::string("CALC mode (no bandwidth limit)")
                                    : fmt::format("USER mode (DRAM words/cycle: ifmap {}, filter {}, ofmap {})",
                                                  config.ifmapBandwidth, config.filterBandwidth,
                                                  config.ofmapBandwidth));
  out += fmt::format("{:>3} {:<18} {:>17} {:>6} {:>11} {:>10} {:>10} {:>6} {:>12} {:>12} {:>12}\n", "id", "layer",
                     "GEMM M x N x K", "folds", "cycles", "stalls", "+prefetch", "util%", "DRAM ifmap", "DRAM filter",
                     "DRAM ofmap");
  int64_t cycles = 0, stalls = 0, withPrefetch = 0, ifmap = 0, filter = 0, ofmap = 0, macs = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerReport &r = layers[i];
    std::string name = r.name.size() > 18 ? r.name.substr(0, 17) + "~" : r.name;
    out += fmt::format("{:>3} {:<18} {:>17} {:>6} {:>11} {:>10} {:>10} {:>6.2f} {:>12} {:>12} {:>12}\n", i, name,
                       fmt::format("{}x{}x{}", r.m, r.n, r.k), r.folds, r.totalCycles, r.stallCycles,
                       r.totalCyclesWithPrefetch, r.overallUtilPct, r.ifmapDram.count, r.filterDram.count,
                       r.ofmapDram.count);
    cycles += r.totalCycles, stalls += r.stallCycles, withPrefetch += r.totalCyclesWithPrefetch;
    ifmap += r.ifmapDram.count, filter += r.filterDram.count, ofmap += r.ofmapDram.count, macs += r.macs;
  }
  if (layers.size() > 1)
    out += fmt::format("{:>3} {:<18} {:>17} {:>6} {:>11} {:>10} {:>10} {:>6.2f} {:>12} {:>12} {:>12}\n", "", "total",
                       "", "", cycles, stalls, withPrefetch,
                       100.0 * double(macs) / (double(cycles) * double(config.rows * config.cols)), ifmap, filter,
                       ofmap);
  return out;
}

nlohmann::json toJson(const Config &config, const std::vector<LayerReport> &layers) {
  nlohmann::json j;
  j["array"] = {{"rows", config.rows}, {"cols", config.cols}, {"dataflow", std::string(shortName(config.dataflow))}};
  j["sram_kib"] = {{"ifmap", config.ifmapKiB}, {"filter", config.filterKiB}, {"ofmap", config.ofmapKiB}};
  j["bandwidth_mode"] = config.bandwidthMode == BandwidthMode::Calc ? "CALC" : "USER";
  if (config.bandwidthMode == BandwidthMode::User)
    j["dram_words_per_cycle"] = {
        {"ifmap", config.ifmapBandwidth}, {"filter", config.filterBandwidth}, {"ofmap", config.ofmapBandwidth}};
  auto span = [](const AccessSpan &s) {
    return nlohmann::json{{"start", s.start}, {"stop", s.stop}, {"count", s.count}};
  };
  nlohmann::json list = nlohmann::json::array();
  for (const LayerReport &r : layers)
    list.push_back({{"name", r.name},
                    {"gemm", {{"m", r.m}, {"n", r.n}, {"k", r.k}}},
                    {"folds", r.folds},
                    {"macs", r.macs},
                    {"total_cycles_incl_prefetch", r.totalCyclesWithPrefetch},
                    {"total_cycles", r.totalCycles},
                    {"stall_cycles", r.stallCycles},
                    {"overall_util_pct", r.overallUtilPct},
                    {"mapping_efficiency_pct", r.mappingEfficiencyPct},
                    {"compute_util_pct", r.computeUtilPct},
                    {"sram", {{"ifmap_reads", span(r.ifmapSram)}, {"filter_reads", span(r.filterSram)},
                              {"ofmap_writes", span(r.ofmapSram)}}},
                    {"dram", {{"ifmap_reads", span(r.ifmapDram)}, {"filter_reads", span(r.filterDram)},
                              {"ofmap_writes", span(r.ofmapDram)}}},
                    {"avg_bw_words_per_cycle",
                     {{"ifmap_sram", r.avgIfmapSramBw}, {"filter_sram", r.avgFilterSramBw},
                      {"ofmap_sram", r.avgOfmapSramBw}, {"ifmap_dram", r.avgIfmapDramBw},
                      {"filter_dram", r.avgFilterDramBw}, {"ofmap_dram", r.avgOfmapDramBw}}}});
  j["layers"] = list;
  return j;
}

} // namespace tessera::systolic::scalesim
