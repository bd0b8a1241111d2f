#include "Core.h"

#include "ProgramChecks.h"
#include "engines/ComputeEngine.h"
#include "engines/DmaQueue.h"

#include "tessera/isa/Error.h"
#include "tessera/isa/Family.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace tessera::sim {
namespace {

/// The simulator's time resolution is one picosecond (FreshSimContext sets it).
double nanoseconds(const sc_core::sc_time &t) { return static_cast<double>(t.value()) / 1000.0; }

std::unique_ptr<StreamEngine> makeEngine(const isa::Stream &stream, RunEnvironment &env) {
  const std::string label = stream.label();
  if (stream.engine == isa::Engine::Dma)
    return std::make_unique<DmaQueue>(label.c_str(), stream, env);
  return std::make_unique<ComputeEngine>(label.c_str(), stream, env);
}

/// The on-chip memories of `target`'s family, as that family lists them (familyOf(target).memories()).
std::vector<OnChipMemory> buildMemories(const isa::Target &target, bool withStorage) {
  std::vector<OnChipMemory> memories;
  for (const isa::FamilyMemory &m : isa::familyOf(target).memories(target)) {
    std::string label(isa::name(m.space)); // "SBUF"
    std::transform(label.begin(), label.end(), label.begin(), [](unsigned char c) { return std::toupper(c); });
    memories.emplace_back(std::move(label), m.partitions, m.bytesPerPartition, withStorage);
  }
  return memories;
}

/// What the instructions' semantics see: each memory of the machine in its slot, HBM's tensors.
isa::Memories viewOf(const std::vector<OnChipMemory> &memories, const Hbm &hbm, const isa::Target &target) {
  isa::Memories view{.hbm = hbm.tensorBases(), .gpsimdPartitionsPerCore = target.gpsimdPartitionsPerCore};
  const std::vector<isa::FamilyMemory> shapes = isa::familyOf(target).memories(target);
  for (size_t i = 0; i < memories.size(); ++i) {
    std::byte *data = memories[i].data();
    const uint64_t bytes = memories[i].bytesPerPartition();
    switch (shapes[i].space) {
    case isa::MemSpace::Sbuf: view.sbuf = data, view.sbufPartitionBytes = bytes; break;
    case isa::MemSpace::Psum: view.psum = data, view.psumPartitionBytes = bytes; break;
    case isa::MemSpace::Vmem: view.vmem = data, view.vmemBytes = bytes; break;
    case isa::MemSpace::Smem: view.smem = data, view.smemBytes = bytes; break;
    case isa::MemSpace::Hbm: break;
    }
  }
  return view;
}

} // namespace

Core::Core(sc_core::sc_module_name name, uint32_t index, const isa::Program &program, const isa::Target &target,
           Hbm &hbm, ChipRun &chip, const SimOptions &options)
    : sc_core::sc_module(name), program_(program), index_(index),
      memories_(buildMemories(target, options.computeValues)), dma_(hbm, target), ports_(target.ports),
      semaphores_(program.semaphores), stepBarrier_(program),
      checks_(options.checks ? std::make_unique<KernelBugChecks>(program, target) : nullptr),
      env_{.program = program,
           .core = index,
           .target = target,
           .computeValues = options.computeValues,
           .memories = viewOf(memories_, hbm, target),
           .semaphores = semaphores_,
           .hbm = hbm,
           .dma = dma_,
           .ports = ports_,
           .stepBarrier = stepBarrier_,
           .checks = checks_.get(),
           .chip = chip} {
  if (options.computeValues) env_.memories.packedOperands = &packedOperands_;
  if (options.recordTimeline) {
    timeline_.reserve(program.instructionCount()); // no allocation while it runs
    env_.timeline = &timeline_;
  }
  engines_.reserve(program.streams.size());
  for (const isa::Stream &stream : program.streams)
    engines_.push_back(makeEngine(stream, env_));
}

Core::~Core() = default;

bool Core::finished() const {
  return std::ranges::all_of(engines_, [](const auto &e) { return e->finished(); });
}

void Core::describeBlocked(std::string_view prefix, std::string &text, KernelBug &bug) const {
  for (const auto &engine : engines_) {
    if (engine->finished())
      continue;
    const isa::Stream &stream = engine->stream();
    const size_t position = engine->position();
    const isa::Instruction &inst = stream.instructions[position];
    const SourceLoc where = locationOf(program_, inst);
    const std::string at = where.known() ? fmt::format(" at {}", where.str()) : std::string{};
    std::string waits = "is stuck";
    if (engine->awaitingStep())
      waits = describeStepWait(inst);
    else if (const isa::SemWait *wait = engine->blockedOn())
      waits = fmt::format("waits for semaphore {} to reach {}; it stands at {}", wait->sem, wait->count,
                          semaphores_.count(wait->sem));
    text += fmt::format("\n  {}{}{} {}", prefix, describeInstruction(stream, position), at, waits);
    bug.instructions.push_back(bugInstruction(program_, stream, position, std::move(waits)));
    bug.instructions.back().core = index_;
  }
}

std::string Core::describeStepWait(const isa::Instruction &inst) const {
  if (inst.op != isa::Opcode::GridStep)
    return fmt::format("waits for grid step {}'s bookkeeping", inst.step);
  const uint32_t previous = inst.step - 1;
  const uint32_t unfinished = stepBarrier_.unfinished(previous);
  const std::string waits = fmt::format("grid step {} waits for {} unfinished instruction{} of step {}", inst.step,
                                        unfinished, unfinished == 1 ? "" : "s", previous);
  // A stream's steps never decrease, so an unfinished instruction of the previous step is where its stream stands.
  for (const auto &engine : engines_) {
    if (engine->finished())
      continue;
    const isa::Stream &stream = engine->stream();
    if (stream.instructions[engine->position()].step == previous)
      return fmt::format("{}, e.g. {}", waits, describeInstruction(stream, engine->position()));
  }
  return waits;
}

SimResult Core::results() const {
  SimResult result;
  sc_core::sc_time end;
  result.streams.reserve(engines_.size());
  for (const auto &engine : engines_) {
    const isa::Stream &stream = engine->stream();
    const size_t retired = engine->position();
    result.flops += engine->flops();
    for (unsigned d = 0; d < isa::kPeakDtypeCount; ++d) result.flopsByPeak[d] += engine->flopsByPeak()[d];
    result.hbmBytes += engine->hbmBytes();
    result.instructions += retired;
    end = std::max(end, engine->lastCompletion());
    result.streams.push_back({.name = stream.label(),
                              .engine = stream.engine,
                              .instructions = retired,
                              .busyNs = nanoseconds(engine->busy()),
                              .waitNs = nanoseconds(engine->waited())});
  }
  result.timeNs = nanoseconds(end);
  result.prints = env_.prints;
  return result;
}

} // namespace tessera::sim
