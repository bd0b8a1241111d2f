#include "tessera/systolic/scalesim/Config.h"

#include "TextFile.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <sstream>

namespace tessera::systolic::scalesim {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

/// One value of the file and the line it is on.
struct Entry {
  std::string value;
  uint32_t line = 0;
};

/// The INI file as Python's configparser reads it: `[section]`, `key = value` or `key: value` (keys are not
/// case-sensitive, section names are), `#` and `;` comment lines.
class IniFile {
public:
  IniFile(std::string_view text, std::string path) : path_(std::move(path)) {
    std::string section;
    uint32_t lineNo = 0;
    std::istringstream in{std::string(text)};
    for (std::string raw; std::getline(in, raw);) {
      ++lineNo;
      std::string_view line = trim(raw);
      if (line.empty() || line.front() == '#' || line.front() == ';') continue;
      if (line.front() == '[') {
        if (line.back() != ']')
          throw Error(fmt::format("a section header must end with ']', got '{}'", line), where(lineNo));
        section = std::string(trim(line.substr(1, line.size() - 2)));
        sections_[section];
        continue;
      }
      size_t cut = line.find_first_of("=:");
      if (cut == std::string_view::npos)
        throw Error(fmt::format("expected 'key = value' or 'key: value', got '{}'", line), where(lineNo));
      if (section.empty())
        throw Error("a key before the first [section]", where(lineNo), "SCALE-Sim's files start with [general]");
      sections_[section][lower(trim(line.substr(0, cut)))] = {std::string(trim(line.substr(cut + 1))), lineNo};
    }
  }

  bool hasSection(const std::string &section) const { return sections_.count(section) != 0; }

  const Entry *find(const std::string &section, std::string_view key) const {
    auto s = sections_.find(section);
    if (s == sections_.end()) return nullptr;
    auto k = s->second.find(lower(key));
    return k == s->second.end() ? nullptr : &k->second;
  }

  const Entry &get(const std::string &section, std::string_view key) const {
    if (const Entry *e = find(section, key)) return *e;
    throw Error(fmt::format("[{}] has no {}", section, key), SourceLoc{path_},
                "SCALE-Sim v3 configuration files give it: see configs/scale.cfg in SCALE-Sim, or docs/systolic.md");
  }

  int64_t integer(const std::string &section, std::string_view key, int64_t lo, int64_t hi) const {
    const Entry &e = get(section, key);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(e.value.data(), e.value.data() + e.value.size(), v);
    if (ec != std::errc() || end != e.value.data() + e.value.size())
      throw Error(fmt::format("{}: expected an integer, got '{}'", key, e.value), where(e.line));
    if (v < lo || v > hi)
      throw Error(fmt::format("{}: expected {} to {}, got {}", key, lo, hi, v), where(e.line));
    return v;
  }

  /// configparser's getboolean: 1/yes/true/on, 0/no/false/off.
  bool boolean(const std::string &section, std::string_view key, bool fallback) const {
    const Entry *e = find(section, key);
    if (!e) return fallback;
    std::string v = lower(e->value);
    if (v == "1" || v == "yes" || v == "true" || v == "on") return true;
    if (v == "0" || v == "no" || v == "false" || v == "off") return false;
    throw Error(fmt::format("{}: expected True or False, got '{}'", key, e->value), where(e->line));
  }

  SourceLoc where(uint32_t line) const { return SourceLoc{path_, line}; }

private:
  std::string path_;
  std::map<std::string, std::map<std::string, Entry>> sections_;
};

/// Sizes and counts stay below 2^40 so that every cycle and access count fits 63 bits; a bandwidth (words in one
/// line of a buffer) below 2^30.
constexpr int64_t kMaxCount = int64_t(1) << 40, kMaxBandwidth = int64_t(1) << 30;

[[noreturn]] void notModelled(const IniFile &ini, const Entry &e, std::string_view what) {
  throw Error(fmt::format("{} is not modelled by tessera systolic", what), ini.where(e.line),
              "set it to False, or run SCALE-Sim itself for this configuration");
}

} // namespace

