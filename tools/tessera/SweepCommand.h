#pragma once
/// \file
/// `tessera sweep`: one kernel over every combination of shape and kernel-parameter values, in parallel, as a
/// table sorted by simulated time (Sweep.h does the work).
///   tessera sweep KERNEL [--target T] --param bm=128,256,512 [--param bn=...] [--shape M=...] [--jobs N]
///                 [--timing-only] [--no-golden] [--no-checks] [--seed N] [--csv FILE] [--json]
/// Exit status: 0 every combination that ran passed its checks; 1 one failed a check; 2 bad usage, or no
/// combination could run (each row says why).
/// Under MPI (`mpirun -n N tessera sweep ...`, SweepRanks.h) the ranks share out the combinations, rank 0 prints the
/// same table (CSV, JSON) as one process would, and every rank exits with its status.

#include <string>
#include <vector>

namespace tessera::driver {

/// Runs the command on its arguments (after the word `sweep`); returns the exit status. Bad usage throws
/// InputError.
int runSweepCommand(const std::vector<std::string> &args);

} // namespace tessera::driver
