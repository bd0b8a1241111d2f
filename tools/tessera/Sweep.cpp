#include "tessera/Sweep.h"

#include "tessera/JsonText.h"
#include "tessera/ParallelFor.h"

#include "tessera/sim/KernelBug.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <chrono>
#include <mutex>
#include <set>

namespace tessera::driver {
namespace {

const char *optionName(SweepAxis::Kind kind) { return kind == SweepAxis::Kind::Shape ? "shape" : "param"; }

int64_t parseValue(const std::string &option, const std::string &name, const std::string &text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v <= 0)
    throw InputError(fmt::format("--{}: {} must be a list of positive integers, got '{}'", option, name, text), {},
                     fmt::format("e.g. --{} {}=128,256,512", option, name));
  return v;
}

double parseReal(const std::string &option, const std::string &name, const std::string &text) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
    throw InputError(fmt::format("--{}: {} must be a list of numbers, got '{}'", option, name, text), {},
                     fmt::format("e.g. --{} {}=0,1", option, name));
  return v;
}

/// The message of `e` with its place first, as the CLI prints errors.
std::string describe(const Error &e) {
  return e.where().known() ? fmt::format("{}: {}", e.where().str(), e.message()) : e.message();
}

/// Runs one point; never throws (a failure becomes the row's status).
SweepRow runPoint(const RunRequest &base, const SweepPoint &point) {
  SweepRow row;
  row.point = point;
  RunRequest request = base;
  request.progress = nullptr;
  request.deadline.reset();
  for (const auto &[name, value] : point.shape)
    request.shape[name] = value;
  for (const auto &[name, value] : point.kernelParams)
    request.kernelParams[name] = value;
  for (const auto &[name, value] : point.scalarParams)
    request.scalarParams[name] = value;
  const auto start = std::chrono::steady_clock::now();
  try {
    const RunReport report = runKernel(request);
    row.status = report.ok ? SweepRow::Status::Ok : SweepRow::Status::Failed;
    if (!report.ok)
      row.message = "outputs differ from the reference beyond tolerance";
    row.timeUs = report.timeUs();
    row.achievedTflops = report.achievedTflops();
    row.instructions = report.instructions;
    row.simSeconds = report.sim.hostSeconds;
    row.busyPercent = report.busyPercent();
  } catch (const sim::KernelBugError &e) {
    row.status = SweepRow::Status::Failed;
    row.message = describe(e);
  } catch (const LimitError &e) {
    row.status = SweepRow::Status::Limit;
    row.message = describe(e);
  } catch (const Error &e) {
    // Bad parameters (InputError), DSL misuse, a compile error such as tiles that do not fit: the combination
    // cannot run.
    row.status = SweepRow::Status::Invalid;
    row.message = describe(e);
  } catch (const std::exception &e) {
    row.status = SweepRow::Status::Failed;
    row.message = fmt::format("internal error: {}", e.what());
  }
  row.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return row;
}

/// The value of axis `a` in `row`, as the table and the CSV print it.
std::string valueOf(const SweepRow &row, const SweepAxis &a) {
  if (a.kind == SweepAxis::Kind::ScalarParam) {
    auto it = row.point.scalarParams.find(a.name);
    return it == row.point.scalarParams.end() ? "" : fmt::format("{}", it->second);
  }
  const auto &values = a.kind == SweepAxis::Kind::Shape ? row.point.shape : row.point.kernelParams;
  auto it = values.find(a.name);
  return fmt::format("{}", it == values.end() ? 0 : it->second);
}

/// `text` quoted for CSV when it needs it.
std::string csvField(const std::string &text) {
  if (text.find_first_of(",\"\n") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (char ch : text)
    quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

} // namespace

std::vector<SweepAxis> parseSweepAxes(const std::string &option, const std::string &text, SweepAxis::Kind kind,
                                      const std::function<bool(const std::string &)> &isScalar) {
  std::vector<SweepAxis> axes;
  auto addValue = [&](const std::string &value) {
    SweepAxis &a = axes.back();
    if (a.kind == SweepAxis::Kind::ScalarParam) a.reals.push_back(parseReal(option, a.name, value));
    else a.values.push_back(parseValue(option, a.name, value));
  };
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq != std::string::npos) {
      if (eq == 0)
        throw InputError(fmt::format("--{}: expected NAME=V1,V2,..., got '{}'", option, item));
      const std::string name = item.substr(0, eq);
      const bool scalar = kind == SweepAxis::Kind::KernelParam && isScalar && isScalar(name);
      axes.push_back({.kind = scalar ? SweepAxis::Kind::ScalarParam : kind, .name = name, .values = {}, .reals = {}});
      addValue(item.substr(eq + 1));
    } else if (axes.empty()) {
      throw InputError(fmt::format("--{}: expected NAME=V1,V2,..., got '{}'", option, text), {},
                       fmt::format("e.g. --{} bm=128,256,512", option));
    } else {
      addValue(item);
    }
    start = end + 1;
  }
  return axes;
}

