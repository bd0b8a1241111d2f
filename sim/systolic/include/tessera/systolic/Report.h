#pragma once
/// \file
/// A Result as text (`tessera systolic`) and as JSON (`--json`).

#include "tessera/systolic/Result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace tessera::systolic {

std::string toText(const ArrayConfig &config, const Gemm &gemm, const Result &result);

/// Keys: array, dataflow, gemm, model, mapping, folds, compute_cycles, macs, utilization, mapping_efficiency,
/// {ifmap,filter}_{sram,dram}_reads, ofmap_{sram,dram}_writes, sram_kib, scalesim (toScaleSimReport), and
/// values_checked for the PE model.
nlohmann::json toJson(const ArrayConfig &config, const Gemm &gemm, const Result &result);

} // namespace tessera::systolic
