#include "tessera/DeviceCode.h"

#include "tessera/backends/Nki.h"
#include "tessera/backends/Pallas.h"

#include <fmt/format.h>

namespace tessera::driver {

std::string deviceBackendOf(const isa::Target &target) { return target.isTpu() ? "pallas" : "nki"; }

std::string emitCommand(const RunRequest &request, const tsr::Params &params, const std::string &backend) {
  std::string command = fmt::format("tessera compile {} --target {} --shape {}", request.kernel, request.target,
                                    params.str());
  if (!params.kernelStr().empty()) command += " --param " + params.kernelStr();
  if (request.compile.loopBuffers != compiler::CompileOptions{}.loopBuffers)
    command += fmt::format(" --loop-buffers {}", request.compile.loopBuffers);
  return command + " --emit " + backend;
}

backends::KernelSource kernelSource(const tsr::KernelInfo &kernel, const tsr::Params &params, const isa::Target &target,
                                    const isa::Program &program, const compiler::Provenance &provenance,
                                    std::string command) {
  backends::KernelSource source;
  source.kernel = kernel.name;
  source.summary = kernel.summary;
  source.parameters = params.kernelStr().empty() ? params.str() : params.str() + "," + params.kernelStr();
  source.command = std::move(command);
  source.target = &target;
  source.program = &program;
  source.provenance = &provenance;
  return source;
}

std::string emitDeviceCode(const backends::KernelSource &source, const std::string &backend) {
  try {
    if (backend == "nki") return backends::emitNki(source);
    if (backend == "pallas") return backends::emitPallas(source);
  } catch (const Error &e) {
    throw InputError(e);
  }
  throw InputError(fmt::format("unknown backend '{}'", backend), {}, "backends: nki (Trainium), pallas (TPU)");
}

} // namespace tessera::driver
