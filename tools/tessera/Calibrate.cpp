#include "tessera/Calibrate.h"

#include "tessera/CoefficientFit.h"
#include "tessera/isa/Family.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <sstream>
#include <string_view>

namespace tessera::driver {

namespace fs = std::filesystem;

DeviceRecord readDeviceRecord(const fs::path &file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readTextFile(file));
  } catch (const nlohmann::json::parse_error &e) {
    throw InputError(fmt::format("'{}' is not JSON: {}", file.string(), e.what()), SourceLoc{file.string()},
                     "pass the record-device.json files that a bundle's run.py wrote on the device");
  }
  auto fail = [&](const std::string &why) {
    return InputError(fmt::format("'{}' is not a device record of a Tessera bundle: {}", file.string(), why),
                      SourceLoc{file.string()}, "pass the record-device.json files that run.py wrote on the device");
  };
  try {
    if (!j.is_object() || !j.contains("record_version")) throw fail("it has no record_version");
    DeviceRecord r;
    r.file = file;
    r.kernel = j.at("kernel").get<std::string>();
    r.target = j.at("target").get<std::string>();
    r.shape = j.at("shape").get<std::map<std::string, int64_t>>();
    r.kernelParams = j.value("kernel_params", std::map<std::string, int64_t>{});
    r.loopBuffers = j.value("loop_buffers", r.loopBuffers);
    if (j.value("mode", std::string()) != "device" || !j.contains("measured_us") || j["measured_us"].is_null())
      throw fail(fmt::format("it holds no device time (mode '{}': run.py without --interpret, --export or --simulate "
                             "measures one)",
                             j.value("mode", std::string("?"))));
    r.measuredUs = j.at("measured_us").get<double>();
    if (!(r.measuredUs > 0) || !std::isfinite(r.measuredUs)) throw fail("its measured_us is not a positive time");
    r.device = j.value("device", std::string());
    // null where run.py had no time to name a method for (a --timer that failed: measured_us is null then too)
    if (j.contains("measured_by") && j["measured_by"].is_string()) r.measuredBy = j["measured_by"].get<std::string>();
    if (j.contains("timer") && j["timer"].is_string()) r.timer = j["timer"].get<std::string>();
    return r;
  } catch (const nlohmann::json::exception &e) {
    throw fail(e.what());
  }
}

std::string notDeviceTimed(const DeviceRecord &r) {
  if (measuredOnDevice(r)) return {};
  const std::string file = r.file.string();
  if (r.measuredBy.empty())
    return fmt::format("'{}' does not say how its time was measured (a record of a run.py from before "
                       "\"measured_by\", which timed with the host's wall clock): deploy the kernel again and run the "
                       "new bundle's run.py on the device",
                       file);
  if (r.measuredBy == "host_wall_clock")
    return fmt::format("'{}' holds the host's wall clock{}, not a device time: the copies and the launch are in it",
                       file, r.timer.empty() ? "" : fmt::format(" ({})", r.timer));
  return fmt::format("'{}' was measured by '{}', not on the device ('{}')", file, r.measuredBy, kDeviceProfiler);
}

std::vector<DeviceRecord> deviceTimedRecords(const std::vector<DeviceRecord> &records,
                                             std::vector<std::string> &skipped) {
  std::vector<DeviceRecord> kept;
  std::string why;
  for (const DeviceRecord &r : records) {
    if (measuredOnDevice(r)) {
      kept.push_back(r);
      continue;
    }
    skipped.push_back(notDeviceTimed(r));
    why += (why.empty() ? "" : "; ") + skipped.back();
  }
  if (kept.empty() && !records.empty())
    throw InputError(fmt::format("no record holds a time measured on the device, and calibration fits only those: {}",
                                 why),
                     {},
                     "on the Trainium host, run the bundle's run.py with a device profiler: --nrtpy-python PYTHON (an "
                     "environment with nrtpy) or aws-neuronx-tools' neuron-explorer (docs/backends.md)");
  return kept;
}

std::vector<std::string> defaultCoefficients(const isa::Target &target) {
  return isa::familyOf(target).defaultCalibration();
}

