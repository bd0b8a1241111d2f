#pragma once
/// \file
/// The `tessera` commands, one file each in this folder (commands/Run.cpp is `tessera run`); main.cpp dispatches
/// to them by name. Each takes its arguments after the command's name and returns the exit status (CommandLine.h:
/// kOk, kCheckFailed, kBadInput, kLimit); bad usage throws InputError, and the other errors go to main too, which
/// reports them. Any command also takes --plugin LIB.so (repeatable; main loads them first): kernels of your own,
/// built with tessera_add_kernels.

#include <string>
#include <vector>

namespace tessera::driver {

/// `tessera list [--json]`: kernels, their shape parameters and kernel parameters.
int listCommand(const std::vector<std::string> &args);

/// `tessera targets [--json]`: the machines that can be simulated.
int targetsCommand(const std::vector<std::string> &args);

/// `tessera run KERNEL [--target T] [--shape K=V,...] [--param P=V,...] [--seed N] [--no-golden] [--json]
///                     [--trace FILE.json] [--report FILE.html] [--input NAME=FILE.npy ...] [--output-dir DIR]`:
/// compiles, simulates and checks a kernel. Exit 1 when an output is out of tolerance or a kernel bug stops it.
int runCommand(const std::vector<std::string> &args);

/// `tessera compile KERNEL [--target T] [--shape ...] [--param ...] --emit tile|tile-allocated|nc|tpu|nki|pallas
///                         [-o FILE]`: prints a compiler stage, or the kernel for the device's toolchain.
int compileCommand(const std::vector<std::string> &args);

/// `tessera deploy KERNEL [--target T] [--shape ...] [--param ...] [--seed N] -o DIR`: the folder for the device
/// host (Deploy.h).
int deployCommand(const std::vector<std::string> &args);

/// `tessera compare KERNEL --targets T1,T2,... [--shape ...] [--price T=USD] [--json|--csv]`: one kernel on
/// several targets (Compare.h), as a table, CSV or JSON.
int compareCommand(const std::vector<std::string> &args);

/// `tessera calibrate RECORD.json... [--target T] [--fit TABLE.KEY,...] [--write FILE.toml] [--json]`: fits a
/// target's cost coefficients to measured times (Calibrate.h).
int calibrateCommand(const std::vector<std::string> &args);

/// `tessera fidelity [POINTS.toml] [--holdout] [--jobs N] [--json]`: every published hardware measurement of the
/// suite against the simulator (Fidelity.h). Exit 1 when a point is out of tolerance or a published ranking is not
/// reproduced (with --holdout, also a hold-out error over its goal); 2 for a bad suite file.
int fidelityCommand(const std::vector<std::string> &args);

/// `tessera sim FILE.mlir [--seed N] [--timing-only] [--json] [--trace FILE.json]`: simulates a saved module.
int simCommand(const std::vector<std::string> &args);

/// `tessera isa [INSTRUCTION] [--target T] [--json] [--markdown]`: the instruction set reference
/// (IsaReference.h).
int isaCommand(const std::vector<std::string> &args);

/// `tessera sweep KERNEL [--target T] --param bm=128,256,512 [--param bn=...] [--shape M=...] [--jobs N]
///                [--timing-only] [--no-golden] [--no-checks] [--seed N] [--csv FILE] [--json]`: one kernel over
/// every combination of shape and kernel-parameter values, in parallel, as a table sorted by simulated time
/// (Sweep.h does the work). Exit status: 0 every combination that ran passed its checks; 1 one failed a check; 2
/// bad usage, or no combination could run (each row says why). Under MPI (`mpirun -n N tessera sweep ...`,
/// SweepRanks.h) the ranks share out the combinations, rank 0 prints the same table (CSV, JSON) as one process
/// would, and every rank exits with its status.
int sweepCommand(const std::vector<std::string> &args);

/// `tessera systolic --rows R --cols C --dataflow ws|os|is --gemm M,N,K [--model pe|fold] [--json]
///                   [--animate [--frame-ms N] [--max-frames N]] [--svg FILE] [--sram-kib I,F,O] [--target T]`:
/// one GEMM on one systolic array, cycle by cycle or in closed form (sim/systolic/, docs/systolic.md);
/// `tessera systolic -c CONFIG.cfg -t TOPOLOGY.csv [-l LAYOUT.csv] [-i conv|gemm] [-p DIR] [--trace] [--json]`:
/// a network as SCALE-Sim v3 runs it, with its report files (SystolicNetwork.h).
int systolicCommand(const std::vector<std::string> &args);

} // namespace tessera::driver
