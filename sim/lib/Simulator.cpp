/// \file
/// simulate(): checks the HBM image, the target and the streams, builds a machine in a fresh SystemC context, runs
/// it and collects the results.

#include "tessera/sim/Simulator.h"

#include "Machine.h"
#include "ProgramChecks.h"
#include "SimContext.h"

#include <chrono>

namespace tessera::sim {

SimResult simulate(const isa::Program &program, const isa::Target &target, HbmImage &hbm,
                   const SimOptions &options) {
  prepareHbm(program, hbm, options.computeValues);
  checkTarget(program, target);
  checkStreams(program);
  FreshSimContext context; // first: waiting for another thread's simulation to finish is not this one's time
  const auto start = std::chrono::steady_clock::now();
  Machine machine("core", program, target, hbm, options);
  machine.run();
  SimResult result = machine.results();
  result.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.timeline = machine.takeTimeline();
  return result;
}

} // namespace tessera::sim
