#include "tessera/DeviceCode.h"
#include "tessera/isa/Family.h"

#include "tessera/backends/Nki.h"
#include "tessera/backends/Pallas.h"

#include <fmt/format.h>

namespace tessera::driver {

std::string deviceBackendOf(const isa::Target &target) { return std::string(isa::familyOf(target).deviceBackend()); }

std::string emitCommand(const RunRequest &request, const tsr::Params &params, const std::string &backend,
                        const std::string &pallasStyle) {
  std::string command =
      fmt::format("tessera compile {} --target {} --shape {}", request.kernel, request.target, params.str());
  if (!params.kernelStr().empty()) command += " --param " + params.kernelStr();
  if (request.compile.loopBuffers != compiler::CompileOptions{}.loopBuffers)
    command += fmt::format(" --loop-buffers {}", request.compile.loopBuffers);
  command += " --emit " + backend;
  if (backend == "pallas" && pallasStyle != "auto") command += " --pallas-style " + pallasStyle;
  return command;
}

backends::KernelSource kernelSource(const tsr::KernelInfo &kernel, const tsr::Params &params, const isa::Target &target,
                                    const isa::Program &program, const compiler::Provenance &provenance,
                                    const compiler::TileProgram *tileProgram, std::string command) {
  backends::KernelSource source;
  source.kernel = kernel.name;
  source.summary = kernel.summary;
  source.parameters = params.kernelStr().empty() ? params.str() : params.str() + "," + params.kernelStr();
  source.command = std::move(command);
  source.target = &target;
  source.program = &program;
  source.provenance = &provenance;
  source.tileProgram = tileProgram;
  return source;
}

std::string emitDeviceCode(const backends::KernelSource &source, const std::string &backend,
                           backends::PallasStyle style) {
  try {
    if (backend == "nki") return backends::emitNki(source);
    if (backend == "pallas") return backends::emitPallas(source, style);
  } catch (const Error &e) {
    throw InputError(e);
  }
  throw InputError(fmt::format("unknown backend '{}'", backend), {}, "backends: nki (Trainium), pallas (TPU)");
}

backends::PallasStyle pallasStyle(const std::string &name) {
  if (std::optional<backends::PallasStyle> style = backends::parsePallasStyle(name)) return *style;
  throw InputError(
      fmt::format("--pallas-style: unknown style '{}'", name), {},
      "styles: auto (a grid where the kernel's loops allow one, else one invocation), grid (a grid, or an error), "
      "manual (one invocation, every load and store an async copy)");
}

} // namespace tessera::driver
