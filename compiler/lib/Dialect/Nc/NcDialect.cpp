#include "tessera/compiler/Dialect/Nc/NcDialect.h"

#include "../InstructionOps.h"

#include "tessera/isa/InstructionSet.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::nc;
using namespace tessera::compiler;

#include "tessera/compiler/Dialect/Nc/NcDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tessera/compiler/Dialect/Nc/NcAttrs.cpp.inc"

void NcDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/compiler/Dialect/Nc/NcAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tessera/compiler/Dialect/Nc/NcOps.cpp.inc"
      >();
}

namespace tessera::nc {

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
    }
  }
  return {};
}

Type toMlir(MLIRContext *ctx, isa::DType t) {
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
  }
  return {};
}

std::optional<isa::DType> toIsa(Type t) {
  if (t.isF32()) return isa::DType::F32;
  if (t.isBF16()) return isa::DType::BF16;
  if (t.isF16()) return isa::DType::F16;
  if (t.isFloat8E4M3FN()) return isa::DType::F8E4M3;
  if (t.isFloat8E5M2()) return isa::DType::F8E5M2;
  if (t.isSignedInteger(32)) return isa::DType::I32;
  if (t.isUnsignedInteger(32)) return isa::DType::U32;
  if (t.isUnsignedInteger(8)) return isa::DType::U8;
  return std::nullopt;
}

AccessPatternAttr toAttr(MLIRContext *ctx, const isa::AccessPattern &ap) {
  return AccessPatternAttr::get(ctx, isa::name(ap.space), toMlir(ctx, ap.dtype), ap.tensor, ap.partitionStart,
                                ap.partitions, ap.partitionStride, ap.offset, freeSizesOf(ap), freeStridesOf(ap));
}

namespace {

std::optional<isa::MemSpace> parseSpace(StringRef s) {
  return parseMemSpace(s, {isa::MemSpace::Hbm, isa::MemSpace::Sbuf, isa::MemSpace::Psum});
}

} // namespace

isa::AccessPattern toIsa(AccessPatternAttr attr) {
  isa::AccessPattern ap;
  ap.space = *parseSpace(attr.getSpace());
  ap.dtype = *toIsa(attr.getDtype());
  ap.tensor = static_cast<int32_t>(attr.getTensor());
  ap.partitionStart = static_cast<uint32_t>(attr.getStart());
  ap.partitions = static_cast<uint32_t>(attr.getCount());
  ap.partitionStride = attr.getPstride();
  ap.offset = attr.getOffset();
  setFreeDims(ap, attr.getDims(), attr.getStrides());
  return ap;
}

std::optional<isa::Engine> engineOf(Operation *op) {
  return parseEngine(op, {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd,
                          isa::Engine::Dma});
}

} // namespace tessera::nc

namespace {

/// The nc ops that are one instruction each, and their instructions (nc.inst names its own).
constexpr InstructionOpName kOwnOps[] = {
    {isa::Opcode::DmaCopy, DmaCopyOp::getOperationName()},
    {isa::Opcode::Matmul, MatmulOp::getOperationName()},
    {isa::Opcode::TensorTensor, TensorTensorOp::getOperationName()},
    {isa::Opcode::Activation, ActivationOp::getOperationName()},
    {isa::Opcode::TensorReduce, TensorReduceOp::getOperationName()},
    {isa::Opcode::TensorCopy, TensorCopyOp::getOperationName()},
    {isa::Opcode::Memset, MemsetOp::getOperationName()},
    {isa::Opcode::Print, PrintOp::getOperationName()},
};

/// The instruction an nc op stands for (nullopt: an nc.inst naming none).
std::optional<isa::Opcode> opcodeOf(Operation *op) {
  if (auto inst = llvm::dyn_cast<InstOp>(op)) return isa::parseOpcode(inst.getOpcode().str());
  return opcodeIn(kOwnOps, op);
}

/// Checks what every nc op shares: a known engine among its definition's, well-formed access patterns and
/// synchronisation attributes, and the instruction's own rules.
LogicalResult verifyCommon(Operation *op) {
  std::optional<isa::Engine> engine = engineOf(op);
  if (!engine) return op->emitOpError() << "has unknown engine " << op->getAttr("engine");
  std::optional<isa::Opcode> opcode = opcodeOf(op);
  if (!opcode) {
    auto inst = llvm::cast<InstOp>(op);
    return op->emitOpError() << "names no instruction of the instruction set: '" << inst.getOpcode() << "'";
  }
  if (failed(verifyEngine(op, *opcode, *engine)) || failed(verifyInstructionAttributes(op))) return failure();
  for (const NamedAttribute &named : op->getAttrs()) {
    auto ap = llvm::dyn_cast<AccessPatternAttr>(named.getValue());
    if (!ap) continue;
    PatternShape shape{ap.getSpace(), parseSpace(ap.getSpace()).has_value(), ap.getDtype(),
                       toIsa(ap.getDtype()).has_value(), ap.getDims().size(), ap.getStrides().size(), ap.getCount(),
                       ap.getTensor()};
    if (failed(verifyPatternShape(op, shape, *engine, "partition"))) return failure();
  }
  if (auto inst = llvm::dyn_cast<InstOp>(op)) {
    isa::Instruction scratch;
    if (std::string problem = nc::readParams(inst.getParamsAttr(), scratch); !problem.empty())
      return op->emitOpError() << "params: " << problem;
  }
  // Well-formed: the instruction's own rules, from its definition in the instruction set.
  return verifyAgainstDefinition(op, toInstruction(op), *engine);
}

} // namespace

