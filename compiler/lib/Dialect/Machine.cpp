#include "tessera/compiler/Dialect/Machine.h"

#include "tessera/compiler/Dialect/Nc/NcDialect.h"
#include "tessera/compiler/Dialect/Tpu/TpuDialect.h"

using namespace mlir;

namespace tessera::compiler {
namespace {

bool isNc(Operation *op) { return op->getDialect() && llvm::isa<nc::NcDialect>(op->getDialect()); }
bool isTpu(Operation *op) { return op->getDialect() && llvm::isa<tpu::TpuDialect>(op->getDialect()); }

} // namespace

bool isMachineInstruction(Operation *op) { return isNc(op) || isTpu(op); }

std::optional<isa::Engine> machineEngineOf(Operation *op) {
  if (isNc(op)) return nc::engineOf(op);
  if (isTpu(op)) return tpu::engineOf(op);
  return std::nullopt;
}

unsigned machineQueueOf(Operation *op) {
  auto queue = op->getAttrOfType<IntegerAttr>("queue");
  return queue ? static_cast<unsigned>(queue.getInt()) : 0;
}

isa::Instruction machineInstructionOf(Operation *op) {
  return isTpu(op) ? tpu::toInstruction(op) : nc::toInstruction(op);
}

StringRef printLabelOf(Operation *op) {
  if (auto print = llvm::dyn_cast<nc::PrintOp>(op)) return print.getLabel();
  if (auto print = llvm::dyn_cast<tpu::PrintOp>(op)) return print.getLabel();
  return {};
}

bool isManualInstruction(Operation *op) { return op->hasAttr(nc::kManualAttr); }

MachineOperands machineOperandsOf(Operation *op) {
  MachineOperands r;
  isa::forEachOperand(machineInstructionOf(op), [&](const char *, const isa::AccessPattern &ap, bool write) {
    if (write) r.writes.push_back(ap);
    else r.reads.push_back(ap);
  });
  return r;
}

} // namespace tessera::compiler
