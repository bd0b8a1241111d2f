#pragma once
/// \file
/// A Result as text (`tessera systolic`) and as JSON (`--json`).

#include "tessera/systolic/Result.h"
#include "tessera/systolic/scalesim/GemmRun.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tessera::systolic {

/// `scalesim`: what SCALE-Sim v3 reports for the same GEMM, or why it was not run (scalesim/GemmRun.h).
std::string toText(const ArrayConfig &config, const Gemm &gemm, const Result &result,
                   const scalesim::GemmOutcome &scalesim);

/// Keys: array, dataflow, gemm, model, mapping, folds, compute_cycles, macs, utilization, mapping_efficiency,
/// {ifmap,filter}_{sram,dram}_reads, ofmap_{sram,dram}_writes, sram_kib, scalesim (SCALE-Sim v3's report under its
/// column names, or null with scalesim_skipped saying why), and values_checked for the PE model.
nlohmann::json toJson(const ArrayConfig &config, const Gemm &gemm, const Result &result,
                      const scalesim::GemmOutcome &scalesim);

} // namespace tessera::systolic
