#include "tessera/compiler/Dialect/Machine.h"

#include "tessera/compiler/Dialect/MachineDialect.h"

using namespace mlir;

namespace tessera::compiler {
namespace {

/// The machine dialect `op` belongs to; null for any other op.
const MachineDialectInterface *machineOf(Operation *op) {
  Dialect *dialect = op->getDialect();
  return dialect ? dialect->getRegisteredInterface<MachineDialectInterface>() : nullptr;
}

} // namespace

bool isMachineInstruction(Operation *op) { return machineOf(op) != nullptr; }

const isa::Family *machineFamilyOf(Operation *op) {
  const MachineDialectInterface *machine = machineOf(op);
  return machine ? &machine->family() : nullptr;
}

std::optional<isa::Engine> machineEngineOf(Operation *op) {
  const MachineDialectInterface *machine = machineOf(op);
  return machine ? machine->engineOf(op) : std::nullopt;
}

unsigned machineQueueOf(Operation *op) {
  auto queue = op->getAttrOfType<IntegerAttr>("queue");
  return queue ? static_cast<unsigned>(queue.getInt()) : 0;
}

isa::Instruction machineInstructionOf(Operation *op) { return machineOf(op)->instructionOf(op); }

StringRef printLabelOf(Operation *op) {
  const MachineDialectInterface *machine = machineOf(op);
  return machine ? machine->printLabelOf(op) : StringRef();
}

bool isManualInstruction(Operation *op) {
  const MachineDialectInterface *machine = machineOf(op);
  return machine && machine->isManual(op);
}

MachineOperands machineOperandsOf(Operation *op) {
  MachineOperands r;
  isa::forEachOperand(machineInstructionOf(op), [&](const char *, const isa::AccessPattern &ap, bool write) {
    if (write) r.writes.push_back(ap);
    else r.reads.push_back(ap);
  });
  return r;
}

} // namespace tessera::compiler