namespace {

constexpr std::string_view kBlanks = " \t";

/// The table a TOML line opens (`[dma]`, `[tpu.mxu]`, a comment after it allowed), or nullopt. Parsed by hand: a
/// regular expression recursed once per character and overflowed the stack on a 1 MB line.
std::optional<std::string> tableHeaderOf(std::string_view line) {
  const size_t open = line.find_first_not_of(kBlanks);
  if (open == std::string_view::npos || line[open] != '[') return std::nullopt;
  const size_t close = line.find(']', open);
  if (close == std::string_view::npos || close == open + 1) return std::nullopt;
  const std::string_view name = line.substr(open + 1, close - open - 1);
  const auto nameChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  if (!std::all_of(name.begin(), name.end(), nameChar)) return std::nullopt;
  const size_t rest = line.find_first_not_of(kBlanks, close + 1);
  if (rest != std::string_view::npos && line[rest] != '#') return std::nullopt;
  return std::string(name);
}

/// A line that sets `key`, split for editing: `prefix` (indent, key, `=` and the blanks around it), `value`, the
/// `spacing` before a comment and the `comment` ("# ..."; empty if none).
struct TomlAssignment {
  std::string_view prefix, value, spacing, comment;
};

std::optional<TomlAssignment> assignmentOf(std::string_view line, std::string_view key) {
  const size_t start = line.find_first_not_of(kBlanks);
  if (start == std::string_view::npos || line.substr(start, key.size()) != key) return std::nullopt;
  size_t at = line.find_first_not_of(kBlanks, start + key.size());
  if (at == std::string_view::npos || line[at] != '=') return std::nullopt;
  at = std::min(line.size(), line.find_first_not_of(kBlanks, at + 1));
  const size_t hash = std::min(line.size(), line.find('#', at));
  const size_t valueEnd = std::min(hash, line.find_last_not_of(kBlanks, hash == 0 ? 0 : hash - 1) + 1);
  const size_t end = std::max(at, valueEnd);
  return TomlAssignment{line.substr(0, at), line.substr(at, end - at), line.substr(end, hash - end),
                        line.substr(hash)};
}

} // namespace

std::string setTomlValue(const std::string &text, const std::string &table, const std::string &key,
                         const std::string &value, const std::string &comment) {
  std::istringstream in(text);
  std::string line, out, current;
  bool done = false;
  while (std::getline(in, line)) {
    if (std::optional<std::string> opened = tableHeaderOf(line))
      current = *opened;
    else if (std::optional<TomlAssignment> a; !done && current == table && (a = assignmentOf(line, key))) {
      std::string note(a->comment); // the value's source, kept after the new note
      if (!comment.empty())
        note = "# " + comment + (note.find_first_not_of("# ") == std::string::npos
                                     ? ""
                                     : "; " + note.substr(note.find_first_not_of("# ")));
      line = std::string(a->prefix) + value + (comment.empty() ? std::string(a->spacing) : " ") + note;
      done = true;
    }
    out += line + "\n";
  }
  if (!done) throw InputError(fmt::format("the target file has no key '{}' in its [{}] table", key, table));
  return out;
}

Calibration calibrate(const std::vector<DeviceRecord> &records, const std::string &target,
                      const std::vector<std::string> &fit) {
  if (records.empty()) throw InputError("no records to calibrate from", {}, "pass record-device.json files");
  for (const DeviceRecord &r : records)
    if (!measuredOnDevice(r))
      throw InputError(notDeviceTimed(r) + ": calibration fits only times measured on the device", {},
                       "tessera calibrate skips such records; measure on the device (docs/backends.md)");
  std::string targetName = target;
  if (targetName.empty()) {
    targetName = records.front().target;
    for (const DeviceRecord &r : records)
      if (r.target != targetName)
        throw InputError(fmt::format("the records were measured for different targets ({} in '{}', {} in '{}')",
                                     targetName, records.front().file.string(), r.target, r.file.string()),
                         {}, "calibrate one target at a time, or name it with --target");
  }
  Calibration c;
  c.base = loadTarget(targetName);
  const std::string text = readTextFile(c.base.file);
  c.coefficients = coefficientsOf(text, c.base.file.string(), fit.empty() ? defaultCoefficients(c.base) : fit);
  std::vector<FitSample> samples;
  for (const DeviceRecord &r : records) {
    RunRequest request;
    request.kernel = r.kernel;
    request.target = target.empty() ? r.target : target;
    request.shape = r.shape;
    request.kernelParams = r.kernelParams;
    request.compile.loopBuffers = r.loopBuffers;
    samples.push_back({compileKernel(request).compiled.program, r.measuredUs});
  }
  const CoefficientFit f(c.base, text, c.coefficients, std::move(samples));
  const std::vector<double> before = f.fileValues();
  const FitResult fitted = f.fit();
  std::vector<std::string> notes;
  for (size_t i = 0; i < c.coefficients.size(); ++i) {
    Coefficient &k = c.coefficients[i];
    k.after = fitted.values[i];
    k.determined = fitted.determined[i];
    notes.push_back(k.determined ? fmt::format("calibrated by tessera calibrate (was {})", k.before) : "");
  }
  const std::vector<double> timesBefore = f.times(before), timesAfter = f.times(fitted.values);
  for (size_t i = 0; i < records.size(); ++i) c.records.push_back({records[i], timesBefore[i], timesAfter[i]});
  c.errorBefore = f.error(before);
  c.errorAfter = f.error(fitted.values);
  c.calibratedToml = f.textWith(fitted.values, notes);
  c.calibratedToml = setTomlValue(c.calibratedToml, "target", "name", fmt::format("\"{}-calibrated\"", c.base.name),
                                  fmt::format("fitted to {} device record(s) by tessera calibrate", records.size()));
  return c;
}

} // namespace tessera::driver
