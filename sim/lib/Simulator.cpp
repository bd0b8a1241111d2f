/// \file
/// simulate(): checks the HBM image, the target and the streams, builds a machine in a fresh SystemC context, runs
/// it and collects the results.

#include "tessera/sim/Simulator.h"

#include "Machine.h"
#include "ProgramChecks.h"
#include "SimContext.h"
#include "Semaphores.h"
#include "checks/HappensBefore.h"

#include <chrono>

namespace tessera::sim {

uint64_t semaphoreHostBytes(const isa::Program &program, bool checks) {
  const uint64_t perSemaphore =
      Semaphores::kHostBytesPerSemaphore + (checks ? HappensBefore::hostBytesPerSemaphore(program) : 0);
  return uint64_t{program.semaphores} * perSemaphore;
}

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
