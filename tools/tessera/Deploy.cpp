#include "tessera/Deploy.h"

#include "tessera/AtomicFile.h"
#include "tessera/AtomicFolder.h"
#include "tessera/DeviceCode.h"
#include "tessera/HostData.h"
#include "tessera/JsonText.h"
#include "tessera/Npy.h"
#include "tessera/Report.h"
#include "tessera/backends/Deploy.h"

#include <fmt/format.h>

#include <fstream>

namespace tessera::driver {

namespace {

namespace fs = std::filesystem;

/// The NumPy (or ml_dtypes) name of a dtype, as the runner reads it.
std::string numpyName(isa::DType dtype) {
  switch (dtype) {
  case isa::DType::F32: return "float32";
  case isa::DType::BF16: return "bfloat16";
  case isa::DType::F16: return "float16";
  case isa::DType::F8E4M3: return "float8_e4m3fn";
  case isa::DType::F8E5M2: return "float8_e5m2";
  case isa::DType::I32: return "int32";
  case isa::DType::U32: return "uint32";
  case isa::DType::U8: return "uint8";
  case isa::DType::I8: return "int8";
  case isa::DType::I16: return "int16";
  case isa::DType::U16: return "uint16";
  }
  return "float32";
}

/// What deploy says of a folder it will not replace.
constexpr const char *kForceNote = "--force replaces it with the bundle (deleting its files)";

ReplaceableFolder replaceable(bool force) {
  if (force) return [](const fs::path &) { return true; };
  return isDeployBundle;
}

std::string readme(const RunReport &report, const std::string &module, const std::string &backend,
                   const std::string &command) {
  const bool tpu = backend == "pallas";
  return fmt::format(
      "# {kernel} on {target}, deployed by Tessera\n\n"
      "Made by `{command}`. Tessera simulated this kernel in {time:.3f} us on {target}; `{module}` is the same\n"
      "program for {toolchain}.\n\n"
      "On a {host}:\n\n"
      "    python3 run.py            # runs it, compares every output with expected/, times it\n\n"
      "{offline}"
      "It prints measured against predicted time and writes `record-device.json`; `tessera calibrate\n"
      "record-device.json ...` fits the target's cost coefficients to such records.\n\n"
      "| file | what |\n|---|---|\n"
      "| `{module}` | the kernel |\n| `run.py` | the runner (Python 3, NumPy{mld}) |\n"
      "| `tessera.json` | kernel, target, shapes, dtypes, tolerances, predicted time |\n"
      "| `inputs/*.npy` | the inputs the simulator used (bfloat16/fp8 stored as their bits: uint16/uint8) |\n"
      "| `expected/*.npy` | the outputs the simulator computed from them |\n",
      fmt::arg("kernel", report.kernel), fmt::arg("target", report.target.name), fmt::arg("command", command),
      fmt::arg("time", report.timeUs()), fmt::arg("module", module),
      fmt::arg("toolchain", tpu ? "JAX Pallas (Mosaic TPU)" : "NKI 0.6 (Neuron SDK 2.32)"),
      fmt::arg("host", tpu ? "TPU host with `jax[tpu]`" : "Trainium host with the Neuron SDK (NKI)"),
      fmt::arg("offline",
               tpu ? "Without a TPU, on any machine with `jax`: `python3 run.py --interpret` (interpret mode, race\n"
                     "detection, numerics) and `python3 run.py --export` (lowers it for TPU); with `jax[tpu]` (libtpu):\n"
                     "`python3 run.py --compile` (the real TPU compiler, deviceless) and `--estimate` (its static cycle\n"
                     "estimate beside Tessera's).\n\n"
                   : "On the Trainium host, run.py sets NEURON_PLATFORM_TARGET_OVERRIDE and NEURON_LOGICAL_NC_CONFIG=1\n"
                     "(the kernel runs on one NeuronCore) and times the kernel's NEFF on the device with nrtpy\n"
                     "(`--nrtpy-python PYTHON`) or neuron-explorer (aws-neuronx-tools); without either, the record holds the\n"
                     "host's wall clock, says so, and `tessera calibrate` skips it. `python3 run.py --dry-run` prints the\n"
                     "environment and commands on any machine. Without a device, with NKI installed: `python3 run.py\n"
                     "--simulate` (nki.simulate, numerics).\n\n"),
      fmt::arg("mld", " and ml_dtypes for bfloat16/fp8"));
}

/// The plan of `report`'s kernel for `style`: the run's own, or (when the run planned for the other kind of style)
/// the kernel compiled again with the other plan; the program and its tiles are the same.
std::shared_ptr<const compiler::TileProgram> planFor(const RunRequest &request, const RunReport &report,
                                                     backends::PallasStyle style) {
  if (!report.tileProgram || report.tileProgram->launchGrid == backends::launchGridFor(style))
    return report.tileProgram;
  RunRequest again = request;
  again.compile.recordProvenance = true;
  again.compile.launchGrid = backends::launchGridFor(style);
  CompiledKernel k = compileKernel(again);
  return std::make_shared<const compiler::TileProgram>(std::move(k.compiled.tileProgram));
}

} // namespace

bool isDeployBundle(const fs::path &dir) {
  std::ifstream in(dir / "tessera.json");
  if (!in) return false;
  const nlohmann::json manifest = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return manifest.is_object() && manifest.contains("bundle_version") && manifest.contains("kernel");
}

void checkBundleFolder(const fs::path &dir, bool force) {
  AtomicFolder::check(dir, "bundle folder", replaceable(force), kForceNote);
}

RunReport runForDeploy(RunRequest request) {
  request.timingOnly = false;
  request.keepTensors = true;
  request.compile.recordProvenance = true;
  RunReport report = runKernel(request);
  if (!report.ok)
    throw Error(fmt::format("kernel '{}' does not match its references on {}: Tessera deploys only kernels whose "
                            "simulated outputs are right",
                            report.kernel, report.target.name),
                {}, fmt::format("`tessera run {} --target {}` shows the mismatch", report.kernel, report.target.name));
  return report;
}

DeployBundle deployKernel(RunRequest request, const fs::path &dir, const std::string &command,
                          const std::string &pallasStyle, bool force) {
  driver::pallasStyle(pallasStyle); // an unknown style or a folder deploy may not replace stops it before the run
  checkBundleFolder(dir, force);
  DeployBundle bundle;
  bundle.dir = dir;
  request.compile.launchGrid = backends::launchGridFor(driver::pallasStyle(pallasStyle));
  bundle.report = runForDeploy(request);
  bundle.backend = deviceBackendOf(bundle.report.target);
  bundle.files = writeDeployBundle(request, bundle.report, dir, command, pallasStyle, force);
  return bundle;
}

std::vector<std::string> writeDeployBundle(const RunRequest &request, const RunReport &report,
                                           const fs::path &bundleDir, const std::string &command,
                                           const std::string &pallasStyle, bool force) {
  const backends::PallasStyle style = driver::pallasStyle(pallasStyle);
  if (!report.deviceProgram || !report.provenance || !report.hbm)
    throw Error(fmt::format("kernel '{}': a deploy bundle is written from a run with its tensors kept and provenance "
                            "recorded",
                            report.kernel),
                {}, "run it with runForDeploy(request)");
  const isa::Target &target = report.target;
  const std::string backend = deviceBackendOf(target);
  const tsr::KernelInfo &kernel = requestedKernel(request);
  // The module names the command that writes it again: `tessera compile`, which finds only registered kernels;
  // for another (request.kernelInfo), the command that made the bundle.
  const std::string again = request.kernelInfo ? command : emitCommand(request, report.params, backend, pallasStyle);
  const std::shared_ptr<const compiler::TileProgram> plan = planFor(request, report, style);
  const std::string code = emitDeviceCode(kernelSource(kernel, report.params, report.target, *report.deviceProgram,
                                                       *report.provenance, plan.get(), again),
                                          backend, style);

  AtomicFolder folder(bundleDir, "bundle folder", replaceable(force), kForceNote);
  const fs::path &dir = folder.staging();
  for (const char *sub : {"inputs", "expected"})
    if (std::error_code ec; !fs::create_directory(dir / sub, ec))
      throw InputError(fmt::format("cannot write bundle folder '{}': {}", bundleDir.string(), ec.message()));
  const std::string module = kernel.name + ".py";
  AtomicFile(dir / module, "bundle file").commit(code);
  AtomicFile(dir / "run.py", "bundle file").commit(backends::deployRunner());
  fs::permissions(dir / "run.py", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  std::vector<std::string> files = {module, "run.py"};

  const isa::Program &program = *report.program;
  nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
  for (size_t i = 0; i < program.tensors.size(); ++i) {
    const isa::TensorInfo &t = program.tensors[i];
    if (t.isScratch) continue; // the kernel's own: the device module makes it
    const std::string file = fmt::format("{}/{}.npy", t.isOutput ? "expected" : "inputs", t.name);
    writeNpy(dir / file, {npyDescr(t.dtype), t.shape, (*report.hbm)[i]});
    files.push_back(file);
    nlohmann::json entry = {{"name", t.name}, {"shape", t.shape}, {"dtype", numpyName(t.dtype)},
                            {"storage", npyStorageName(t.dtype)}, {"file", file}};
    // Against the simulator's outputs, which follow the device's engines' order: the dtype's tolerance (not the
    // kernel's referenceTolerance, which allows for the exact reference; no device run has measured more).
    if (t.isOutput) entry["tolerance"] = tolerance(t.dtype);
    (t.isOutput ? outputs : inputs).push_back(entry);
  }
  nlohmann::json run = toJson(report);
  nlohmann::json manifest = {
      {"bundle_version", 1},
      {"kernel", report.kernel},
      {"summary", kernel.summary},
      {"target", report.target.name},
      {"family", report.target.family},
      {"backend", backend},
      {"module", module},
      {"pallas_style", backend == "pallas" ? pallasStyle : ""},
      {"function", kernel.name},
      {"shape", report.params.values()},
      {"kernel_params", report.params.kernelValues()},
      {"loop_buffers", request.compile.loopBuffers},
      {"seed", request.seed},
      {"input_dist", request.inputDist.describe()},
      {"command", command},
      {"inputs", inputs},
      {"outputs", outputs},
      {"predicted",
       {{"time_us", report.timeUs()},
        {"cycles", report.cycles()},
        {"instructions", report.instructions},
        {"hbm_bytes", report.sim.hbmBytes},
        {"flops", report.sim.flops},
        {"engines", run.value("engines", nlohmann::json::object())}}},
  };
  if (backend == "pallas") // what run.py --compile and --estimate need: libtpu's generation, its clock
    manifest["tpu"] = {{"topology", target.tpu.libtpuTopology.empty() ? nlohmann::json()
                                                                       : nlohmann::json(target.tpu.libtpuTopology)},
                       {"clock_ghz", target.tensor.clockGhz},
                       {"vmem_bytes", target.tpu.vmemBytes},
                       {"scoped_vmem_default_bytes", target.tpu.scopedVmemDefaultBytes},
                       {"kernel_vmem_max_bytes", target.tpu.kernelVmemMaxBytes},
                       {"vmem_peak_bytes", report.vmemPeakBytes}};
  if (backend == "nki") // what run.py tells NKI and the Neuron runtime: the platform, and the NeuronCores the kernel
                        // runs on: one (LNC=1), or an SPMD launch's cores (the module's LAUNCH_GRID)
    manifest["neuron"] = {{"generation", target.generation}, // v2 trn1, v3 trn2, v4 trn3: NKI's platform target
                          {"logical_nc_config", std::max<size_t>(1, report.cores.size())}};
  AtomicFile(dir / "tessera.json", "bundle file").commit(jsonText(manifest, 2) + "\n");
  AtomicFile(dir / "README.md", "bundle file").commit(readme(report, module, backend, command));
  files.push_back("tessera.json");
  files.push_back("README.md");
  folder.commit();
  return files;
}

} // namespace tessera::driver
