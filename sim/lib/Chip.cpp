#include "Chip.h"

#include "tessera/isa/Error.h"
#include "tessera/sim/KernelBug.h"
#include "tessera/sim/SimulatedTimeOverflow.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

namespace tessera::sim {

Chip::Chip(std::span<const isa::Program> programs, const isa::Target &target, HbmImage &hbm,
           const SimOptions &options)
    : hbm_(hbm, static_cast<unsigned>(programs.size())) {
  if (options.progress) run_.progress = &options.progress;
  cores_.reserve(programs.size());
  for (size_t i = 0; i < programs.size(); ++i) {
    // One core keeps the name it always had; several are core0, core1, ...
    const std::string name = programs.size() == 1 ? std::string("core") : fmt::format("core{}", i);
    cores_.push_back(std::make_unique<Core>(name.c_str(), static_cast<uint32_t>(i), programs[i], target, hbm_, run_,
                                            options));
    run_.total += programs[i].instructionCount();
  }
}

Chip::~Chip() = default;

void Chip::run() {
  const bool anyStream = std::ranges::any_of(cores_, [](const auto &c) { return !c->program().streams.empty(); });
  if (!anyStream)
    return;
  sc_core::sc_start();
  if (run_.failure)
    rethrowFailure();
  if (!std::ranges::all_of(cores_, [](const auto &c) { return c->finished(); }))
    throwDeadlock();
}

void Chip::rethrowFailure() const {
  const uint32_t core = run_.failedCore;
  // With several cores the message says whose failure it is; one core's message stays as it always was.
  const std::string prefix = cores_.size() > 1 ? fmt::format("core {}: ", core) : std::string{};
  try {
    std::rethrow_exception(run_.failure);
  } catch (KernelBugError &e) {
    e.bug().prints = cores_[core]->prints(); // what the kernel printed before it went wrong
    for (BugInstruction &inst : e.bug().instructions)
      inst.core = core;
    if (prefix.empty())
      throw;
    throw KernelBugError(std::move(e.bug()), prefix + e.message(), e.where(), e.hint());
  } catch (const SimulatedTimeOverflow &e) {
    if (prefix.empty())
      throw;
    throw SimulatedTimeOverflow(prefix + e.message(), e.where(), e.hint());
  } catch (const Error &e) {
    if (prefix.empty())
      throw;
    throw Error(prefix + e.message(), e.where(), e.hint());
  }
}

void Chip::throwDeadlock() const {
  const double nowNs = static_cast<double>(sc_core::sc_time_stamp().value()) / 1000.0;
  const uint32_t failed = static_cast<uint32_t>(
      std::ranges::find_if(cores_, [](const auto &c) { return !c->finished(); }) - cores_.begin());
  KernelBug bug{.kind = BugKind::Deadlock, .timeNs = nowNs, .prints = cores_[failed]->prints()};
  std::string blocked;
  for (size_t i = 0; i < cores_.size(); ++i) {
    if (cores_[i]->finished())
      continue;
    const std::string prefix = cores_.size() > 1 ? fmt::format("core {}: ", i) : std::string{};
    cores_[i]->describeBlocked(prefix, blocked, bug);
  }
  SourceLoc firstLocation;
  if (const auto known = std::ranges::find_if(bug.instructions, [](const auto &inst) { return inst.loc.known(); });
      known != bug.instructions.end())
    firstLocation = known->loc;
  throw KernelBugError(std::move(bug),
                       fmt::format("deadlock in kernel '{}' at {} ns: no blocked stream can proceed{}",
                                   cores_[failed]->program().kernel, nowNs, blocked),
                       firstLocation,
                       "every semaphore wait needs enough signals from instructions that can run before it; a count "
                       "above the number of signals, or a cycle of waits, never resolves");
}

ChipResult Chip::results() {
  ChipResult result;
  result.cores.reserve(cores_.size());
  for (const auto &core : cores_) {
    SimResult &r = result.cores.emplace_back(core->results());
    r.timeline = core->takeTimeline();
    result.timeNs = std::max(result.timeNs, r.timeNs);
    result.instructions += r.instructions;
    result.flops += r.flops;
    for (unsigned d = 0; d < isa::kPeakDtypeCount; ++d)
      result.flopsByPeak[d] += r.flopsByPeak[d];
    result.hbmBytes += r.hbmBytes;
  }
  return result;
}

} // namespace tessera::sim
