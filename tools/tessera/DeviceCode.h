#pragma once
/// \file
/// The kernel the simulator ran, as source for a device toolchain: `tessera compile --emit nki|pallas` and the
/// kernel file of `tessera deploy`.

#include "tessera/Driver.h"
#include "tessera/backends/KernelSource.h"
#include "tessera/backends/Pallas.h"

#include <string>

namespace tessera::driver {

/// The backend that emits code for `target`'s family: "nki" (NeuronCore) or "pallas" (TPU).
std::string deviceBackendOf(const isa::Target &target);

/// The command that emits the same file again: "tessera compile matmul --target trn2 --shape ... --emit nki".
std::string emitCommand(const RunRequest &request, const tsr::Params &params, const std::string &backend,
                        const std::string &pallasStyle = "auto");

/// What a backend reads, for a kernel compiled (or run) with provenance. The pointers point into `target`,
/// `program`, `provenance` and `tileProgram` (which may be null), which must outlive the result.
backends::KernelSource kernelSource(const tsr::KernelInfo &kernel, const tsr::Params &params, const isa::Target &target,
                                    const isa::Program &program, const compiler::Provenance &provenance,
                                    const compiler::TileProgram *tileProgram, std::string command);

/// The Python module of `backend` ("nki" or "pallas", in `style`) for `source`. A target of the other family, or
/// a kernel the backend cannot express, is an InputError naming the kernel's line.
std::string emitDeviceCode(const backends::KernelSource &source, const std::string &backend,
                           backends::PallasStyle style = backends::PallasStyle::Auto);

/// --pallas-style's value, or an InputError listing the styles.
backends::PallasStyle pallasStyle(const std::string &name);

} // namespace tessera::driver
