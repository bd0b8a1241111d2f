#pragma once
/// \file
/// How a run is shown: a text report for people, one JSON object for programs.

#include "tessera/Driver.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace tessera::driver {

/// The JSON object `tessera run --json` prints.
nlohmann::json toJson(const RunReport &report);
/// The text report `tessera run` prints.
std::string toText(const RunReport &report);
/// Why a checked run failed, as its verdict says it: "an output is not written in full" or "outputs differ from the
/// reference".
std::string_view failureReason(const RunReport &report);

/// A target's figures as JSON (for `tessera targets --json`).
nlohmann::json toJson(const isa::Target &target);

/// One device_print as JSON: name, time_ns, stream, shape, dtype, values (one array per partition), file, line.
nlohmann::json toJson(const sim::DevicePrint &print);
/// The device_print log as the text report ends it: each print's time, engine and line, and its first partitions
/// and elements ("" when there is none).
std::string printsToText(const std::vector<sim::DevicePrint> &prints);

/// A kernel bug the simulator found, as the "bug" member of `--json`'s error object: kind, detail, time_ns,
/// instructions (stream, engine, index, opcode, action, file, line) and region (memory, partitions, bytes).
nlohmann::json toJson(const sim::KernelBug &bug);

} // namespace tessera::driver
