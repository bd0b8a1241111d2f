// `tessera compile`: a compiler stage of one kernel as MLIR text, or the kernel as NKI or Pallas source.

#include "tessera/commands/Commands.h"
#include "tessera/isa/Family.h"

#include "tessera/AtomicFile.h"
#include "tessera/CommandLine.h"
#include "tessera/DeviceCode.h"
#include "tessera/Driver.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <optional>

namespace po = boost::program_options;

namespace tessera::driver {

namespace {

/// `tessera compile --emit nki|pallas`: the kernel as the simulator ran it, for the device's toolchain, on stdout
/// or into `output`.
int emitForDevice(RunRequest r, const std::string &backend, const std::string &output, const std::string &style) {
  r.compile.recordProvenance = true;
  const backends::PallasStyle pallas = pallasStyle(style);
  r.compile.launchGrid = backends::launchGridFor(pallas);
  std::optional<AtomicFile> file;
  if (!output.empty()) file.emplace(output, backend + " module");
  CompiledKernel k = compileKernel(r);
  const std::string text =
      emitDeviceCode(kernelSource(*k.kernel, k.params, k.target, k.compiled.program, k.compiled.provenance,
                                  &k.compiled.tileProgram,
                                  emitCommand(r, k.params, backend, style)),
                     backend, pallas);
  if (file)
    file->commit(text);
  else
    fmt::print("{}", text);
  return kOk;
}

} // namespace

int compileCommand(const std::vector<std::string> &args) {
  KernelOptions opts;
  std::string emit, output, style = "auto";
  bool printAfterAll = false, locations = false;
  po::options_description desc("tessera compile KERNEL");
  opts.add(desc);
  LimitOptions limits;
  limits.add(desc, /*simulates=*/false);
  desc.add_options()("emit", po::value(&emit)->required(),
                     "stage to print: tile (as imported), tile-allocated, nc (NeuronCore) or tpu (TPU); or the kernel "
                     "for the device: nki (Trainium) or pallas (TPU)")(
      "output,o", po::value(&output)->value_name("FILE"), "write to FILE instead of stdout (nki, pallas)")(
      "pallas-style", po::value(&style)->default_value(style),
      "--emit pallas: auto (the kernel's outer loops as a grid where they allow, else one invocation), grid (a "
      "grid, or an error) or manual (one invocation, every load and store an async copy); loops stay loops")(
      "print-ir-after-all", po::bool_switch(&printAfterAll), "print the module after every pass (stderr)")(
      "locations", po::bool_switch(&locations), "print each op's kernel source line (keep them for tessera sim)");
  parse(args, desc, "kernel");
  const bool device = emit == "nki" || emit == "pallas";
  if (emit != "tile" && emit != "tile-allocated" && emit != "nc" && emit != "tpu" && !device)
    throw InputError(fmt::format("--emit: unknown stage '{}'", emit), {},
                     "stages: tile, tile-allocated, nc, tpu; device code: nki, pallas");
  if (!output.empty() && !device)
    throw InputError("--output: only --emit nki and --emit pallas write a file; the MLIR stages go to stdout");
  RunRequest r = opts.request();
  limits.apply(r);
  if (device) return emitForDevice(r, emit, output, style);
  const tsr::KernelInfo &kernel = findKernel(r.kernel);
  isa::Target target = loadTarget(r.target);
  const std::string targetStage(isa::familyOf(target).stage());
  const bool machineLevel = emit == "nc" || emit == "tpu";
  if (machineLevel && emit != targetStage)
    throw InputError(fmt::format("--emit {}: target {} is a {}, whose instructions are the {} dialect's", emit,
                                 target.name, target.family, targetStage),
                     {}, fmt::format("use --emit {}", targetStage));
  tsr::Params params;
  tsr::graph::KernelGraph graph = traceKernel(kernel, r.shape, params, r.kernelParams, r.scalarParams);
  if (emit == "tile") {
    fmt::print("{}", compiler::importToText(graph, target));
    return kOk;
  }
  r.compile.keepTileIr = emit == "tile-allocated";
  r.compile.keepNcIr = machineLevel;
  r.compile.printIrAfterAll = printAfterAll;
  r.compile.printLocations = locations;
  compiler::CompileResult result;
  try {
    result = compiler::compile(graph, target, r.compile);
  } catch (const compiler::InstructionLimitError &e) {
    throw LimitError(e.message(), e.where(), "raise --max-instructions, or use smaller shapes");
  } catch (const Error &e) {
    throw CompileRefused(e); // a kernel the compiler refuses is bad input, as in `tessera run`
  }
  fmt::print("{}", machineLevel ? result.ncIr : result.tileIr);
  return kOk;
}

} // namespace tessera::driver
