#include "ProgramChecks.h"

#include "InstructionShape.h"

#include "tessera/isa/AccessRules.h"
#include "tessera/isa/Cost.h"
#include "tessera/isa/Error.h"
#include "tessera/isa/Family.h"
#include "tessera/isa/InstructionSet.h"

#include <fmt/format.h>

#include <systemc>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <deque>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace tessera::sim {
namespace {

using isa::AccessPattern;
using isa::Engine;
using isa::Instruction;
using isa::MemSpace;
using isa::Opcode;
using isa::OperandUse;

/// Checks one instruction. Engines call this before every instruction, so the passing path is lean: each test is
/// one comparison, and the messages are built only on failure, in the cold report*() members.
class InstructionChecker {
public:
  InstructionChecker(const isa::Program &program, const isa::Target &target, const isa::Stream &stream, size_t index)
      : program_(program), target_(target), stream_(stream), index_(index), inst_(stream.instructions[index]) {}

  void check() const {
    checkSemaphores();
    checkWork();
  }

  /// Its waits' and signals' ranges and semaphore ids.
  void checkSemaphores() const {
    if (uint64_t{inst_.waitBegin} + inst_.waitCount > program_.waits.size()) [[unlikely]]
      reportRange("waits", inst_.waitBegin, inst_.waitCount, program_.waits.size());
    if (uint64_t{inst_.signalBegin} + inst_.signalCount > program_.signals.size()) [[unlikely]]
      reportRange("signals", inst_.signalBegin, inst_.signalCount, program_.signals.size());
    for (const isa::SemWait &w : program_.waitsOf(inst_))
      if (w.sem >= program_.semaphores) [[unlikely]]
        reportSemaphore("waits on", w.sem);
    for (uint32_t sem : program_.signalsOf(inst_))
      if (sem >= program_.semaphores) [[unlikely]]
        reportSemaphore("signals", sem);
  }

  /// Everything else, which depends on its work alone (WorkBytes): its operands inside their memories, and its
  /// own rules (engine, generation, shapes), from its definition.
  void checkWork() const {
    checkOperands();
    if (std::string problem = isa::verifyInstruction(inst_, stream_.engine, &target_); !problem.empty()) [[unlikely]]
      fail(problem);
  }

  /// Its operands inside their memories: the only part of checkWork() that depends on where the operands lie
  /// (AccessPattern::offset); verifyInstruction's rules read their shapes, dtypes and memories, never their offsets
  /// (the TPU family's VMEM bound reads them, and is this bound again).
  void checkOperands() const {
    isa::forEachOperand(inst_, [&](const char *slot, const AccessPattern &ap, bool) { checkOperand(slot, ap); });
  }

private:
  [[noreturn, gnu::cold, gnu::noinline]] void fail(const std::string &what, const std::string &hint = {}) const {
    throw Error(fmt::format("{}: {}", describeInstruction(stream_, index_), what), locationOf(program_, inst_), hint);
  }

  /// An operand outside its memory: a KernelBugError naming the instruction, the operand's range and the time.
  [[noreturn, gnu::cold, gnu::noinline]] void failOutOfBounds(const char *operand, const AccessPattern &ap,
                                                              const std::string &what, const std::string &hint) const {
    KernelBug bug;
    bug.kind = BugKind::OutOfBounds;
    bug.timeNs = static_cast<double>(sc_core::sc_time_stamp().value()) / 1000.0;
    const bool writes = std::string_view(operand).starts_with("dst");
    bug.instructions.push_back(
        bugInstruction(program_, stream_, index_, fmt::format("{} {}", writes ? "writes" : "reads", operand)));
    const auto [first, last] = ap.byteExtent();
    bug.region.memory = std::string(isa::name(ap.space));
    if (ap.flat()) { // HBM, VMEM, SMEM: the bytes from the first to the last element, all rows
      if (ap.space == MemSpace::Hbm)
        bug.region.tensor = ap.tensor >= 0 && static_cast<size_t>(ap.tensor) < program_.tensors.size()
                                ? program_.tensors[ap.tensor].name
                                : std::string{};
      bug.region.p0 = 0;
      bug.region.p1 = 1;
    } else {
      bug.region.p0 = ap.partitionStart;
      bug.region.p1 = ap.partitionStart + ap.partitions;
    }
    bug.region.b0 = first;
    bug.region.b1 = last;
    const double timeNs = bug.timeNs;
    throw KernelBugError(std::move(bug),
                         fmt::format("out of bounds in kernel '{}' at {} ns: {}: {}", program_.kernel, timeNs,
                                     describeInstruction(stream_, index_), what),
                         locationOf(program_, inst_), hint);
  }

