#include "InstructionOpChecks.h"

#include "tessera/isa/InstructionSet.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace tessera::compiler {

std::optional<isa::MemSpace> parseMemSpace(StringRef name, std::initializer_list<isa::MemSpace> spaces) {
  for (isa::MemSpace space : spaces)
    if (name == StringRef(isa::name(space))) return space;
  return std::nullopt;
}

std::optional<isa::Engine> parseEngine(Operation *op, std::initializer_list<isa::Engine> engines) {
  auto engine = op->getAttrOfType<StringAttr>("engine");
  if (!engine) return std::nullopt;
  for (isa::Engine e : engines)
    if (engine.getValue() == StringRef(isa::name(e))) return e;
  return std::nullopt;
}

LogicalResult verifyInstructionAttributes(Operation *op) {
  if (auto waits = op->getAttrOfType<DenseI64ArrayAttr>("waits")) {
    if (waits.size() % 2) return op->emitOpError("waits must hold (semaphore, count) pairs");
    for (int64_t k = 0; k < waits.size(); k += 2)
      if (waits[k] < 0 || waits[k + 1] < 1)
        return op->emitOpError() << "waits for semaphore " << waits[k] << " to reach " << waits[k + 1]
                                 << "; semaphores are numbered from 0 and counts start at 1";
  }
  if (auto signals = op->getAttrOfType<DenseI64ArrayAttr>("signals"))
    for (int64_t sem : signals.asArrayRef())
      if (sem < 0) return op->emitOpError() << "signals semaphore " << sem << "; semaphores are numbered from 0";
  if (auto queue = op->getAttrOfType<IntegerAttr>("queue"); queue && queue.getInt() < 0)
    return op->emitOpError() << "has negative DMA queue " << queue.getInt();
  if (auto alu = op->getAttrOfType<StringAttr>("op"); alu && !isa::parseAluOp(alu.getValue()))
    return op->emitOpError() << "unknown ALU operation '" << alu.getValue() << "'";
  if (auto func = op->getAttrOfType<StringAttr>("func"); func && !isa::parseActFunc(func.getValue()))
    return op->emitOpError() << "unknown activation function '" << func.getValue() << "'";
  return success();
}

LogicalResult verifyPatternShape(Operation *op, const PatternShape &p, isa::Engine engine, StringRef rowWord) {
  if (!p.spaceKnown) return op->emitOpError() << "unknown memory space '" << p.space << "'";
  if (!p.dtypeKnown) return op->emitOpError() << "unsupported element type " << p.dtype;
  if (p.dims != p.strides || p.dims == 0 || p.dims > isa::AccessPattern::kMaxFreeDims)
    return op->emitOpError("access patterns need 1 to 4 free dimensions, each with a stride");
  if (p.rows <= 0) return op->emitOpError() << "access patterns touch at least one " << rowWord;
  const bool hbm = p.space == StringRef(isa::name(isa::MemSpace::Hbm));
  if (hbm != (p.tensor >= 0)) return op->emitOpError("HBM access patterns (and only they) name a tensor");
  if (engine != isa::Engine::Dma && hbm) return op->emitOpError("compute engines cannot access HBM");
  return success();
}

LogicalResult verifyEngine(Operation *op, isa::Opcode opcode, isa::Engine engine) {
  if (!isa::definition(opcode).engines.contains(engine))
    return op->emitOpError() << "cannot run on the " << isa::name(engine) << " engine";
  return success();
}

LogicalResult verifyAgainstDefinition(Operation *op, const isa::Instruction &inst, isa::Engine engine) {
  if (std::string problem = isa::verifyInstruction(inst, engine, nullptr); !problem.empty())
    return op->emitOpError() << problem;
  return success();
}

} // namespace tessera::compiler
