/// \file
/// Static and dependency overheads (see InstructionOverhead.h); every coefficient is read from the target.

#include "tessera/isa/InstructionOverhead.h"

#include <algorithm>

namespace tessera::isa {
namespace {

/// The engines the NKI guide gives the static overhead for.
bool paysStaticOverhead(Engine engine) { return engine == Engine::Vector || engine == Engine::Scalar; }

/// Whether two on-chip operands touch a common byte of a common partition.
bool overlaps(const AccessPattern &a, const AccessPattern &b) {
  if (a.space != b.space || a.space == MemSpace::Hbm)
    return false;
  if (a.partitionStart >= b.partitionStart + b.partitions || b.partitionStart >= a.partitionStart + a.partitions)
    return false;
  const auto [a0, a1] = a.byteExtent();
  const auto [b0, b1] = b.byteExtent();
  return a0 < b1 && b0 < a1;
}

/// Elements per partition the instruction works through: the largest of the operands it uses.
int64_t workElements(const Instruction &inst) {
  int64_t elements = 0;
  forEachOperand(inst, [&](const char *, const AccessPattern &ap, bool) {
    elements = std::max(elements, ap.freeElements());
  });
  return elements;
}

} // namespace

bool readsOutputOf(const Instruction &inst, const Instruction &producer) {
  bool reads = false;
  forEachOperand(producer, [&](const char *, const AccessPattern &written, bool isWrite) {
    if (!isWrite)
      return;
    forEachOperand(inst, [&](const char *, const AccessPattern &read, bool isRead) {
      reads |= !isRead && overlaps(read, written);
    });
  });
  return reads;
}

uint64_t staticOverheadCycles(const Instruction &inst, const Instruction *previous, Engine engine,
                              const Target &target) {
  if (!paysStaticOverhead(engine) || inst.op == Opcode::Print)
    return 0;
  const bool tiny = workElements(inst) < static_cast<int64_t>(target.cost.tinyFreeElements);
  const bool dependent = previous && readsOutputOf(inst, *previous);
  return tiny || dependent ? target.cost.staticOverheadCycles : 0;
}

uint64_t dependencyCommitCycles(const Instruction &inst, const Instruction *previous, Engine engine,
                                const Target &target) {
  if (!paysStaticOverhead(engine) || inst.op == Opcode::Print || !previous)
    return 0;
  return readsOutputOf(inst, *previous) ? target.cost.dependencyCommitCycles : 0;
}

} // namespace tessera::isa
