#include "InstructionOps.h"

#include "tessera/isa/InstructionSet.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace tessera::compiler {
namespace {

/// The instruction fields an op's attributes hold.
enum class Field { Dst, Src0, Src1, Alu, Func, Scale, Value, Accumulate, Label };

std::optional<Field> fieldOf(StringRef attribute) {
  return llvm::StringSwitch<std::optional<Field>>(attribute)
      .Case("dst", Field::Dst)
      .Cases("src", "lhs", "stationary", Field::Src0)
      .Cases("rhs", "moving", "weights", Field::Src1)
      .Case("op", Field::Alu)
      .Case("func", Field::Func)
      .Case("scale", Field::Scale)
      .Case("value", Field::Value)
      .Case("accumulate", Field::Accumulate)
      .Case("label", Field::Label)
      .Default(std::nullopt);
}

} // namespace

std::optional<isa::Opcode> opcodeIn(ArrayRef<InstructionOpName> table, Operation *op) {
  for (const InstructionOpName &row : table)
    if (op->getName().getStringRef() == row.name) return row.opcode;
  return std::nullopt;
}

void readInstructionFields(Operation *op, isa::Instruction &inst,
                           function_ref<isa::AccessPattern(Attribute)> toIsa) {
  for (StringAttr name : op->getName().getAttributeNames()) {
    std::optional<Field> field = fieldOf(name.getValue());
    Attribute value = op->getAttr(name);
    if (!field || !value) continue;
    auto text = llvm::dyn_cast<StringAttr>(value);
    switch (*field) {
    case Field::Dst: inst.dst = toIsa(value); break;
    case Field::Src0: inst.src0 = toIsa(value); break;
    case Field::Src1: inst.src1 = toIsa(value); break;
    // Unknown names are the verifier's to report.
    case Field::Alu: inst.alu = isa::parseAluOp(text.getValue()).value_or(isa::AluOp::Add); break;
    case Field::Func: inst.func = isa::parseActFunc(text.getValue()).value_or(isa::ActFunc::Identity); break;
    case Field::Scale: inst.scale = llvm::cast<FloatAttr>(value).getValue().convertToFloat(); break;
    case Field::Value: inst.value = llvm::cast<FloatAttr>(value).getValue().convertToFloat(); break;
    case Field::Accumulate: inst.accumulate = true; break;
    case Field::Label: break; // a Print's label is the op's, not the instruction's
    }
  }
}

Operation *buildInstructionOp(OpBuilder &b, Location loc, StringRef name, const isa::Instruction &inst,
                              isa::Engine engine, unsigned queue, StringRef text,
                              function_ref<Attribute(const isa::AccessPattern &)> toAttr) {
  OperationState state(loc, name);
  for (StringAttr attribute : state.name.getAttributeNames()) {
    std::optional<Field> field = fieldOf(attribute.getValue());
    if (!field) continue;
    Attribute value;
    switch (*field) {
    case Field::Dst: value = toAttr(inst.dst); break;
    case Field::Src0: value = toAttr(inst.src0); break;
    case Field::Src1: value = toAttr(inst.src1); break;
    case Field::Alu: value = b.getStringAttr(isa::name(inst.alu)); break;
    case Field::Func: value = b.getStringAttr(isa::name(inst.func)); break;
    case Field::Scale: value = b.getF32FloatAttr(inst.scale); break;
    case Field::Value: value = b.getF32FloatAttr(inst.value); break;
    case Field::Accumulate: value = inst.accumulate ? b.getUnitAttr() : Attribute(); break;
    case Field::Label: value = b.getStringAttr(text); break;
    }
    if (value) state.addAttribute(attribute, value);
  }
  state.addAttribute("engine", b.getStringAttr(isa::name(engine)));
  state.addAttribute("queue", b.getI64IntegerAttr(queue));
  return b.create(state);
}

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

llvm::SmallVector<int64_t, 4> freeSizesOf(const isa::AccessPattern &ap) {
  return llvm::SmallVector<int64_t, 4>(ap.sizes.begin(), ap.sizes.begin() + ap.freeRank);
}

llvm::SmallVector<int64_t, 4> freeStridesOf(const isa::AccessPattern &ap) {
  return llvm::SmallVector<int64_t, 4>(ap.strides.begin(), ap.strides.begin() + ap.freeRank);
}

void setFreeDims(isa::AccessPattern &ap, ArrayRef<int64_t> dims, ArrayRef<int64_t> strides) {
  ap.freeRank = static_cast<uint8_t>(dims.size());
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    ap.sizes[d] = dims[d];
    ap.strides[d] = strides[d];
  }
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
