#include "tessera/Report.h"

#include "tessera/isa/Family.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace tessera::driver {

namespace {

/// What the matrix unit is called on `t`'s family: the key of its bound in --json.
std::string matrixUnit(const isa::Target &t) { return std::string(isa::familyOf(t).matrixUnitKey()); }

/// At most this many partitions and elements per partition of each device_print in the text report (--json has
/// them all).
constexpr int64_t kPrintRows = 8, kPrintColumns = 8;

/// "  x at 1362.5 ns on vector (kernels/k.cpp:12): [128, 4] f32" and the first rows and columns.
std::string printToText(const sim::DevicePrint &p) {
  std::string s = fmt::format("  {} at {:.3f} ns on {}{}: [{}, {}] {}\n", p.name, p.timeNs, p.stream,
                              p.loc.known() ? fmt::format(" ({})", p.loc.str()) : std::string{}, p.shape[0],
                              p.shape[1], isa::name(p.dtype));
  if (p.values.empty()) return s + "    (no values: timing-only run)\n";
  const int64_t rows = p.shape[0], cols = p.shape[1];
  for (int64_t r = 0; r < std::min(rows, kPrintRows); ++r) {
    s += fmt::format("    [{:>3}]", r);
    for (int64_t c = 0; c < std::min(cols, kPrintColumns); ++c) s += fmt::format(" {:>11.5g}", p.values[r * cols + c]);
    s += cols > kPrintColumns ? fmt::format("  ... ({} more)\n", cols - kPrintColumns) : "\n";
  }
  if (rows > kPrintRows) s += fmt::format("    ... ({} more partitions)\n", rows - kPrintRows);
  return s;
}
} // namespace

nlohmann::json toJson(const sim::DevicePrint &p) {
  nlohmann::json rows = nlohmann::json::array();
  const int64_t cols = p.shape.size() == 2 ? p.shape[1] : 0;
  for (size_t r = 0; cols > 0 && r * cols < p.values.size(); ++r)
    rows.push_back(std::vector<float>(p.values.begin() + r * cols, p.values.begin() + (r + 1) * cols));
  nlohmann::json j = {{"name", p.name}, {"time_ns", p.timeNs}, {"stream", p.stream}, {"index", p.index},
                      {"shape", p.shape}, {"dtype", std::string(isa::name(p.dtype))}, {"values", rows}};
  if (p.loc.known()) j["file"] = p.loc.file, j["line"] = p.loc.line;
  return j;
}

std::string printsToText(const std::vector<sim::DevicePrint> &prints) {
  if (prints.empty()) return {};
  std::string s = fmt::format("device_print ({}; in simulated-time order)\n", prints.size());
  for (const sim::DevicePrint &p : prints) s += printToText(p);
  return s;
}