std::vector<SweepPoint> sweepPoints(const std::vector<SweepAxis> &axes) {
  std::set<std::pair<bool, std::string>> seen; // (a shape name, the name): kernel and scalar names share --param
  for (const SweepAxis &a : axes)
    if (!seen.insert({a.kind == SweepAxis::Kind::Shape, a.name}).second)
      throw InputError(fmt::format("--{}: {} is given twice", optionName(a.kind), a.name), {},
                       fmt::format("list all its values once: --{} {}=V1,V2,...", optionName(a.kind), a.name));
  std::vector<SweepPoint> points(1);
  for (const SweepAxis &a : axes) {
    std::vector<SweepPoint> next;
    next.reserve(points.size() * a.size());
    for (const SweepPoint &p : points)
      for (size_t i = 0; i < a.size(); ++i) {
        SweepPoint q = p;
        std::string value;
        if (a.kind == SweepAxis::Kind::ScalarParam) {
          q.scalarParams[a.name] = a.reals[i];
          value = fmt::format("{}", a.reals[i]);
        } else {
          (a.kind == SweepAxis::Kind::Shape ? q.shape : q.kernelParams)[a.name] = a.values[i];
          value = fmt::format("{}", a.values[i]);
        }
        q.label += fmt::format("{}{}={}", q.label.empty() ? "" : " ", a.name, value);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::vector<SweepPoint> shardOf(const std::vector<SweepPoint> &points, unsigned index, unsigned count) {
  std::vector<SweepPoint> shard;
  if (count == 0)
    return shard;
  for (size_t i = index; i < points.size(); i += count)
    shard.push_back(points[i]);
  return shard;
}

const char *statusName(SweepRow::Status s) {
  switch (s) {
  case SweepRow::Status::Ok: return "ok";
  case SweepRow::Status::Failed: return "failed";
  case SweepRow::Status::Invalid: return "invalid";
  case SweepRow::Status::Limit: return "limit";
  }
  return "invalid";
}

std::vector<SweepRow> runSweep(const RunRequest &base, const std::vector<SweepPoint> &points, unsigned jobs,
                               const std::function<void(size_t, size_t)> &done) {
  std::vector<SweepRow> rows(points.size());
  std::mutex doneMutex;
  size_t finished = 0;
  parallelFor(points.size(), jobs, [&](size_t i) {
    rows[i] = runPoint(base, points[i]);
    std::lock_guard lock(doneMutex);
    ++finished;
    if (done)
      done(finished, points.size());
  });
  return rows;
}

std::string encodeRows(const std::vector<SweepRow> &rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const SweepRow &r : rows)
    j.push_back({{"shape", r.point.shape},
                 {"kernel_params", r.point.kernelParams},
                 {"scalar_params", r.point.scalarParams},
                 {"label", r.point.label},
                 {"status", static_cast<int>(r.status)},
                 {"message", r.message},
                 {"time_us", r.timeUs},
                 {"achieved_tflops", r.achievedTflops},
                 {"instructions", r.instructions},
                 {"sim_seconds", r.simSeconds},
                 {"wall_seconds", r.wallSeconds},
                 {"busy_percent", r.busyPercent}});
  return jsonText(j);
}

std::vector<SweepRow> decodeRows(const std::string &text) {
  std::vector<SweepRow> rows;
  try {
    for (const nlohmann::json &j : nlohmann::json::parse(text)) {
      SweepRow r;
      r.point.shape = j.at("shape").get<std::map<std::string, int64_t>>();
      r.point.kernelParams = j.at("kernel_params").get<std::map<std::string, int64_t>>();
      r.point.scalarParams = j.at("scalar_params").get<std::map<std::string, double>>();
      r.point.label = j.at("label").get<std::string>();
      const int status = j.at("status").get<int>();
      if (status < 0 || status > static_cast<int>(SweepRow::Status::Limit))
        throw Error(fmt::format("sweep rows: unknown status {}", status));
      r.status = static_cast<SweepRow::Status>(status);
      r.message = j.at("message").get<std::string>();
      r.timeUs = j.at("time_us").get<double>();
      r.achievedTflops = j.at("achieved_tflops").get<double>();
      r.instructions = j.at("instructions").get<uint64_t>();
      r.simSeconds = j.at("sim_seconds").get<double>();
      r.wallSeconds = j.at("wall_seconds").get<double>();
      r.busyPercent = j.at("busy_percent").get<std::map<std::string, double>>();
      rows.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception &e) {
    throw Error(fmt::format("sweep rows: {}", e.what()));
  }
  return rows;
}

void sortBySimulatedTime(std::vector<SweepRow> &rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const SweepRow &a, const SweepRow &b) {
    if (a.ran() != b.ran())
      return a.ran();
    return a.ran() && a.timeUs < b.timeUs;
  });
}

std::string sweepTable(const std::vector<SweepRow> &rows, const std::vector<SweepAxis> &axes) {
  std::string s;
  for (const SweepAxis &a : axes)
    s += fmt::format("{:>8} ", a.name);
  s += fmt::format("{:>8} {:>14} {:>9} {:>13} {:>9}  {}\n", "status", "time_us", "TFLOP/s", "instructions",
                   "sim_s", "note");
  for (const SweepRow &r : rows) {
    for (const SweepAxis &a : axes)
      s += fmt::format("{:>8} ", valueOf(r, a));
    if (r.ran())
      s += fmt::format("{:>8} {:>14.3f} {:>9.2f} {:>13} {:>9.3f}  {}\n", statusName(r.status), r.timeUs,
                       r.achievedTflops, r.instructions, r.simSeconds, r.message);
    else
      s += fmt::format("{:>8} {:>14} {:>9} {:>13} {:>9}  {}\n", statusName(r.status), "-", "-", "-", "-",
                       r.message);
  }
  return s;
}

std::string sweepCsv(const std::vector<SweepRow> &rows, const std::vector<SweepAxis> &axes) {
  std::string s;
  for (const SweepAxis &a : axes)
    s += csvField(a.name) + ",";
  s += "status,time_us,achieved_tflops,instructions,sim_seconds,wall_seconds,message\n";
  for (const SweepRow &r : rows) {
    for (const SweepAxis &a : axes)
      s += fmt::format("{},", valueOf(r, a));
    if (r.ran())
      s += fmt::format("{},{:.6f},{:.6f},{},{:.6f},{:.6f},{}\n", statusName(r.status), r.timeUs, r.achievedTflops,
                       r.instructions, r.simSeconds, r.wallSeconds, csvField(r.message));
    else
      s += fmt::format("{},,,,,{:.6f},{}\n", statusName(r.status), r.wallSeconds, csvField(r.message));
  }
  return s;
}

nlohmann::json sweepJson(const std::vector<SweepRow> &rows, const std::vector<SweepAxis> &axes,
                         const RunRequest &base) {
  nlohmann::json jaxes = nlohmann::json::array(), jrows = nlohmann::json::array();
  for (const SweepAxis &a : axes) {
    const bool scalar = a.kind == SweepAxis::Kind::ScalarParam;
    jaxes.push_back({{"name", a.name},
                     {"kind", scalar ? "scalar" : optionName(a.kind)},
                     {"values", scalar ? nlohmann::json(a.reals) : nlohmann::json(a.values)}});
  }
  for (const SweepRow &r : rows) {
    nlohmann::json j = {{"shape", r.point.shape},
                        {"kernel_params", r.point.kernelParams},
                        {"scalar_params", r.point.scalarParams},
                        {"status", statusName(r.status)},
                        {"wall_seconds", r.wallSeconds}};
    if (r.ran()) {
      j["time_us"] = r.timeUs;
      j["achieved_tflops"] = r.achievedTflops;
      j["instructions"] = r.instructions;
      j["sim_seconds"] = r.simSeconds;
      j["busy_percent"] = r.busyPercent;
    }
    if (!r.message.empty())
      j["message"] = r.message;
    jrows.push_back(std::move(j));
  }
  return {{"kernel", base.kernel}, {"target", base.target}, {"shape", base.shape}, {"timing_only", base.timingOnly},
          {"axes", jaxes},         {"rows", jrows}};
}

} // namespace tessera::driver
