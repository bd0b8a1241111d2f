#pragma once
/// \file
/// How a run is shown: a text report for people, one JSON object for programs.

#include "tessera/Driver.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tessera::driver {

/// The JSON object `tessera run --json` prints.
nlohmann::json toJson(const RunReport &report);
/// The text report `tessera run` prints.
std::string toText(const RunReport &report);

/// A target's figures as JSON (for `tessera targets --json`).
nlohmann::json toJson(const isa::Target &target);

} // namespace tessera::driver
