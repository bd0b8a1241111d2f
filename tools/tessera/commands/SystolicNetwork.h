#pragma once
/// \file
/// `tessera systolic -c CONFIG -t TOPOLOGY`: a whole network through SCALE-Sim v3's model
/// (sim/systolic/include/tessera/systolic/scalesim/), with SCALE-Sim's report files. Systolic.cpp parses the
/// command line and calls it.

#include <string>

namespace tessera::driver {

struct SystolicNetworkOptions {
  std::string config, topology, layout, inputType;
  std::string logDir = "results"; ///< the reports go to <logDir>/<run_name>/, as SCALE-Sim's -p
  bool json = false;
  bool trace = false; ///< also write each layer's SRAM traces (layer<N>/IFMAP_SRAM_TRACE.csv, ...)
  unsigned jobs = 0;  ///< layers simulated at once (at most 1024); 0: one per core
};

/// Returns the exit status (kOk); throws InputError for bad files, LimitError when a layer is too large.
int systolicNetworkCommand(const SystolicNetworkOptions &options);

} // namespace tessera::driver