  [[noreturn, gnu::cold, gnu::noinline]] void reportRange(const char *what, uint32_t begin, uint32_t count,
                                                          size_t size) const {
    fail(fmt::format("its {} [{}, {}) lie outside the program's {} {}", what, begin, uint64_t{begin} + count, size,
                     what));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void reportSemaphore(const char *verb, uint32_t sem) const {
    fail(fmt::format("it {} semaphore {} but the program has {}", verb, sem, program_.semaphores));
  }

  /// Checks that `ap` lies inside its memory.
  void checkOperand(const char *operand, const AccessPattern &ap) const {
    if (ap.freeRank > AccessPattern::kMaxFreeDims) [[unlikely]]
      fail(fmt::format("operand {} has {} free dimensions; at most {}", operand, ap.freeRank,
                       AccessPattern::kMaxFreeDims));
    const int64_t elements = ap.freeElements();
    if (ap.partitions == 0 || elements <= 0) [[unlikely]]
      fail(fmt::format("operand {} is empty ({} partitions x {} elements)", operand, ap.partitions, elements));
    switch (ap.space) {
    case MemSpace::Hbm: checkHbm(operand, ap); return;
    case MemSpace::Sbuf:
    case MemSpace::Psum: checkOnChip(operand, ap); return;
    case MemSpace::Vmem: checkFlatOnChip(operand, ap, target_.tpu.vmemBytes); return;
    case MemSpace::Smem: checkFlatOnChip(operand, ap, target_.tpu.smemBytes); return;
    }
  }

  void checkHbm(const char *operand, const AccessPattern &ap) const {
    if (stream_.engine != Engine::Dma) [[unlikely]]
      fail(fmt::format("operand {} is in HBM, which only DMA queues reach", operand),
           "load the tile into SBUF with a DMA first");
    if (ap.tensor < 0 || static_cast<size_t>(ap.tensor) >= program_.tensors.size()) [[unlikely]]
      fail(fmt::format("operand {} names HBM tensor {} but the program has {}", operand, ap.tensor,
                       program_.tensors.size()));
    const auto [first, last] = ap.byteExtent();
    if (first < 0 || last > program_.tensors[ap.tensor].bytes()) [[unlikely]]
      reportHbmBytes(operand, ap, first, last);
  }

  [[noreturn, gnu::cold, gnu::noinline]] void reportHbmBytes(const char *operand, const AccessPattern &ap,
                                                             int64_t first, int64_t last) const {
    const isa::TensorInfo &tensor = program_.tensors[ap.tensor];
    failOutOfBounds(operand, ap,
                    fmt::format("operand {} touches bytes [{}, {}) of HBM tensor '{}', which holds {} bytes", operand,
                                first, last, tensor.name, tensor.bytes()),
                    "check the tile's offset and shape against the tensor's shape");
  }

  /// VMEM or SMEM, `memoryBytes` long: every row, at its pitch, inside the memory.
  void checkFlatOnChip(const char *operand, const AccessPattern &ap, uint64_t memoryBytes) const {
    if (memoryBytes == 0) [[unlikely]]
      reportMissingMemory(operand, ap);
    const auto [first, last] = ap.byteExtent();
    if (first < 0 || static_cast<uint64_t>(last) > memoryBytes) [[unlikely]]
      failOutOfBounds(operand, ap,
                      fmt::format("operand {} touches {} bytes [{}, {}), but {} holds {} bytes", operand,
                                  isa::name(ap.space), first, last, isa::name(ap.space), memoryBytes),
                      "check the buffer's address, rows and row pitch against the target's memory");
  }

  /// An operand in a memory the target's family does not have (SBUF on a TPU, VMEM on a NeuronCore).
  [[noreturn, gnu::cold, gnu::noinline]] void reportMissingMemory(const char *operand, const AccessPattern &ap) const {
    fail(fmt::format("operand {} is in {}, which target {} (family {}) does not have", operand, isa::name(ap.space),
                     target_.name, target_.family),
         std::string(isa::familyOf(target_).memoryHint()));
  }

  void checkOnChip(const char *operand, const AccessPattern &ap) const {
    if (target_.partitions == 0) [[unlikely]]
      reportMissingMemory(operand, ap);
    const uint64_t partitionBytes =
        ap.space == MemSpace::Sbuf ? target_.sbufBytesPerPartition : target_.psumBytesPerPartition;
    if (uint64_t{ap.partitionStart} + ap.partitions > target_.partitions) [[unlikely]]
      reportPartitions(operand, ap);
    const auto [first, last] = ap.byteExtent();
    if (first < 0 || static_cast<uint64_t>(last) > partitionBytes) [[unlikely]]
      reportOnChipBytes(operand, ap, first, last, partitionBytes);
    if (isa::accessRulesApply(stream_.engine, ap))
      if (std::optional<std::string> broken = isa::accessRuleViolation(ap, target_)) [[unlikely]]
        reportAccessRule(operand, *broken);
  }

  [[noreturn, gnu::cold, gnu::noinline]] void reportAccessRule(const char *operand, const std::string &broken) const {
    fail(fmt::format("operand {} breaks the {} access rules: it {}", operand, target_.name, broken),
         "engine instructions start their partitions at an aligned quadrant and walk at most the target's free "
         "dimensions, sizes, strides and elements per partition ([access] in the target file)");
  }

  [[noreturn, gnu::cold, gnu::noinline]] void reportPartitions(const char *operand, const AccessPattern &ap) const {
    const std::string_view memory = isa::name(ap.space);
    failOutOfBounds(operand, ap,
                    fmt::format("operand {} touches {} partitions [{}, {}) but {} has {}", operand, memory,
                                ap.partitionStart, uint64_t{ap.partitionStart} + ap.partitions, memory,
                                target_.partitions),
                    "a tile spans at most the target's partitions");
  }

  [[noreturn, gnu::cold, gnu::noinline]] void reportOnChipBytes(const char *operand, const AccessPattern &ap,
                                                                int64_t first, int64_t last,
                                                                uint64_t partitionBytes) const {
    failOutOfBounds(operand, ap,
                    fmt::format("operand {} touches bytes [{}, {}) of each {} partition, which holds {} bytes",
                                operand, first, last, isa::name(ap.space), partitionBytes),
                    "check the tile's address and size against the target's memory");
  }

  const isa::Program &program_;
  const isa::Target &target_;
  const isa::Stream &stream_;
  size_t index_;
  const Instruction &inst_;
};

} // namespace

std::string describeInstruction(const isa::Stream &stream, size_t index) {
  if (index >= stream.instructions.size())
    return fmt::format("stream '{}', after its last instruction", stream.label());
  return fmt::format("stream '{}', instruction {} ({})", stream.label(), index,
                     isa::name(stream.instructions[index].op));
}

SourceLoc locationOf(const isa::Program &program, const isa::Instruction &inst) {
  return inst.loc < program.locations.size() ? program.locations[inst.loc] : SourceLoc{};
}

BugInstruction bugInstruction(const isa::Program &program, const isa::Stream &stream, size_t index,
                              std::string action) {
  const isa::Instruction &inst = stream.instructions[index];
  return {.stream = stream.label(),
          .engine = stream.engine,
          .index = static_cast<uint32_t>(index),
          .op = inst.op,
          .loc = locationOf(program, inst),
          .action = std::move(action)};
}

void prepareHbm(const isa::Program &program, HbmImage &hbm, bool withStorage) {
  if (hbm.size() > program.tensors.size())
    throw Error(fmt::format("the HBM image holds {} tensors but kernel '{}' has {}", hbm.size(), program.kernel,
                            program.tensors.size()));
  hbm.resize(program.tensors.size());
  for (size_t t = 0; t < hbm.size(); ++t) {
    const isa::TensorInfo &tensor = program.tensors[t];
    const auto bytes = static_cast<size_t>(tensor.bytes());
    if (hbm[t].empty() && !withStorage)
      continue;
    if (hbm[t].empty())
      hbm[t].resize(bytes);
    if (hbm[t].size() != bytes)
      throw Error(fmt::format("HBM tensor '{}' ({} {}) needs {} bytes but its buffer holds {}", tensor.name,
                              isa::name(tensor.dtype), fmt::join(tensor.shape, "x"), bytes, hbm[t].size()));
  }
}

namespace {

/// Whether `engine` is a unit of the TPU TensorCore (the DMA queues belong to both families).
/// A stream of an engine the target's family does not have.
[[noreturn]] void failForeignEngine(const isa::Program &program, const isa::Target &target, const std::string &where,
                                    const isa::Stream &stream) {
  const isa::Family *owner = nullptr;
  for (const isa::Family *family : isa::families())
    if (family->engines().contains(stream.engine)) owner = family;
  throw Error(fmt::format("{}: kernel '{}' has a stream for the {}'s '{}' {}, which a {} target does not have", where,
                          program.kernel, owner ? owner->title() : "unknown", stream.label(),
                          owner ? owner->engineWord() : "engine", target.family),
              {}, std::string(isa::familyOf(target).programHint()));
}

/// "stream 'vpu', instruction 3 (vpu_binary)" of the stream with index `s`.
std::string describeAt(const isa::Program &program, uint32_t s, size_t index) {
  return describeInstruction(program.streams[s], index);
}

/// Throws an Error about the grid step of instruction `index` of stream `s`.
[[noreturn]] void failStep(const isa::Program &program, uint32_t s, size_t index, const std::string &what) {
  const std::vector<Instruction> &instructions = program.streams[s].instructions;
  throw Error(fmt::format("kernel '{}': {}", program.kernel, what),
              index < instructions.size() ? locationOf(program, instructions[index]) : SourceLoc{},
              "the TensorCore's MXU, VPU and scalar-unit instructions carry the grid step they belong to, 1, 2, 3... "
              "(isa::Instruction::step), never fewer along a stream; step s starts with the scalar stream's s-th "
              "instruction, its one grid_step; DMA transfers and NeuronCore instructions carry 0");
}

/// The grid steps (Instruction::step): only TPU units carry them, every one of theirs a step, never decreasing
/// along a stream; step s of 1..S (the highest) starts with the scalar stream's instruction s - 1, a GridStep, and
/// no other GridStep exists. Anything else would hold the grid-step barrier forever or let a step start twice.
/// Whether instructions of `engine`'s stream belong to grid steps (StepBarrier.h): the TensorCore's MXU, VPU and
/// scalar unit.
bool runsInGridSteps(Engine engine) {
  return engine == Engine::Mxu || engine == Engine::Vpu || engine == Engine::ScalarUnit;
}

void checkSteps(const isa::Program &program) {
  uint32_t steps = 0;
  std::pair<uint32_t, size_t> highestAt{0, 0};
  std::optional<uint32_t> scalar;
  for (uint32_t s = 0; s < program.streams.size(); ++s) {
    const isa::Stream &stream = program.streams[s];
    const bool tpuUnit = runsInGridSteps(stream.engine);
    if (stream.engine == Engine::ScalarUnit)
      scalar = s;
    uint32_t previous = 0;
    for (size_t i = 0; i < stream.instructions.size(); ++i) {
      const uint32_t step = stream.instructions[i].step;
      if (!tpuUnit && step != 0)
        failStep(program, s, i,
                 fmt::format("{} belongs to grid step {}, but only the TPU's MXU, VPU and scalar-unit instructions "
                             "belong to grid steps",
                             describeAt(program, s, i), step));
      if (!tpuUnit)
        continue;
      if (step == 0)
        failStep(program, s, i, fmt::format("{} belongs to no grid step (step 0)", describeAt(program, s, i)));
      if (step < previous)
        failStep(program, s, i,
                 fmt::format("{} belongs to step {} after an instruction of step {}: a stream's steps never "
                             "decrease",
                             describeAt(program, s, i), step, previous));
      previous = step;
      if (step > steps) {
        steps = step;
        highestAt = {s, i};
      }
    }
  }
  if (steps == 0)
    return;
  if (!scalar)
    failStep(program, highestAt.first, highestAt.second,
             fmt::format("{} belongs to step {}, but the kernel has no scalar stream to run grid steps",
                         describeAt(program, highestAt.first, highestAt.second), steps));
  const std::vector<Instruction> &scalarInstructions = program.streams[*scalar].instructions;
  for (uint32_t step = 1; step <= steps; ++step) {
    const size_t at = step - 1;
    const Instruction *gridStep = at < scalarInstructions.size() ? &scalarInstructions[at] : nullptr;
    if (gridStep && gridStep->op == Opcode::GridStep && gridStep->step == step)
      continue;
    if (gridStep && gridStep->op == Opcode::GridStep && gridStep->step < step)
      failStep(program, *scalar, at,
               fmt::format("{} is a second grid_step of step {}", describeAt(program, *scalar, at), gridStep->step));
    const std::string there =
        !gridStep ? fmt::format("the scalar stream ends after {} instructions", scalarInstructions.size())
        : gridStep->op == Opcode::GridStep
            ? fmt::format("{} starts step {} instead", describeAt(program, *scalar, at), gridStep->step)
            : fmt::format("{} is not a grid_step", describeAt(program, *scalar, at));
    const bool located = gridStep != nullptr;
    failStep(program, located ? *scalar : highestAt.first, located ? at : highestAt.second,
             fmt::format("step {} of {} has no grid_step: {}", step, steps, there));
  }
  // Every step's GridStep is where it belongs: any other is a second one.
  for (uint32_t s = 0; s < program.streams.size(); ++s)
    for (size_t i = (s == *scalar) ? steps : 0; i < program.streams[s].instructions.size(); ++i)
      if (const Instruction &inst = program.streams[s].instructions[i]; inst.op == Opcode::GridStep && inst.step != 0)
        failStep(program, s, i,
                 fmt::format("{} is a second grid_step of step {}; {} starts it", describeAt(program, s, i),
                             inst.step, describeAt(program, *scalar, inst.step - 1)));
}

} // namespace

void checkTarget(const isa::Program &program, const isa::Target &target) {
  const std::string where = target.file.empty() ? fmt::format("target '{}'", target.name)
                                                : fmt::format("target '{}' ({})", target.name, target.file.string());
  const isa::Family &family = isa::familyOf(target);
  if (std::string problem = family.checkFigures(target); !problem.empty())
    throw Error(fmt::format("{}: {}", where, problem), {}, "fix the figure in the target file");
  for (const isa::Stream &stream : program.streams) {
    if (!family.engines().contains(stream.engine))
      failForeignEngine(program, target, where, stream);
    if (stream.engine == Engine::Dma) {
      const isa::DmaSpec &dma = target.dma;
      if (!(dma.bytesPerNsPerEngine > 0) || !(dma.hbmGBps > 0) || !(dma.fixedLatencyNs >= 0) ||
          dma.engines == 0 || dma.saturatedBytesPerPartition == 0 || !(dma.efficiencyKneeBytes >= 0))
        throw Error(fmt::format("{}: {} DMA engines of {} bytes/ns, HBM share {} bytes/ns, fixed latency {} ns, "
                                "saturation at {} bytes per partition, knee {} bytes",
                                where, dma.engines, dma.bytesPerNsPerEngine, dma.hbmGBps, dma.fixedLatencyNs,
                                dma.saturatedBytesPerPartition, dma.efficiencyKneeBytes),
                    {}, "DMA engines, bandwidths and the saturation size must be positive, the fixed latency and the "
                        "knee not negative");
      continue;
    }
    const double ghz = isa::clockGhz(stream.engine, target);
    if (!(ghz > 0))
      throw Error(fmt::format("{}: the {} engine's clock is {} GHz", where, isa::name(stream.engine), ghz), {},
                  "give every engine a positive clock in the target file");
  }
}

void checkStreams(const isa::Program &program) {
  std::set<std::string> labels;
  for (const isa::Stream &stream : program.streams)
    if (!labels.insert(stream.label()).second)
      throw Error(fmt::format("kernel '{}' has two streams for '{}'", program.kernel, stream.label()), {},
                  "each compute engine and each DMA queue runs one stream");
  checkSteps(program);
}

void checkInstruction(const isa::Program &program, const isa::Target &target, const isa::Stream &stream,
                      size_t index) {
  InstructionChecker(program, target, stream, index).check();
}

namespace {

// What a check's verdict on an instruction depends on, besides the program, the target and its semaphores: its work
// bytes (kWorkBytes: opcode, settings, operands). Equal bytes, equal verdict (padding bytes that differ only make
// two equal instructions look different).

/// A hash of the fields in which the instructions of one stream usually differ (opcode, the first settings, where
/// each operand lies); equal works hash alike, and CheckedWork compares all of their bytes.
uint64_t hashOfWork(const Instruction &inst) {
  static_assert(offsetof(Instruction, negate) == 7, "the first eight bytes are one-byte fields");
  uint64_t head;
  std::memcpy(&head, &inst, sizeof head); // op, alu, alu1, func, accumulate, reverse0, reverse1, negate
  uint64_t h = (head ^ 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
  for (const AccessPattern *ap : {&inst.dst, &inst.dst2, &inst.src0, &inst.src1, &inst.src2})
    h = (h ^ static_cast<uint64_t>(ap->offset) ^ (uint64_t{ap->partitionStart} << 40) ^
         (static_cast<uint64_t>(ap->sizes[0]) << 20)) *
        0xff51afd7ed558ccdull;
  return h ^ (h >> 32);
}

/// The different works of one stream that passed their checks: an open-addressing set of instructions, compared
/// byte for byte.
class CheckedWork {
public:
  bool contains(const Instruction &inst, uint64_t hash) const {
    for (size_t slot = hash & (slots_.size() - 1);; slot = (slot + 1) & (slots_.size() - 1)) {
      if (!slots_[slot])
        return false;
      if (std::memcmp(slots_[slot], &inst, kWorkBytes) == 0)
        return true;
    }
  }
  void insert(const Instruction &inst, uint64_t hash) {
    if (2 * (count_ + 1) > slots_.size())
      grow();
    place(&inst, hash);
    ++count_;
  }

private:
  void place(const Instruction *inst, uint64_t hash) {
    size_t slot = hash & (slots_.size() - 1);
    while (slots_[slot])
      slot = (slot + 1) & (slots_.size() - 1);
    slots_[slot] = inst;
  }
  void grow() {
    std::vector<const Instruction *> old(slots_.size() * 2, nullptr);
    std::swap(old, slots_);
    for (const Instruction *inst : old)
      if (inst)
        place(inst, hashOfWork(*inst));
  }

  std::vector<const Instruction *> slots_ = std::vector<const Instruction *>(64, nullptr);
  size_t count_ = 0;
};

/// Where one operand of a checked shape may lie: its byte extent (AccessPattern::byteExtent) is its start (the
/// offset, in bytes) plus [lo, hi), inside [0, limit).
struct OperandBounds {
  bool used = false, elementOffset = false; ///< elementOffset: the offset counts elements (HBM), else bytes
  int64_t elementBytes = 1, lo = 0, hi = 0;
  uint64_t limit = 0;
};

/// The different shapes of one DMA queue's transfers that passed their checks, each with its operands' bounds: a
/// transfer of a known shape needs only its offsets placed (inBounds), the same test checkOperand makes.
class CheckedShapes {
public:
  struct Shape {
    const Instruction *first = nullptr;          ///< the first transfer of this shape, checked in full
    std::array<OperandBounds, 5> bounds;        ///< per kOperands
  };

  const Shape *find(const Instruction &inst, uint64_t hash) const {
    if (last_ && sameShape(*last_->first, inst))
      return last_;
    for (size_t slot = hash & (slots_.size() - 1);; slot = (slot + 1) & (slots_.size() - 1)) {
      const int32_t at = slots_[slot];
      if (at < 0)
        return nullptr;
      if (sameShape(*shapes_[at].first, inst))
        return last_ = &shapes_[at];
    }
  }

  /// Records `inst`, which passed every check, as its shape's first transfer.
  void insert(const Instruction &inst, uint64_t hash, const isa::Program &program, const isa::Target &target) {
    if (2 * (shapes_.size() + 1) > slots_.size())
      grow();
    Shape &shape = shapes_.emplace_back();
    shape.first = &inst;
    const OperandUse use = isa::operandUse(inst);
    const bool used[] = {use.readsDst || use.writesDst, use.writesDst2, use.src0, use.src1, use.src2};
    for (size_t o = 0; o < std::size(kOperands); ++o) {
      if (!used[o])
        continue;
      const AccessPattern &ap = inst.*kOperands[o];
      OperandBounds &b = shape.bounds[o];
      b.used = true;
      b.elementOffset = ap.space == MemSpace::Hbm;
      b.elementBytes = isa::byteSize(ap.dtype);
      const int64_t start = b.elementOffset ? ap.offset * b.elementBytes : ap.offset;
      const auto [first, last] = ap.byteExtent();
      b.lo = first - start;
      b.hi = last - start;
      switch (ap.space) {
      case MemSpace::Hbm: b.limit = static_cast<uint64_t>(program.tensors[ap.tensor].bytes()); break;
      case MemSpace::Sbuf: b.limit = target.sbufBytesPerPartition; break;
      case MemSpace::Psum: b.limit = target.psumBytesPerPartition; break;
      case MemSpace::Vmem: b.limit = target.tpu.vmemBytes; break;
      case MemSpace::Smem: b.limit = target.tpu.smemBytes; break;
      }
    }
    place(static_cast<int32_t>(shapes_.size() - 1), hash);
    last_ = &shape;
  }

  /// Whether every operand of `inst`, of `shape`, lies inside its memory.
  static bool inBounds(const Shape &shape, const Instruction &inst) {
    for (size_t o = 0; o < std::size(kOperands); ++o) {
      const OperandBounds &b = shape.bounds[o];
      if (!b.used)
        continue;
      const int64_t offset = (inst.*kOperands[o]).offset;
      const int64_t start = b.elementOffset ? offset * b.elementBytes : offset;
      if (start + b.lo < 0 || static_cast<uint64_t>(start + b.hi) > b.limit)
        return false;
    }
    return true;
  }

private:
  void place(int32_t at, uint64_t hash) {
    size_t slot = hash & (slots_.size() - 1);
    while (slots_[slot] >= 0)
      slot = (slot + 1) & (slots_.size() - 1);
    slots_[slot] = at;
  }
  void grow() {
    slots_.assign(slots_.size() * 2, -1);
    for (size_t at = 0; at < shapes_.size(); ++at)
      place(static_cast<int32_t>(at), hashOfShape(*shapes_[at].first));
  }

  std::deque<Shape> shapes_; ///< stable addresses
  std::vector<int32_t> slots_ = std::vector<int32_t>(16, -1);
  mutable const Shape *last_ = nullptr; ///< the shape found last: a queue's transfers come in runs of one shape
};

} // namespace

size_t firstInvalidInstruction(const isa::Program &program, const isa::Target &target, const isa::Stream &stream) {
  const bool transfers = stream.engine == Engine::Dma;
  CheckedWork checked;
  CheckedShapes checkedShapes;
  for (size_t i = 0; i < stream.instructions.size(); ++i) {
    const InstructionChecker checker(program, target, stream, i);
    try {
      checker.checkSemaphores();
      const Instruction &inst = stream.instructions[i];
      if (transfers) {
        const uint64_t hash = hashOfShape(inst);
        if (const CheckedShapes::Shape *shape = checkedShapes.find(inst, hash);
            shape && CheckedShapes::inBounds(*shape, inst))
          continue;
        checker.checkWork(); // a new shape, or one out of bounds: throws with the message
        checkedShapes.insert(inst, hash, program, target);
        continue;
      }
      const uint64_t hash = hashOfWork(inst);
      if (checked.contains(inst, hash))
        continue;
      checker.checkWork();
      checked.insert(inst, hash);
    } catch (const std::exception &) {
      return i;
    }
  }
  return stream.instructions.size();
}

} // namespace tessera::sim
