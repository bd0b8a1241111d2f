#include "SystolicNetwork.h"

#include "tessera/AtomicFile.h"
#include "tessera/CommandLine.h"
#include "tessera/Driver.h"
#include "tessera/JsonText.h"
#include "tessera/ParallelFor.h"
#include "tessera/ProgressBar.h"
#include "tessera/systolic/scalesim/LayerRun.h"
#include "tessera/systolic/scalesim/Reports.h"

#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

namespace fs = std::filesystem;

namespace tessera::driver {

namespace {

using namespace systolic::scalesim;

/// The most memory one layer's simulation may take (about 16 GiB): above it the run would not fit a workstation.
constexpr int64_t kMaxLayerBytes = int64_t(1) << 34;
/// --trace writes a line per cycle with a field per array row or column; above this it is no longer "small".
constexpr int64_t kMaxTraceFields = int64_t(1) << 26;

void checkLimits(const Config &config, const Topology &topo, const std::string &topologyPath, bool trace) {
  for (const Layer &layer : topo.layers) {
    const SourceLoc where{topologyPath, layer.line};
    if (memoryBytes(config, layer) > kMaxLayerBytes)
      throw LimitError(fmt::format("layer '{}': its im2col GEMM {}x{}x{} would take about {} GiB to simulate (the "
                                   "limit is 16)",
                                   layer.name, layer.gemmM(), layer.gemmN(), layer.gemmK(),
                                   memoryBytes(config, layer) >> 30),
                       where, "split the layer, or simulate it with --gemm M,N,K --model fold");
    if (!trace) continue;
    // A line per cycle in each of the three traces, a field per array row or column it enters along.
    const int64_t fields = demandLines(config, layer) * (config.rows + 2 * config.cols);
    if (fields > kMaxTraceFields)
      throw LimitError(fmt::format("--trace: layer '{}' would write about {} million trace fields", layer.name,
                                   fields >> 20),
                       where, "traces are for small cases (up to ~64 million fields); leave out --trace");
  }
}

/// Simulates every layer, `jobs` at a time (each layer's memory system starts empty, as in SCALE-Sim, so they are
/// independent), showing progress on a terminal.
std::vector<LayerReport> simulateLayers(const Config &config, const Topology &topo, const std::string &topologyPath,
                                        unsigned jobs, bool progress, std::vector<SramTraces> *traces) {
  const size_t n = topo.layers.size();
  std::vector<LayerReport> reports(n);
  if (traces) traces->resize(n);
  std::atomic<size_t> done{0};
  std::atomic<bool> failed{false};
  std::mutex failure;
  std::exception_ptr error;
  parallelFor(n, jobs ? jobs : std::thread::hardware_concurrency(), [&](size_t i) {
    if (failed) return; // the run has failed: the layers left are not simulated
    const Layer &layer = topo.layers[i];
    try {
      reports[i] = simulateLayer(config, layer, traces ? &(*traces)[i] : nullptr);
    } catch (const Error &e) {
      // A corner SCALE-Sim itself fails on, or a limit of the model: the layer's input, named.
      std::lock_guard lock(failure);
      if (!error)
        error = std::make_exception_ptr(InputError(fmt::format("layer '{}': {}", layer.name, e.message()),
                                                   SourceLoc{topologyPath, layer.line}, e.hint()));
      failed = true;
    } catch (...) {
      std::lock_guard lock(failure);
      if (!error) error = std::current_exception();
      failed = true;
    }
    if (progress) fmt::print(stderr, "\r\x1b[2Klayer {}/{}", ++done, n);
  });
  if (progress) fmt::print(stderr, "\r\x1b[2K");
  if (error) std::rethrow_exception(error);
  return reports;
}

void write(const fs::path &path, const std::string &text) {
  AtomicFile file(path, "report");
  file.commit(text);
}

} // namespace

int systolicNetworkCommand(const SystolicNetworkOptions &o) {
  Config config;
  Topology topo;
  try {
    config = readConfig(o.config);
    topo = readTopology(o.topology, o.inputType);
  } catch (const InputError &) {
    throw;
  } catch (const Error &e) {
    throw InputError(e);
  }
  // SCALE-Sim reads a layout file only for custom SRAM layouts, which the configuration check refuses.
  if (!o.layout.empty() && !fs::is_regular_file(o.layout))
    throw InputError(fmt::format("-l: cannot read the layout file '{}'", o.layout));
  checkLimits(config, topo, o.topology, o.trace);

  if (o.jobs > 1024) throw InputError(fmt::format("-j: expected 1 to 1024 layers at once, got {}", o.jobs));
  // The folder is made once the layers have run (a failed run leaves nothing); what is in its way fails now.
  const fs::path dir = fs::path(o.logDir) / config.runName;
  for (const fs::path &p : {fs::path(o.logDir), dir})
    if (fs::exists(p) && !fs::is_directory(p))
      throw InputError(fmt::format("-p: '{}' is in the way of the report folder '{}': it is not a folder", p.string(),
                                   dir.string()));

  const bool progress = !o.json && topo.layers.size() > 1 && ProgressBar::isTerminal(stderr);
  std::vector<SramTraces> traces;
  const std::vector<LayerReport> layers =
      simulateLayers(config, topo, o.topology, o.jobs, progress, o.trace ? &traces : nullptr);

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw InputError(fmt::format("-p: cannot make the report folder '{}': {}", dir.string(), ec.message()));

  write(dir / "COMPUTE_REPORT.csv", computeReportCsv(layers));
  write(dir / "BANDWIDTH_REPORT.csv", bandwidthReportCsv(layers));
  write(dir / "DETAILED_ACCESS_REPORT.csv", detailedAccessReportCsv(layers));
  for (size_t i = 0; i < traces.size(); ++i) {
    const fs::path layerDir = dir / fmt::format("layer{}", i);
    fs::create_directories(layerDir, ec);
    if (ec) throw InputError(fmt::format("--trace: cannot make '{}': {}", layerDir.string(), ec.message()));
    write(layerDir / "IFMAP_SRAM_TRACE.csv", traces[i].ifmap);
    write(layerDir / "FILTER_SRAM_TRACE.csv", traces[i].filter);
    write(layerDir / "OFMAP_SRAM_TRACE.csv", traces[i].ofmap);
  }

  if (o.json) {
    nlohmann::json j = toJson(config, layers);
    j["topology"] = o.topology;
    j["reports"] = dir.string();
    fmt::print("{}\n", jsonText(j, 2));
    return kOk;
  }
  fmt::print("{}", layerTable(config, layers));
  fmt::print("reports     {}/{{COMPUTE_REPORT,BANDWIDTH_REPORT,DETAILED_ACCESS_REPORT}}.csv{}\n", dir.string(),
             o.trace ? fmt::format(", SRAM traces in {}/layer*/", dir.string()) : "");
  return kOk;
}

} // namespace tessera::driver