nlohmann::json toJson(const RunReport &r) {
  nlohmann::json j;
  j["kernel"] = r.kernel;
  j["target"] = r.target.name;
  j["shape"] = r.params.values();
  nlohmann::json kernelParams = r.params.kernelValues();
  for (auto &[name, value] : r.params.scalarValues()) kernelParams[name] = value;
  j["kernel_params"] = kernelParams;
  j["time_us"] = r.timeUs();
  j["cycles"] = static_cast<uint64_t>(r.cycles());
  j["clock_ghz"] = r.target.tensor.clockGhz;
  j["engines"] = r.busyPercent();
  j["flops"] = r.sim.flops;
  j["achieved_tflops"] = r.achievedTflops();
  j["peak_tflops"] = r.peakTflops();
  j["hbm_bytes"] = r.sim.hbmBytes;
  j["dma_bytes_per_ns"] = r.target.dma.bytesPerNs();
  j["bounds_us"] = {{matrixUnit(r.target), r.tensorBoundUs()}, {"dma", r.dmaBoundUs()}};
  const RunReport::Bound bound = r.bound();
  j["bound"] = {{"kind", bound.kind}, {"unit", bound.unit}, {"busy_percent", bound.busyPercent}};
  j["instructions"] = r.instructions;
  if (!r.grid.empty()) {
    nlohmann::json cores = nlohmann::json::array();
    for (const CoreRun &c : r.cores)
      cores.push_back({{"core", c.core}, {"programs", {c.firstProgram, c.firstProgram + c.programs}},
                       {"time_us", c.timeNs / 1000.0}, {"instructions", c.instructions}, {"hbm_bytes", c.hbmBytes}});
    j["launch"] = {{"grid", r.grid}, {"cores", cores}};
  }
  j["sim_seconds"] = r.sim.hostSeconds;
  j["compile_seconds"] = r.compileSeconds;
  j["golden_seconds"] = r.goldenSeconds; // on their own thread, during the simulation
  j["reference_seconds"] = r.referenceSeconds;
  // The peaks of the memories the target's family allocates tiles in (the others stay unknown, -1).
  if (r.vmemPeakBytes >= 0) j["vmem_peak_bytes"] = r.vmemPeakBytes;
  if (r.sbufPeakBytes >= 0) j["sbuf_peak_bytes_per_partition"] = r.sbufPeakBytes;
  if (r.psumPeakBytes >= 0) j["psum_peak_bytes_per_partition"] = r.psumPeakBytes;
  j["notes"] = r.notes;
  double maxAbs = 0, maxRel = 0;
  nlohmann::json outputs = nlohmann::json::array();
  for (const TensorCheck &c : r.checks) {
    maxAbs = std::max(maxAbs, c.maxAbsErr);
    maxRel = std::max(maxRel, c.maxRelErr);
    nlohmann::json output = {{"name", c.name}, {"max_abs_err", c.maxAbsErr}, {"max_rel_err", c.maxRelErr},
                             {"tolerance", c.tolerance}, {"ok", c.ok}};
    for (auto [key, vs] : {std::pair{"vs_golden", &c.vsGolden}, std::pair{"vs_reference", &c.vsReference}})
      if (*vs)
        output[key] = {{"max_abs_err", (*vs)->maxAbsErr}, {"max_rel_err", (*vs)->maxRelErr},
                       {"tolerance", (*vs)->tolerance}, {"ok", (*vs)->ok}};
    if (const std::optional<UnwrittenElements> &u = c.unwritten) {
      nlohmann::json regions = nlohmann::json::array();
      for (const ElementRegion &region : u->regions)
        regions.push_back({{"rows", {region.firstRow, region.lastRow}},
                           {"columns", {region.firstColumn, region.lastColumn}}});
      output["unwritten"] = {{"elements", u->count},
                             {"rows", {u->firstRow, u->lastRow}},
                             {"columns", {u->firstColumn, u->lastColumn}},
                             {"regions", regions},
                             {"region_count", u->regionCount}};
    }
    outputs.push_back(output);
  }
  j["max_abs_err"] = maxAbs;
  j["max_rel_err"] = maxRel;
  j["outputs"] = outputs;
  j["reference"] = r.reference;
  if (!r.inputDist.empty()) j["inputs"] = {{"distribution", r.inputDist}, {"seed", r.seed}};
  if (!r.goldenUnavailable.empty()) j["golden_unavailable"] = r.goldenUnavailable;
  j["timing_only"] = r.timingOnly;
  nlohmann::json streams = nlohmann::json::array();
  for (const sim::StreamStats &s : r.sim.streams)
    streams.push_back({{"name", s.name}, {"instructions", s.instructions}, {"busy_us", s.busyNs / 1000.0},
                       {"wait_us", s.waitNs / 1000.0}});
  j["streams"] = streams;
  nlohmann::json prints = nlohmann::json::array();
  for (const sim::DevicePrint &p : r.sim.prints) prints.push_back(toJson(p));
  j["prints"] = prints;
  j["ok"] = r.ok;
  return j;
}

