#include "InstructionOps.h"

#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/Settings.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace tessera::compiler {
namespace {

/// The instruction fields an op's attributes hold.
enum class Field { Dst, Src0, Src1, Alu, Func, Scale, Value, Operand0, Reverse0, Accumulate, Preserve, Label };

std::optional<Field> fieldOf(StringRef attribute) {
  return llvm::StringSwitch<std::optional<Field>>(attribute)
      .Case("dst", Field::Dst)
      .Cases("src", "lhs", "stationary", Field::Src0)
      .Cases("rhs", "moving", "weights", Field::Src1)
      .Case("op", Field::Alu)
      .Case("func", Field::Func)
      .Case("scale", Field::Scale)
      .Case("value", Field::Value)
      .Case("operand0", Field::Operand0)
      .Case("reverse0", Field::Reverse0)
      .Case("accumulate", Field::Accumulate)
      .Case("preserve", Field::Preserve)
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
    case Field::Operand0: inst.operand0 = llvm::cast<FloatAttr>(value).getValue().convertToFloat(); break;
    case Field::Reverse0: inst.reverse0 = true; break;
    case Field::Accumulate: inst.accumulate = true; break;
    case Field::Preserve: inst.preserve = true; break;
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
    // An optional second source is absent when the instruction takes a number (operand0) instead.
    case Field::Src1: value = inst.src1.partitions != 0 ? toAttr(inst.src1) : Attribute(); break;
    case Field::Operand0: value = inst.src1.partitions == 0 ? b.getF32FloatAttr(inst.operand0) : Attribute(); break;
    case Field::Reverse0: value = inst.reverse0 ? b.getUnitAttr() : Attribute(); break;
    case Field::Alu: value = b.getStringAttr(isa::name(inst.alu)); break;
    case Field::Func: value = b.getStringAttr(isa::name(inst.func)); break;
    case Field::Scale: value = b.getF32FloatAttr(inst.scale); break;
    case Field::Value: value = b.getF32FloatAttr(inst.value); break;
    case Field::Accumulate: value = inst.accumulate ? b.getUnitAttr() : Attribute(); break;
    case Field::Preserve: value = inst.preserve ? b.getUnitAttr() : Attribute(); break;
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


DictionaryAttr paramsAttr(OpBuilder &b, const isa::Instruction &inst) {
  llvm::SmallVector<NamedAttribute> params;
  for (isa::Setting setting : isa::allSettings()) {
    if (isa::isDefault(inst, setting)) continue;
    const isa::SettingValue value = isa::get(inst, setting);
    Attribute attr;
    switch (isa::kindOf(setting)) {
    case isa::SettingKind::Alu: attr = b.getStringAttr(isa::name(std::get<isa::AluOp>(value))); break;
    case isa::SettingKind::Func: attr = b.getStringAttr(isa::name(std::get<isa::ActFunc>(value))); break;
    case isa::SettingKind::Flag: attr = b.getUnitAttr(); break;
    case isa::SettingKind::Real: attr = b.getF32FloatAttr(std::get<float>(value)); break;
    case isa::SettingKind::Integer: attr = b.getI64IntegerAttr(std::get<int64_t>(value)); break;
    case isa::SettingKind::Pattern: {
      const isa::AffinePattern &p = std::get<isa::AffinePattern>(value);
      llvm::SmallVector<int64_t, 6> pattern{p.base, p.partitionStep};
      pattern.append(p.steps.begin(), p.steps.end());
      attr = b.getDenseI64ArrayAttr(pattern);
      break;
    }
    case isa::SettingKind::Mask: {
      const isa::ShuffleMask &mask = std::get<isa::ShuffleMask>(value);
      attr = b.getDenseI32ArrayAttr(llvm::SmallVector<int32_t>(mask.begin(), mask.end()));
      break;
    }
    }
    params.push_back(b.getNamedAttr(isa::key(setting), attr));
  }
  llvm::sort(params, [](const NamedAttribute &x, const NamedAttribute &y) { return x.getName().strref() < y.getName().strref(); });
  return b.getDictionaryAttr(params);
}

std::string readParams(DictionaryAttr params, isa::Instruction &inst) {
  if (!params) return {};
  for (const NamedAttribute &entry : params) {
    StringRef key = entry.getName().strref();
    Attribute value = entry.getValue();
    std::optional<isa::Setting> setting = isa::parseSetting(std::string_view(key.data(), key.size()));
    if (!setting) return ("unknown parameter '" + key + "'").str();
    auto str = llvm::dyn_cast<StringAttr>(value);
    auto fail = [&](const char *expected) { return (key + " must be " + expected).str(); };
    switch (isa::kindOf(*setting)) {
    case isa::SettingKind::Alu: {
      std::optional<isa::AluOp> alu = str ? isa::parseAluOp(str.getValue()) : std::nullopt;
      if (!alu) return fail("an ALU operation name (add, multiply, is_gt, ...)");
      isa::set(inst, *setting, *alu);
      break;
    }
    case isa::SettingKind::Func: {
      std::optional<isa::ActFunc> func = str ? isa::parseActFunc(str.getValue()) : std::nullopt;
      if (!func) return fail("an activation function name (exp, gelu, ...)");
      isa::set(inst, *setting, *func);
      break;
    }
    case isa::SettingKind::Flag:
      if (!llvm::isa<UnitAttr>(value)) return fail("a unit attribute");
      isa::set(inst, *setting, true);
      break;
    case isa::SettingKind::Real: {
      auto real = llvm::dyn_cast<FloatAttr>(value);
      if (!real) return fail("an f32 attribute");
      isa::set(inst, *setting, real.getValue().convertToFloat());
      break;
    }
    case isa::SettingKind::Integer: {
      auto integer = llvm::dyn_cast<IntegerAttr>(value);
      if (!integer) return fail("an integer attribute");
      isa::set(inst, *setting, int64_t{integer.getInt()});
      break;
    }
    case isa::SettingKind::Pattern: {
      auto array = llvm::dyn_cast<DenseI64ArrayAttr>(value);
      if (!array || array.size() != 2 + isa::AccessPattern::kMaxFreeDims)
        return fail("array<i64: base, partition step, 4 free-dimension steps>");
      isa::AffinePattern p;
      p.base = array[0];
      p.partitionStep = array[1];
      for (unsigned d = 0; d < isa::AccessPattern::kMaxFreeDims; ++d) p.steps[d] = array[2 + d];
      isa::set(inst, *setting, p);
      break;
    }
    case isa::SettingKind::Mask: {
      auto array = llvm::dyn_cast<DenseI32ArrayAttr>(value);
      auto entry = [](int32_t v) { return (v >= 0 && v < int32_t{isa::kShuffleMaskSize}) || v == isa::kShuffleKeep; };
      if (!array || array.size() != int64_t{isa::kShuffleMaskSize} || !llvm::all_of(array.asArrayRef(), entry))
        return fail("array<i32> of 32 partitions, each 0 to 31 or 255 (kept)");
      isa::ShuffleMask mask;
      llvm::copy(array.asArrayRef(), mask.begin());
      isa::set(inst, *setting, mask);
      break;
    }
    }
  }
  return {};
}

Type mlirTypeOf(MLIRContext *ctx, isa::DType t) {
  Builder b(ctx);
  switch (t) {
  case isa::DType::F32: return b.getF32Type();
  case isa::DType::BF16: return b.getBF16Type();
  case isa::DType::F16: return b.getF16Type();
  case isa::DType::F8E4M3: return b.getFloat8E4M3FNType();
  case isa::DType::F8E5M2: return b.getFloat8E5M2Type();
  case isa::DType::I32: return b.getIntegerType(32, /*isSigned=*/true);
  case isa::DType::U32: return b.getIntegerType(32, /*isSigned=*/false);
  case isa::DType::U8: return b.getIntegerType(8, /*isSigned=*/false);
  case isa::DType::I8: return b.getIntegerType(8, /*isSigned=*/true);
  case isa::DType::I16: return b.getIntegerType(16, /*isSigned=*/true);
  case isa::DType::U16: return b.getIntegerType(16, /*isSigned=*/false);
  }
  return {};
}

std::optional<isa::DType> dtypeOf(Type t) {
  if (t.isF32()) return isa::DType::F32;
  if (t.isBF16()) return isa::DType::BF16;
  if (t.isF16()) return isa::DType::F16;
  if (t.isFloat8E4M3FN()) return isa::DType::F8E4M3;
  if (t.isFloat8E5M2()) return isa::DType::F8E5M2;
  if (t.isSignedInteger(32)) return isa::DType::I32;
  if (t.isUnsignedInteger(32)) return isa::DType::U32;
  if (t.isUnsignedInteger(8)) return isa::DType::U8;
  if (t.isSignedInteger(8)) return isa::DType::I8;
  if (t.isSignedInteger(16)) return isa::DType::I16;
  if (t.isUnsignedInteger(16)) return isa::DType::U16;
  return std::nullopt;
}

} // namespace tessera::compiler