// Every op's rules come from its instruction's definition (isa/InstructionSet.h).
LogicalResult DmaCopyOp::verify() { return verifyCommon(*this); }
LogicalResult MatmulOp::verify() { return verifyCommon(*this); }
LogicalResult TensorTensorOp::verify() { return verifyCommon(*this); }
LogicalResult ActivationOp::verify() { return verifyCommon(*this); }
LogicalResult TensorReduceOp::verify() { return verifyCommon(*this); }
LogicalResult TensorCopyOp::verify() { return verifyCommon(*this); }
LogicalResult MemsetOp::verify() { return verifyCommon(*this); }
LogicalResult PrintOp::verify() { return verifyCommon(*this); }
LogicalResult InstOp::verify() { return verifyCommon(*this); }

#define GET_OP_CLASSES
#include "tessera/compiler/Dialect/Nc/NcOps.cpp.inc"

namespace tessera::nc {


namespace {

/// The instruction's own op (nc.matmul, nc.activation...), or null when it has none.
Operation *buildOwnOp(OpBuilder &b, Location loc, const isa::Instruction &inst, isa::Engine engine, unsigned queue,
                      StringRef text) {
  for (const InstructionOpName &own : kOwnOps)
    if (own.opcode == inst.op)
      return buildInstructionOp(b, loc, own.name, inst, engine, queue, text, [&](const isa::AccessPattern &p) {
        return toAttr(b.getContext(), p);
      });
  return nullptr;
}

} // namespace

Operation *build(OpBuilder &b, Location loc, const isa::Instruction &inst, isa::Engine engine, unsigned queue,
                 StringRef text) {
  // An op of its own when it carries everything `inst` says (an activation with a bias tile, a negated
  // reduction do not fit theirs), else the generic nc.inst.
  if (Operation *own = buildOwnOp(b, loc, inst, engine, queue, text)) {
    isa::Instruction expected = inst;
    expected.text = 0; // a print's label is the op's text, not an index
    if (toInstruction(own).sameWork(expected)) return own;
    own->erase();
  }
  MLIRContext *ctx = b.getContext();
  auto ap = [&](const isa::AccessPattern &p) { return toAttr(ctx, p); };
  StringAttr e = b.getStringAttr(isa::name(engine));
  IntegerAttr q = b.getI64IntegerAttr(queue);
  auto optional = [&](const isa::AccessPattern &p) { return p.partitions == 0 ? AccessPatternAttr() : ap(p); };
  DictionaryAttr params = paramsAttr(b, inst);
  return b.create<InstOp>(loc, b.getStringAttr(isa::name(inst.op)), optional(inst.dst), optional(inst.dst2),
                          optional(inst.src0), optional(inst.src1), optional(inst.src2),
                          params.empty() ? DictionaryAttr() : params, e, q, nullptr, nullptr);
}

isa::Instruction toInstruction(Operation *op) {
  isa::Instruction inst;
  if (auto o = llvm::dyn_cast<InstOp>(op)) {
    inst.op = isa::parseOpcode(o.getOpcode().str()).value_or(isa::Opcode::TensorCopy);
    for (auto [attr, field] : {std::pair{o.getDstAttr(), &inst.dst}, std::pair{o.getDst2Attr(), &inst.dst2},
                               std::pair{o.getSrc0Attr(), &inst.src0}, std::pair{o.getSrc1Attr(), &inst.src1},
                               std::pair{o.getSrc2Attr(), &inst.src2}})
      if (attr) *field = toIsa(attr);
    (void)readParams(o.getParamsAttr(), inst); // checked by the verifier
    return inst;
  }
  inst.op = opcodeIn(kOwnOps, op).value_or(isa::Opcode::TensorCopy);
  readInstructionFields(op, inst, [](Attribute a) { return toIsa(llvm::cast<AccessPatternAttr>(a)); });
  return inst;
}

} // namespace tessera::nc
