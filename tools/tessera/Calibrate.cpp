#include "tessera/Calibrate.h"
#include "tessera/isa/Family.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

namespace tessera::driver {

namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}'", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A float TOML reads back as a float (with a point or an exponent), to four significant digits.
std::string tomlFloat(double v) {
  std::string text = fmt::format("{:.4g}", v);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

/// How far a coefficient may move: a factor of this either way from the target's value.
constexpr double kSearchFactor = 16;
/// Golden-section steps per coefficient and rounds over all coefficients.
constexpr int kSectionSteps = 24, kRounds = 3;
/// A coefficient whose change by kProbeFactor moves no record's time by more than this fraction is undetermined.
constexpr double kProbeFactor = 2, kInsensitive = 1e-9;

class Fit {
public:
  Fit(const isa::Target &base, std::string text, std::vector<Coefficient> &coefficients,
      std::vector<isa::Program> programs, std::vector<double> measured)
      : base_(base), text_(std::move(text)), coefficients_(coefficients), programs_(std::move(programs)),
        measured_(std::move(measured)) {}

  /// The target file with every coefficient at its `after` value.
  std::string textWith(const std::vector<double> &values, bool comments = false) const {
    std::string text = text_;
    for (size_t i = 0; i < coefficients_.size(); ++i) {
      const Coefficient &c = coefficients_[i];
      const std::string value =
          c.integer ? fmt::format("{}", static_cast<int64_t>(std::llround(values[i]))) : tomlFloat(values[i]);
      const std::string comment =
          comments && c.determined ? fmt::format("calibrated by tessera calibrate (was {})", c.before) : "";
      text = setTomlValue(text, c.table, c.key, value, comment);
    }
    return text;
  }

  /// Simulated time of each program with `values`.
  std::vector<double> times(const std::vector<double> &values) const {
    const isa::Target target = isa::Target::parse(textWith(values), base_.file);
    std::vector<double> us;
    for (const isa::Program &p : programs_) {
      sim::HbmImage none;
      us.push_back(simulateWithinLimits(p, target, none, {.computeValues = false, .checks = false}).timeNs / 1000.0);
    }
    return us;
  }

  /// Root mean square of ln(simulated / measured).
  double error(const std::vector<double> &values) const {
    const std::vector<double> us = times(values);
    double sum = 0;
    for (size_t i = 0; i < us.size(); ++i) {
      const double r = std::log(std::max(us[i], 1e-9) / measured_[i]);
      sum += r * r;
    }
    return std::sqrt(sum / static_cast<double>(us.size()));
  }

  /// Coordinate descent: a golden-section search of each coefficient in log space, a few rounds.
  std::vector<double> run() {
    std::vector<double> values;
    for (const Coefficient &c : coefficients_) values.push_back(c.before);
    const std::vector<double> start = times(values);
    for (size_t i = 0; i < coefficients_.size(); ++i) {
      std::vector<double> probe = values;
      probe[i] = values[i] * kProbeFactor;
      const std::vector<double> moved = times(probe);
      bool sensitive = false;
      for (size_t r = 0; r < start.size(); ++r)
        sensitive |= std::abs(moved[r] - start[r]) > kInsensitive * std::max(1.0, start[r]);
      coefficients_[i].determined = sensitive && values[i] > 0;
    }
    for (int round = 0; round < kRounds; ++round)
      for (size_t i = 0; i < coefficients_.size(); ++i) {
        if (!coefficients_[i].determined) continue;
        const double centre = coefficients_[i].before;
        double lo = std::log(centre / kSearchFactor), hi = std::log(centre * kSearchFactor);
        auto at = [&](double logValue) {
          std::vector<double> v = values;
          v[i] = std::exp(logValue);
          if (coefficients_[i].integer) v[i] = std::max(1.0, std::round(v[i]));
          return error(v);
        };
        const double phi = (std::sqrt(5.0) - 1) / 2;
        double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo), fa = at(a), fb = at(b);
        for (int step = 0; step < kSectionSteps; ++step) {
          if (fa < fb) {
            hi = b, b = a, fb = fa, a = hi - phi * (hi - lo), fa = at(a);
          } else {
            lo = a, a = b, fa = fb, b = lo + phi * (hi - lo), fb = at(b);
          }
        }
        double best = std::exp((lo + hi) / 2);
        if (coefficients_[i].integer) best = std::max(1.0, std::round(best));
        std::vector<double> candidate = values;
        candidate[i] = best;
        if (error(candidate) <= error(values)) values = candidate;
      }
    return values;
  }

private:
  const isa::Target &base_;
  std::string text_;
  std::vector<Coefficient> &coefficients_;
  std::vector<isa::Program> programs_;
  std::vector<double> measured_;
};

} // namespace

DeviceRecord readDeviceRecord(const fs::path &file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readFile(file));
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
  const std::string text = readFile(c.base.file);
  toml::table root;
  try {
    root = toml::parse(text, c.base.file.string());
  } catch (const toml::parse_error &e) {
    throw InputError(fmt::format("cannot read target file '{}': {}", c.base.file.string(), e.description()));
  }
  for (const std::string &name : fit.empty() ? defaultCoefficients(c.base) : fit) {
    const size_t dot = name.find('.');
    if (dot == std::string::npos)
      throw InputError(fmt::format("--fit: '{}' is not TABLE.KEY", name), {}, "e.g. --fit dma.fixed_latency_ns");
    Coefficient coefficient{name.substr(0, dot), name.substr(dot + 1)};
    const toml::node *node = root.at_path(name).node();
    if (!node || !(node->is_integer() || node->is_floating_point()))
      throw InputError(fmt::format("--fit: the target file '{}' has no number '{}'", c.base.file.string(), name));
    coefficient.integer = node->is_integer();
    coefficient.before = node->value<double>().value_or(0);
    coefficient.after = coefficient.before;
    c.coefficients.push_back(coefficient);
  }

  std::vector<isa::Program> programs;
  std::vector<double> measured;
  for (const DeviceRecord &r : records) {
    RunRequest request;
    request.kernel = r.kernel;
    request.target = target.empty() ? r.target : target;
    request.shape = r.shape;
    request.kernelParams = r.kernelParams;
    request.compile.loopBuffers = r.loopBuffers;
    programs.push_back(compileKernel(request).compiled.program);
    measured.push_back(r.measuredUs);
  }
  Fit f(c.base, text, c.coefficients, std::move(programs), measured);
  std::vector<double> before;
  for (const Coefficient &k : c.coefficients) before.push_back(k.before);
  const std::vector<double> after = f.run();
  for (size_t i = 0; i < c.coefficients.size(); ++i) c.coefficients[i].after = after[i];
  const std::vector<double> timesBefore = f.times(before), timesAfter = f.times(after);
  for (size_t i = 0; i < records.size(); ++i) c.records.push_back({records[i], timesBefore[i], timesAfter[i]});
  c.errorBefore = f.error(before);
  c.errorAfter = f.error(after);
  c.calibratedToml = f.textWith(after, /*comments=*/true);
  c.calibratedToml = setTomlValue(c.calibratedToml, "target", "name", fmt::format("\"{}-calibrated\"", c.base.name),
                                  fmt::format("fitted to {} device record(s) by tessera calibrate", records.size()));
  return c;
}

} // namespace tessera::driver
