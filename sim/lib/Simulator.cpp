/// \file
/// simulate() and simulateChip(): check the HBM image, the target and the streams, build the chip (its cores) in a
/// fresh SystemC context, run it and collect the results. simulate() is the one-core case.

#include "tessera/sim/Simulator.h"

#include "Chip.h"
#include "ProgramChecks.h"
#include "SimContext.h"
#include "Semaphores.h"
#include "checks/CrossCoreHbm.h"
#include "checks/HappensBefore.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

namespace tessera::sim {
namespace {

/// "tensor 1 'y' [64, 128] f32 output".
std::string describeTensor(size_t index, const isa::TensorInfo &t) {
  return fmt::format("tensor {} '{}' [{}] {}{}", index, t.name, fmt::join(t.shape, ", "), isa::name(t.dtype),
                     t.isOutput ? " output" : "");
}

bool sameTensor(const isa::TensorInfo &a, const isa::TensorInfo &b) {
  return a.name == b.name && a.shape == b.shape && a.dtype == b.dtype && a.isOutput == b.isOutput;
}

/// The cores of one chip share HBM: every program must list core 0's tensors.
void checkSameTensors(std::span<const isa::Program> cores) {
  const std::vector<isa::TensorInfo> &first = cores[0].tensors;
  constexpr std::string_view kHint = "the cores of one chip share HBM: compile every core's program from one kernel "
                                     "launch, so that each lists the same tensors in the same order";
  for (size_t c = 1; c < cores.size(); ++c) {
    const std::vector<isa::TensorInfo> &tensors = cores[c].tensors;
    for (size_t t = 0; t < std::min(first.size(), tensors.size()); ++t)
      if (!sameTensor(first[t], tensors[t]))
        throw Error(fmt::format("core {}'s program (kernel '{}') has {} where core 0's has {}", c, cores[c].kernel,
                                describeTensor(t, tensors[t]), describeTensor(t, first[t])),
                    {}, std::string(kHint));
    if (tensors.size() != first.size())
      throw Error(fmt::format("core {}'s program (kernel '{}') has {} HBM tensors where core 0's has {}", c,
                              cores[c].kernel, tensors.size(), first.size()),
                  {}, std::string(kHint));
  }
}

/// Runs `check` on core `core`'s program; with several cores, an Error it throws names the core.
template <typename Check> void onCore(size_t cores, size_t core, Check check) {
  if (cores == 1)
    return check();
  try {
    check();
  } catch (const Error &e) {
    throw Error(fmt::format("core {}: {}", core, e.message()), e.where(), e.hint());
  }
}

} // namespace

uint64_t semaphoreHostBytes(const isa::Program &program, bool checks) {
  const uint64_t perSemaphore =
      Semaphores::kHostBytesPerSemaphore + (checks ? HappensBefore::hostBytesPerSemaphore(program) : 0);
  return uint64_t{program.semaphores} * perSemaphore;
}

ChipResult simulateChip(std::span<const isa::Program> cores, const isa::Target &target, HbmImage &hbm,
                        const SimOptions &options) {
  if (cores.empty())
    throw Error("simulateChip: no program to run", {}, "pass one isa::Program per core");
  const unsigned chipCores = target.hbm.coresPerChip;
  if (cores.size() > 1 && chipCores != 0 && cores.size() > chipCores)
    throw Error(fmt::format("{} programs cannot run on one chip of target '{}', which has {} core{}", cores.size(),
                            target.name, chipCores, chipCores == 1 ? "" : "s"),
                {}, "launch at most hbm.cores_per_chip programs on one chip");
  checkSameTensors(cores);
  prepareHbm(cores[0], hbm, options.computeValues);
  for (size_t c = 0; c < cores.size(); ++c)
    onCore(cores.size(), c, [&] {
      checkTarget(cores[c], target);
      checkStreams(cores[c]);
    });
  if (options.checks) checkCoresTouchApart(cores);
  FreshSimContext context; // first: waiting for another thread's simulation to finish is not this one's time
  const auto start = std::chrono::steady_clock::now();
  Chip chip(cores, target, hbm, options);
  chip.run();
  ChipResult result = chip.results();
  result.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (SimResult &core : result.cores)
    core.hostSeconds = result.hostSeconds;
  return result;
}

SimResult simulate(const isa::Program &program, const isa::Target &target, HbmImage &hbm,
                   const SimOptions &options) {
  return std::move(simulateChip(std::span(&program, 1), target, hbm, options).cores.front());
}

} // namespace tessera::sim
