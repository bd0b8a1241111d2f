#include "tessera/systolic/Report.h"

#include <fmt/format.h>

namespace tessera::systolic {

std::string toText(const ArrayConfig &config, const Gemm &gemm, const Result &result,
                   const scalesim::GemmOutcome &scalesim) {
  const Mapping &mp = result.mapping;
  std::string out;
  out += fmt::format("{}x{} systolic array, {} ({}); GEMM M={} N={} K={}; {} model\n", config.rows, config.cols,
                     longName(config.dataflow), shortName(config.dataflow), gemm.m, gemm.n, gemm.k,
                     result.model == "pe" ? "PE" : "fold");
  out += fmt::format("mapping     rows <- {}={}, cols <- {}={}, time <- {}={}\n", mp.rowDim, mp.spatialRows,
                     mp.colDim, mp.spatialCols, mp.timeDim, mp.temporal);
  out += fmt::format("folds       {} row x {} col = {}, {} cycles each ({})\n", mp.rowFolds, mp.colFolds, mp.folds(),
                     mp.cyclesPerFold, foldCycleFormula(config.dataflow));
  out += fmt::format("compute     {} cycles, {} MACs, utilization {:.2f}%, mapping efficiency {:.2f}%\n",
                     result.computeCycles, result.macs, 100 * result.utilization, 100 * result.mappingEfficiency);
  out += fmt::format("accesses    {:>12} {:>12} {:>12} {:>12}   (elements; SRAM {}/{}/{} KiB{})\n", "SRAM reads",
                     "SRAM writes", "DRAM reads", "DRAM writes", config.sramKiB[0], config.sramKiB[1],
                     config.sramKiB[2],
                     config.sramKiB == kDefaultSramKiB ? ", SCALE-Sim's google.cfg: --sram-kib I,F,O for yours" : "");
  auto row = [&](std::string_view name, const OperandTraffic &t) {
    out += fmt::format("  {:<9} {:>12} {:>12} {:>12} {:>12}\n", name, t.sramReads, t.sramWrites, t.dramReads,
                       t.dramWrites);
  };
  row("ifmap A", result.ifmap);
  row("filter B", result.filter);
  row("ofmap C", result.ofmap);
  if (scalesim.report) {
    const scalesim::LayerReport &s = *scalesim.report;
    out += fmt::format("SCALE-Sim   v3 CALC: Total Cycles {} ({} incl. prefetch), Overall Util {:.2f}%, Compute Util "
                       "{:.2f}%, SRAM OFMAP Writes {}, DRAM OFMAP Writes {} (its conventions: docs/systolic.md)\n",
                       s.totalCycles, s.totalCyclesWithPrefetch, s.overallUtilPct, s.computeUtilPct,
                       s.ofmapSram.count, s.ofmapDram.count);
  } else {
    out += fmt::format("SCALE-Sim   {}\n", scalesim.notRun);
  }
  if (result.valuesChecked) out += "values      every element of C equals the reference product\n";
  return out;
}

nlohmann::json toJson(const ArrayConfig &config, const Gemm &gemm, const Result &result,
                      const scalesim::GemmOutcome &scalesim) {
  const Mapping &mp = result.mapping;
  nlohmann::json j = {
      {"ok", true},
      {"array", {{"rows", config.rows}, {"cols", config.cols}}},
      {"dataflow", std::string(shortName(config.dataflow))},
      {"gemm", {{"M", gemm.m}, {"N", gemm.n}, {"K", gemm.k}}},
      {"model", result.model},
      {"mapping",
       {{"rows", std::string(1, mp.rowDim)},
        {"cols", std::string(1, mp.colDim)},
        {"time", std::string(1, mp.timeDim)},
        {"Sr", mp.spatialRows},
        {"Sc", mp.spatialCols},
        {"T", mp.temporal}}},
      {"folds", {{"row", mp.rowFolds}, {"col", mp.colFolds}, {"total", mp.folds()}, {"cycles_each", mp.cyclesPerFold}}},
      {"compute_cycles", result.computeCycles},
      {"macs", result.macs},
      {"utilization", result.utilization},
      {"mapping_efficiency", result.mappingEfficiency},
      {"ifmap_sram_reads", result.ifmap.sramReads},
      {"filter_sram_reads", result.filter.sramReads},
      {"ofmap_sram_writes", result.ofmap.sramWrites},
      {"ifmap_dram_reads", result.ifmap.dramReads},
      {"filter_dram_reads", result.filter.dramReads},
      {"ofmap_dram_writes", result.ofmap.dramWrites},
      {"sram_kib", {{"ifmap", config.sramKiB[0]}, {"filter", config.sramKiB[1]}, {"ofmap", config.sramKiB[2]}}},
  };
  if (scalesim.report) {
    j["scalesim"] = scalesim::scaleSimColumns(*scalesim.report);
    j["scalesim"]["version"] = "3.0.0";
    j["scalesim"]["InterfaceBandwidth"] = "CALC";
  } else {
    j["scalesim"] = nullptr;
    j["scalesim_skipped"] = scalesim.notRun;
  }
  if (result.model == "pe") j["values_checked"] = result.valuesChecked;
  return j;
}

} // namespace tessera::systolic
