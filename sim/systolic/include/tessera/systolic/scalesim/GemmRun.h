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

/// Why scaleSimGemm() declines the GEMM ("" when it does not).
std::string scaleSimGemmDeclined(const ArrayConfig &config, const Gemm &gemm);

/// The GEMM's SCALE-Sim v3 report, or nothing (and in `why`, why not) when it is declined or hits a corner where
/// SCALE-Sim itself fails.
std::optional<LayerReport> scaleSimGemm(const ArrayConfig &config, const Gemm &gemm, std::string *why = nullptr);

/// The report as JSON under SCALE-Sim's column names ("Total Cycles", "DRAM OFMAP Writes", ...).
nlohmann::json scaleSimColumns(const LayerReport &report);

} // namespace tessera::systolic::scalesim
