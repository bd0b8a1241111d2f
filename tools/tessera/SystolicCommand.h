#pragma once
/// \file
/// `tessera systolic`: one GEMM on one systolic array, cycle by cycle or in closed form (sim/systolic/,
/// docs/systolic.md).
///   tessera systolic --rows R --cols C --dataflow ws|os|is --gemm M,N,K [--model pe|fold] [--json]
///                    [--animate [--frame-ms N] [--max-frames N]] [--svg FILE] [--sram-kib I,F,O] [--target T]

#include <string>
#include <vector>

namespace tessera::driver {

/// Runs the command on its arguments (after the word `systolic`); returns the exit status. Bad usage throws
/// InputError.
int runSystolicCommand(const std::vector<std::string> &args);

} // namespace tessera::driver
