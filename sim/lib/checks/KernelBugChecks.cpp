#include "checks/KernelBugChecks.h"

#include "ProgramChecks.h"

#include "tessera/isa/Error.h"
#include "tessera/isa/Family.h"

#include <fmt/format.h>

#include <array>
#include <span>

#include <systemc>

namespace tessera::sim {
namespace {

using isa::AccessPattern;
using isa::Instruction;
using isa::Opcode;

double nowNs() { return static_cast<double>(sc_core::sc_time_stamp().value()) / 1000.0; }

/// Whether `target`'s family has PSUM, where matmuls accumulate.
bool hasPsum(const isa::Target &target) {
  for (const isa::FamilyMemory &m : isa::familyOf(target).memories(target))
    if (m.space == isa::MemSpace::Psum) return true;
  return false;
}

} // namespace

KernelBugChecks::KernelBugChecks(const isa::Program &program, const isa::Target &target)
    : program_(program), target_(target), order_(program), history_(program), written_(program, target),
      nonMatmulPsum_(!hasPsum(target) || target.tensor.accumulateOntoNonMatmulDefined
                         ? nullptr
                         : std::make_unique<NonMatmulPsum>()),
      tensorWritten_(program.tensors.size(), 0) {
  for (const isa::Stream &stream : program.streams)
    if (stream.engine == isa::Engine::Dma) // only DMA transfers reach HBM (checkInstruction)
      for (const Instruction &inst : stream.instructions)
        isa::forEachOperand(inst, [&](const char *, const AccessPattern &ap, bool write) {
          if (write && ap.space == isa::MemSpace::Hbm && ap.tensor >= 0 &&
              static_cast<size_t>(ap.tensor) < tensorWritten_.size())
            tensorWritten_[static_cast<size_t>(ap.tensor)] = 1;
        });
}

void KernelBugChecks::start(uint32_t s, size_t index) {
  const Instruction &inst = program_.streams[s].instructions[index];
  order_.start(s, index, inst);
  // Every operand's history entry first: making an entry may move the others.
  struct Use {
    const char *slot;
    const AccessPattern *ap;
    bool write;
    uint32_t id;
  };
  std::array<Use, 6> uses;
  size_t count = 0;
  isa::forEachOperand(inst, [&](const char *slot, const AccessPattern &ap, bool write) {
    if (!write && readsUnwrittenTensor(ap))
      return;
    uses[count++] = {slot, &ap, write, history_.entryOf(ap)};
  });
  for (const Use &u : std::span(uses.data(), count)) {
    if (u.write)
      checkWrite(s, index, u.slot, *u.ap, u.id);
    else
      checkRead(s, index, u.slot, *u.ap, u.id, inst.preserve);
  }

  const Access self{.stream = s, .index = static_cast<uint32_t>(index)};
  if (nonMatmulPsum_)
    for (const Use &u : std::span(uses.data(), count)) {
      if (!u.write || u.ap->space != isa::MemSpace::Psum)
        continue;
      const Region &written = history_.region(u.id);
      const bool matmul = inst.op == Opcode::Matmul;
      if (matmul && inst.accumulate)
        if (const NonMatmulPsum::Rectangle *init = nonMatmulPsum_->find(written)) [[unlikely]]
          reportAccumulation(s, index, written, *init);
      nonMatmulPsum_->write(written, self, matmul);
    }
  for (const Use &u : std::span(uses.data(), count)) {
    if (u.write)
      history_.recordWrite(u.id, self);
    else if (std::string_view(u.slot) != "dst") // a matmul's accumulation read is covered by its write
      history_.recordRead(u.id, self);
  }
}

void KernelBugChecks::checkRead(uint32_t s, size_t index, const char *operand, const AccessPattern &ap,
                                uint32_t id, bool preserves) {
  if (history_.memoryWritten(id)) {
    checkAgainst(s, index, operand, false, id, id);
    for (uint32_t other : history_.overlaps(id))
      checkAgainst(s, index, operand, false, id, other);
  }
  if (history_.written(id) || preserves) // a read-modify-write's read writes unwritten bytes back as they were
    return;
  WrittenBytes::Hole hole;
  if (!written_.allWritten(ap, hole)) [[unlikely]]
    reportUninitialised(s, index, operand, ap, hole);
  history_.setWritten(id);
}

void KernelBugChecks::checkWrite(uint32_t s, size_t index, const char *operand, const AccessPattern &ap,
                                 uint32_t id) {
  checkAgainst(s, index, operand, true, id, id);
  for (uint32_t other : history_.overlaps(id))
    checkAgainst(s, index, operand, true, id, other);
  if (history_.written(id))
    return;
  written_.markWritten(ap);
  history_.setWritten(id);
}

void KernelBugChecks::checkAgainst(uint32_t s, size_t index, const char *operand, bool writes, uint32_t id,
                                   uint32_t other) {
  const AccessHistory::Accesses &entry = history_.accesses(other);
  const Access writer = entry.writer;
  if (writer.valid() && !order_.ordered(writer.stream, writer.index, s)) [[unlikely]]
    reportRace(s, index, operand, writes, id, other, writer, true);
  if (!writes)
    return;
  for (const Access &reader : entry.readers)
    if (!order_.ordered(reader.stream, reader.index, s)) [[unlikely]]
      reportRace(s, index, operand, writes, id, other, reader, false);
}

namespace {

/// "stream 'vector', instruction 3 (tensor_copy) at softmax.cpp:25".
std::string instructionAt(const isa::Program &program, uint32_t s, size_t index) {
  const isa::Stream &stream = program.streams[s];
  const SourceLoc where = locationOf(program, stream.instructions[index]);
  const std::string at = where.known() ? fmt::format(" at {}", where.str()) : std::string{};
  return describeInstruction(stream, index) + at;
}

/// "sbuf", "psum", "vmem" or "smem": the name of an on-chip memory the checks track.
std::string_view onChipName(MemoryId memory) {
  switch (memory) {
  case kSbufMemory: return isa::name(isa::MemSpace::Sbuf);
  case kPsumMemory: return isa::name(isa::MemSpace::Psum);
  case kVmemMemory: return isa::name(isa::MemSpace::Vmem);
  default: return isa::name(isa::MemSpace::Smem);
  }
}

/// "sbuf partitions [0, 128) bytes [0, 2048)", "hbm tensor 'c' bytes [0, 4096)", "vmem bytes [4096, 4608) of 8
/// rows 2048 bytes apart".
std::string describeRegion(const isa::Program &program, const Region &r) {
  if (r.memory >= kFirstHbmMemory)
    return fmt::format("hbm tensor '{}' bytes [{}, {})", program.tensors[r.memory - kFirstHbmMemory].name, r.b0,
                       r.b1);
  if (r.memory == kVmemMemory || r.memory == kSmemMemory) {
    const std::string bytes = fmt::format("{} bytes [{}, {})", onChipName(r.memory), r.b0, r.b1);
    return r.pitched() ? fmt::format("{} of {} rows {} bytes apart", bytes, r.p1 - r.p0, r.pitch) : bytes;
  }
  return fmt::format("{} partitions [{}, {}) bytes [{}, {})", onChipName(r.memory), r.p0, r.p1, r.b0, r.b1);
}

/// A checks Region as a report's BugRegion.
BugRegion bugRegion(const isa::Program &program, const Region &r) {
  BugRegion region{.p0 = r.p0, .p1 = r.p1, .b0 = r.b0, .b1 = r.b1, .rowPitch = r.pitch};
  if (r.memory >= kFirstHbmMemory) {
    region.memory = "hbm";
    region.tensor = program.tensors[r.memory - kFirstHbmMemory].name;
  } else {
    region.memory = onChipName(r.memory);
  }
  return region;
}

} // namespace

void KernelBugChecks::reportRace(uint32_t s, size_t index, const char *operand, bool writes, uint32_t id,
                                 uint32_t other, Access earlier, bool earlierWrites) const {
  const Region overlap = history_.region(id).intersection(history_.region(other));
  const char *kind = writes ? (earlierWrites ? "write after write" : "write after read") : "read after write";
  KernelBug bug{.kind = BugKind::Race, .detail = kind, .timeNs = nowNs(), .region = bugRegion(program_, overlap)};
  bug.instructions.push_back(bugInstruction(program_, program_.streams[s], index,
                                            fmt::format("{} {}", writes ? "writes" : "reads", operand)));
  bug.instructions.push_back(bugInstruction(program_, program_.streams[earlier.stream], earlier.index,
                                            earlierWrites ? "writes" : "reads"));
  throw KernelBugError(std::move(bug),
                       fmt::format("race in kernel '{}' at {} ns ({}): {} {} {} ({}), which {} {}, and no semaphore "
                                   "orders the two",
                                   program_.kernel, nowNs(), kind, instructionAt(program_, s, index),
                                   writes ? "writes" : "reads", describeRegion(program_, overlap), operand,
                                   instructionAt(program_, earlier.stream, earlier.index),
                                   earlierWrites ? "writes" : "reads"),
                       locationOf(program_, program_.streams[s].instructions[index]),
                       "make one of the two wait for a semaphore that the other signals, directly or through a chain "
                       "of semaphores across streams");
}

void KernelBugChecks::reportUninitialised(uint32_t s, size_t index, const char *operand, const AccessPattern &ap,
                                          const WrittenBytes::Hole &hole) const {
  const MemoryId memory = memoryOf(ap);
  const Region where{.memory = memory, .p0 = hole.row, .p1 = hole.row + 1, .b0 = hole.first, .b1 = hole.last};
  std::string place = describeRegion(program_, where);
  if (memory == kSbufMemory || memory == kPsumMemory) // one partition: say so plainly
    place = fmt::format("{} partition {} bytes [{}, {})", onChipName(memory), hole.row, hole.first, hole.last);
  const bool output = memory >= kFirstHbmMemory;
  KernelBug bug{.kind = BugKind::UninitialisedRead, .timeNs = nowNs(), .region = bugRegion(program_, where)};
  bug.instructions.push_back(bugInstruction(program_, program_.streams[s], index, fmt::format("reads {}", operand)));
  throw KernelBugError(std::move(bug),
                       fmt::format("uninitialised read in kernel '{}' at {} ns: {} reads {} ({}), which no "
                                   "instruction has written{}",
                                   program_.kernel, nowNs(), instructionAt(program_, s, index), place, operand,
                                   output ? " (an output tensor starts unwritten)" : ""),
                       locationOf(program_, program_.streams[s].instructions[index]),
                       "write the bytes before reading them, and make the reader wait for a semaphore the writer "
                       "signals");
}

void KernelBugChecks::reportAccumulation(uint32_t s, size_t index, const Region &region,
                                         const NonMatmulPsum::Rectangle &init) const {
  const Region overlap = region.intersection(init.region);
  KernelBug bug{.kind = BugKind::AccumulateOntoNonMatmul, .timeNs = nowNs(), .region = bugRegion(program_, overlap)};
  bug.instructions.push_back(bugInstruction(program_, program_.streams[s], index, "accumulates into dst"));
  bug.instructions.push_back(
      bugInstruction(program_, program_.streams[init.writer.stream], init.writer.index, "writes"));
  throw KernelBugError(
      std::move(bug),
      fmt::format("accumulate onto non-matmul data in kernel '{}' at {} ns: {} accumulates into {} (dst), which {} "
                  "wrote; on {} (NeuronCore-{}) a matmul accumulating onto PSUM that a non-matmul instruction "
                  "wrote is undefined",
                  program_.kernel, nowNs(), instructionAt(program_, s, index), describeRegion(program_, overlap),
                  instructionAt(program_, init.writer.stream, init.writer.index), target_.name, target_.generation),
      locationOf(program_, program_.streams[s].instructions[index]),
      "start the accumulation group with a matmul that overwrites (accumulate = false) instead of filling the PSUM "
      "tile first (tensor_engine.accumulate_onto_non_matmul in the target file)");
}

} // namespace tessera::sim
