#pragma once
/// \file
/// One GEMM of `tessera systolic --gemm` as SCALE-Sim v3 runs it: the topology row "gemm, M, N, K" (its gemm
/// input) on the same array and SRAMs, InterfaceBandwidth CALC and SCALE-Sim's default offsets. This is the
/// `"scalesim"` block of `--json` and the "SCALE-Sim" line of the text report: SCALE-Sim's own numbers, under its
/// own names, beside the models' (docs/systolic.md says where they differ and why).

#include "tessera/systolic/ArrayConfig.h"
#include "tessera/systolic/scalesim/LayerRun.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace tessera::systolic::scalesim {

/// SCALE-Sim's configuration for `config` (CALC mode).
Config calcConfig(const ArrayConfig &config);
/// SCALE-Sim's layer for a gemm topology row.
Layer gemmLayer(const Gemm &gemm);

/// The demand lines (about a second of simulation) and the memory above which scaleSimGemm() declines.
inline constexpr int64_t kMaxGemmDemandLines = int64_t(1) << 26;
inline constexpr int64_t kMaxGemmBytes = int64_t(1) << 31;

/// SCALE-Sim v3's report of the GEMM, or why it was not run: declined (the limits above), or a corner where
/// SCALE-Sim itself fails.
struct GemmOutcome {
  std::optional<LayerReport> report;
  std::string notRun; ///< "not run: ..." when there is no report
};

GemmOutcome scaleSimGemm(const ArrayConfig &config, const Gemm &gemm);

/// The report as JSON under SCALE-Sim's column names ("Total Cycles", "DRAM OFMAP Writes", ...).
nlohmann::json scaleSimColumns(const LayerReport &report);

} // namespace tessera::systolic::scalesim
