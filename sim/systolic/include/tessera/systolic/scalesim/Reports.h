#pragma once
/// \file
/// SCALE-Sim's three report files, byte for byte as SCALE-Sim v3 writes them (`scalesim/simulator.py`,
/// generate_reports: the same headers, a row per layer, Python's `str()` of each value and a trailing comma), so
/// that scripts written for SCALE-Sim read Tessera's; and the same numbers as a terminal table and as JSON.

#include "tessera/systolic/scalesim/Config.h"
#include "tessera/systolic/scalesim/LayerRun.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tessera::systolic::scalesim {

/// Python's repr of a float: the shortest text that reads back the same, with ".0" on whole numbers.
std::string pythonFloat(double value);

std::string computeReportCsv(const std::vector<LayerReport> &layers);
std::string bandwidthReportCsv(const std::vector<LayerReport> &layers);
std::string detailedAccessReportCsv(const std::vector<LayerReport> &layers);

/// A table, a row per layer, and the network's totals.
std::string layerTable(const Config &config, const std::vector<LayerReport> &layers);

nlohmann::json toJson(const Config &config, const std::vector<LayerReport> &layers);

} // namespace tessera::systolic::scalesim