std::string toText(const RunReport &r) {
  std::string s;
  auto line = [&](std::string_view format, const auto &...args) {
    s += fmt::vformat(format, fmt::make_format_args(args...)) + "\n";
  };
  line("{} on {} ({})  shape {}{}", r.kernel, r.target.name, r.target.description,
       r.params.values().empty() ? "as saved" : r.params.str(),
       r.params.kernelStr().empty() ? "" : "  params " + r.params.kernelStr());
  line("");
  line("  simulated time   {:>12.3f} us   ({:.0f} cycles at {} GHz)", r.timeUs(), r.cycles(), r.target.tensor.clockGhz);
  line("  FLOPs            {:>12}        achieved {:.2f} of {:.1f} peak TFLOP/s ({:.1f}%)", r.sim.flops,
       r.achievedTflops(), r.peakTflops(), 100.0 * r.achievedTflops() / r.peakTflops());
  line("  HBM traffic      {:>12} B      DMA bound {:.3f} us at {:.1f} B/ns", r.sim.hbmBytes, r.dmaBoundUs(),
       r.target.dma.bytesPerNs());
  line("  instructions     {:>12}", r.instructions);
  if (!r.grid.empty())
    line("  launch grid      [{}], {}", fmt::join(r.grid, ", "),
         r.cores.empty() ? std::string("its programs one after another on one core")
                         : fmt::format("axis 0 split between {} cores sharing HBM", r.cores.size()));
  for (const CoreRun &c : r.cores)
    line("    core {}         {:>12.3f} us   programs {}..{} of axis 0, {} instructions, {} HBM bytes", c.core,
         c.timeNs / 1000.0, c.firstProgram, c.firstProgram + c.programs - 1, c.instructions, c.hbmBytes);
  if (r.sbufPeakBytes >= 0)
    line("  on-chip memory   SBUF {:.1f} of {:.1f} KiB, PSUM {:.1f} of {:.1f} KiB per partition (peak)",
         r.sbufPeakBytes / 1024.0, r.target.sbufBytesPerPartition / 1024.0, r.psumPeakBytes / 1024.0,
         r.target.psumBytesPerPartition / 1024.0);
  if (r.vmemPeakBytes >= 0)
    line("  on-chip memory   VMEM {:.1f} of {:.1f} MiB (peak)", r.vmemPeakBytes / 1048576.0,
         r.target.tpu.vmemBytes / 1048576.0);
  for (const std::string &note : r.notes) line("  note: {}", note);
  line("");
  line("  engine busy");
  const std::map<std::string, double> busy = r.busyPercent();
  size_t width = 8; // an SPMD launch's streams are named by core: "core1.gpsimd"
  for (const auto &entry : busy) width = std::max(width, entry.first.size());
  for (auto &[name, pct] : busy) {
    int bar = static_cast<int>(pct / 100.0 * 40 + 0.5);
    line("    {:<{}} {:>6.1f}%  {}", name, width, pct, std::string(std::min(bar, 40), '#'));
  }
  line("");
  for (const TensorCheck &c : r.checks) {
    std::string label = fmt::format("output {:<8}", c.name);
    if (const std::optional<UnwrittenElements> &u = c.unwritten) { // first: it is why the errors are infinite
      line("  {} never written: {}", label, describe(*u));
      label = std::string(label.size(), ' ');
    }
    for (auto [what, vs] : {std::pair{"vs golden   ", &c.vsGolden}, std::pair{"vs reference", &c.vsReference}}) {
      if (!*vs) continue;
      line("  {} {}  max abs err {:.3g}, max rel err {:.3g} (tolerance {:.3g})  {}", label, what, (*vs)->maxAbsErr,
           (*vs)->maxRelErr, (*vs)->tolerance, (*vs)->ok ? "ok" : "MISMATCH");
      label = std::string(label.size(), ' ');
    }
  }
  if (!r.goldenUnavailable.empty()) line("  golden model unavailable: {}", r.goldenUnavailable);
  line("");
  const char *against = r.reference == "golden+reference" ? "the golden model and the kernel's reference"
                        : r.reference == "golden"         ? "the golden model (the kernel has no reference)"
                                                          : "the kernel's reference";
  if (r.timingOnly) line("  verdict: timing only (no values computed, nothing checked)");
  else if (r.checks.empty()) line("  verdict: simulated (no reference to check the outputs against)");
  else {
    line("  checked against {}", against);
    line("  verdict: {}", r.ok ? "ok" : fmt::format("FAILED: {}", failureReason(r)));
  }
  if (!r.sim.prints.empty()) s += "\n" + printsToText(r.sim.prints);
  return s;
}

