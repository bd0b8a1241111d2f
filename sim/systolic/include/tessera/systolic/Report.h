#pragma once
/// \file
/// A Result as text (`tessera systolic`) and as JSON (`--json`).

#include "tessera/systolic/Result.h"
#include "tessera/systolic/scalesim/LayerRun.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace tessera::systolic {

/// What SCALE-Sim v3 reported for the same GEMM (scalesim/GemmRun.h), or why it was not run.
struct ScaleSimOutcome {
  std::optional<scalesim::LayerReport> report;
  std::string notRun;
};

/// Runs scalesim::scaleSimGemm.
ScaleSimOutcome scaleSimOutcome(const ArrayConfig &config, const Gemm &gemm);

std::string toText(const ArrayConfig &config, const Gemm &gemm, const Result &result,
                   const ScaleSimOutcome &scalesim);

/// Keys: array, dataflow, gemm, model, mapping, folds, compute_cycles, macs, utilization, mapping_efficiency,
/// {ifmap,filter}_{sram,dram}_reads, ofmap_{sram,dram}_writes, sram_kib, scalesim (SCALE-Sim v3's report under its
/// column names, or null with scalesim_skipped saying why), and values_checked for the PE model.
nlohmann::json toJson(const ArrayConfig &config, const Gemm &gemm, const Result &result,
                      const ScaleSimOutcome &scalesim);

} // namespace tessera::systolic