Config parseConfig(std::string_view text, const std::string &path) {
  IniFile ini(text, path);
  Config c;
  c.runName = ini.get("general", "run_name").value;
  if (c.runName.empty() || c.runName.find('/') != std::string::npos || c.runName == "." || c.runName == "..")
    throw Error(fmt::format("run_name: expected a folder name, got '{}'", c.runName),
                ini.where(ini.get("general", "run_name").line), "the reports go to <log dir>/<run_name>/");

  const std::string arch = "architecture_presets";
  c.rows = ini.integer(arch, "ArrayHeight", 1, 65536);
  c.cols = ini.integer(arch, "ArrayWidth", 1, 65536);
  c.ifmapKiB = ini.integer(arch, "IfmapSramSzkB", 1, kMaxCount >> 10);
  c.filterKiB = ini.integer(arch, "FilterSramSzkB", 1, kMaxCount >> 10);
  c.ofmapKiB = ini.integer(arch, "OfmapSramSzkB", 1, kMaxCount >> 10);
  c.ifmapOffset = ini.integer(arch, "IfmapOffset", 0, kMaxCount);
  c.filterOffset = ini.integer(arch, "FilterOffset", 0, kMaxCount);
  c.ofmapOffset = ini.integer(arch, "OfmapOffset", 0, kMaxCount);
  const Entry &df = ini.get(arch, "Dataflow");
  try {
    c.dataflow = parseDataflow(df.value);
  } catch (const Error &) {
    throw Error(fmt::format("Dataflow: expected ws, os or is, got '{}'", df.value), ini.where(df.line));
  }

  const std::string run = "run_presets";
  const Entry &mode = ini.get(run, "InterfaceBandwidth");
  if (mode.value == "CALC") c.bandwidthMode = BandwidthMode::Calc;
  else if (mode.value == "USER") c.bandwidthMode = BandwidthMode::User;
  else
    throw Error(fmt::format("InterfaceBandwidth: expected CALC or USER, got '{}'", mode.value), ini.where(mode.line));
  if (const Entry *ram = ini.find(run, "UseRamulatorTrace"); ram && ram->value == "True")
    notModelled(ini, *ram, "UseRamulatorTrace (DRAM latencies from Ramulator)");

  // SCALE-Sim turns sparsity on only for "true" (any case), unlike configparser's other true words.
  if (const Entry *sparse = ini.find("sparsity", "SparsitySupport"); sparse && lower(sparse->value) == "true")
    notModelled(ini, *sparse, "SparsitySupport (sparse filters)");
  if (ini.boolean("layout", "IfmapCustomLayout", false))
    notModelled(ini, ini.get("layout", "IfmapCustomLayout"), "IfmapCustomLayout (SRAM bank layouts)");
  if (ini.boolean("layout", "FilterCustomLayout", false))
    notModelled(ini, ini.get("layout", "FilterCustomLayout"), "FilterCustomLayout (SRAM bank layouts)");

  if (c.bandwidthMode == BandwidthMode::User) {
    const Entry &bw = ini.get(arch, "Bandwidth");
    std::string first(trim(std::string_view(bw.value).substr(0, bw.value.find(','))));
    int64_t v = 0;
    auto [end, ec] = std::from_chars(first.data(), first.data() + first.size(), v);
    if (ec != std::errc() || end != first.data() + first.size() || v < 1 || v > kMaxBandwidth)
      throw Error(fmt::format("Bandwidth: expected words per cycle (a positive integer), got '{}'", bw.value),
                  ini.where(bw.line));
    c.ofmapBandwidth = v;
    // SCALE-Sim v3 reads the ifmap and filter interfaces' bandwidths from [layout]; a v2 file has one Bandwidth.
    auto bankBandwidth = [&](std::string_view key) {
      return ini.find("layout", key) ? ini.integer("layout", key, 1, kMaxBandwidth) : v;
    };
    c.ifmapBandwidth = bankBandwidth("IfmapSRAMBankBandwidth");
    c.filterBandwidth = bankBandwidth("FilterSRAMBankBandwidth");
    if (ini.find("layout", "IfmapSRAMBankNum")) c.ifmapBanks = ini.integer("layout", "IfmapSRAMBankNum", 1, 65536);
    if (ini.find("layout", "FilterSRAMBankNum"))
      c.filterBanks = ini.integer("layout", "FilterSRAMBankNum", 1, 65536);
    if (c.ifmapBandwidth % c.ifmapBanks != 0)
      throw Error(fmt::format("IfmapSRAMBankBandwidth {} is not a multiple of IfmapSRAMBankNum {}", c.ifmapBandwidth,
                              c.ifmapBanks),
                  ini.where(ini.get("layout", "IfmapSRAMBankNum").line), "SCALE-Sim requires it (each bank the same)");
    if (c.filterBandwidth % c.filterBanks != 0)
      throw Error(fmt::format("FilterSRAMBankBandwidth {} is not a multiple of FilterSRAMBankNum {}",
                              c.filterBandwidth, c.filterBanks),
                  ini.where(ini.get("layout", "FilterSRAMBankNum").line), "SCALE-Sim requires it (each bank the same)");
  }
  return c;
}

Config readConfig(const std::filesystem::path &path) {
  return parseConfig(readText(path, "configuration file"), path.string());
}

} // namespace tessera::systolic::scalesim