std::string_view failureReason(const RunReport &r) {
  const bool unwritten = std::ranges::any_of(r.checks, [](const TensorCheck &c) { return bool(c.unwritten); });
  return unwritten ? "an output is not written in full" : "outputs differ from the reference";
}

nlohmann::json toJson(const sim::KernelBug &bug) {
  nlohmann::json instructions = nlohmann::json::array();
  for (const sim::BugInstruction &i : bug.instructions) {
    nlohmann::json inst = {{"stream", i.stream}, {"engine", std::string(isa::name(i.engine))}, {"index", i.index},
                           {"opcode", std::string(isa::name(i.op))}, {"action", i.action}};
    if (i.loc.known()) inst["file"] = i.loc.file, inst["line"] = i.loc.line;
    instructions.push_back(inst);
  }
  nlohmann::json j = {{"kind", std::string(sim::name(bug.kind))}, {"time_ns", bug.timeNs}, {"instructions", instructions}};
  if (!bug.detail.empty()) j["detail"] = bug.detail;
  if (bug.region.known()) {
    nlohmann::json region = {{"memory", bug.region.memory}, {"bytes", {bug.region.b0, bug.region.b1}}};
    if (bug.region.memory == "hbm") region["tensor"] = bug.region.tensor;
    else if (bug.region.memory == "vmem" || bug.region.memory == "smem")
      region["rows"] = {bug.region.p0, bug.region.p1}, region["row_pitch"] = bug.region.rowPitch;
    else region["partitions"] = {bug.region.p0, bug.region.p1};
    j["region"] = region;
  }
  return j;
}

nlohmann::json toJson(const isa::Target &t) {
  nlohmann::json j = {{"name", t.name},
                      {"family", t.family},
                      {"generation", t.generation},
                      {"description", t.description},
                      {"file", t.file.string()},
                      {"price_per_chip_hour", t.pricePerChipHour},
                      {"dma",
                       {{"engines", t.dma.engines},
                        {"queues", t.dma.queues},
                        {"bytes_per_ns", t.dma.bytesPerNs()},
                        {"fixed_latency_ns", t.dma.fixedLatencyNs}}},
                      {"hbm", {{"bytes", t.hbm.bytes}, {"chip_gbps", t.hbm.chipGBps},
                               {"cores_per_chip", t.hbm.coresPerChip}}}};
  // The family's own figures (isa::Family::describe): groups are nested objects.
  struct JsonFigures final : isa::FigureWriter {
    explicit JsonFigures(nlohmann::json &root) : open{&root} {}
    void beginGroup(std::string_view name) override {
      open.push_back(name.empty() ? open.back() : &(*open.back())[std::string(name)]);
    }
    void endGroup() override { open.pop_back(); }
    void figure(std::string_view key, double value) override { (*open.back())[std::string(key)] = value; }
    void count(std::string_view key, uint64_t value) override { (*open.back())[std::string(key)] = value; }
    std::vector<nlohmann::json *> open;
  } figures(j);
  isa::familyOf(t).describe(t, figures);
  return j;
}

} // namespace tessera::driver
