#include "tessera/compiler/Dialect/Nc/NcDialect.h"

#include "../InstructionOpChecks.h"

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

namespace {

isa::AluOp parseAlu(StringRef s) { return isa::parseAluOp(s).value_or(isa::AluOp::Add); }
isa::ActFunc parseFunc(StringRef s) { return isa::parseActFunc(s).value_or(isa::ActFunc::Identity); }

} // namespace

DictionaryAttr paramsAttr(OpBuilder &b, const isa::Instruction &inst) {
  const isa::Instruction defaults;
  llvm::SmallVector<NamedAttribute> params;
  auto add = [&](StringRef key, Attribute value) { params.push_back(b.getNamedAttr(key, value)); };
  if (inst.alu != defaults.alu) add("alu", b.getStringAttr(isa::name(inst.alu)));
  if (inst.alu1 != defaults.alu1) add("alu1", b.getStringAttr(isa::name(inst.alu1)));
  if (inst.func != defaults.func) add("func", b.getStringAttr(isa::name(inst.func)));
  for (auto [key, flag] : {std::pair{"accumulate", inst.accumulate}, std::pair{"reverse0", inst.reverse0},
                           std::pair{"reverse1", inst.reverse1}, std::pair{"negate", inst.negate}})
    if (flag) add(key, b.getUnitAttr());
  if (inst.mode != 0) add("mode", b.getI64IntegerAttr(inst.mode));
  for (auto [key, value] : {std::pair{"imm", inst.imm}, std::pair{"imm1", inst.imm1}, std::pair{"bias", inst.bias}})
    if (value != 0.0f) add(key, b.getF32FloatAttr(value));
  for (auto [key, value] : {std::pair{"count0", inst.count0}, std::pair{"count1", inst.count1}})
    if (value != 0) add(key, b.getI64IntegerAttr(value));
  const isa::AffinePattern &p = inst.pattern;
  llvm::SmallVector<int64_t, 6> pattern{p.base, p.partitionStep};
  pattern.append(p.steps.begin(), p.steps.end());
  if (llvm::any_of(pattern, [](int64_t v) { return v != 0; })) add("pattern", b.getDenseI64ArrayAttr(pattern));
  llvm::sort(params, [](const NamedAttribute &x, const NamedAttribute &y) { return x.getName().strref() < y.getName().strref(); });
  return b.getDictionaryAttr(params);
}

std::string readParams(DictionaryAttr params, isa::Instruction &inst) {
  if (!params) return {};
  for (const NamedAttribute &entry : params) {
    StringRef key = entry.getName().strref();
    Attribute value = entry.getValue();
    auto str = llvm::dyn_cast<StringAttr>(value);
    auto real = llvm::dyn_cast<FloatAttr>(value);
    auto integer = llvm::dyn_cast<IntegerAttr>(value);
    auto fail = [&](const char *expected) { return (key + " must be " + expected).str(); };
    if (key == "alu" || key == "alu1") {
      std::optional<isa::AluOp> alu = str ? isa::parseAluOp(str.getValue()) : std::nullopt;
      if (!alu) return fail("an ALU operation name (add, multiply, is_gt, ...)");
      (key == "alu" ? inst.alu : inst.alu1) = *alu;
    } else if (key == "func") {
      std::optional<isa::ActFunc> func = str ? isa::parseActFunc(str.getValue()) : std::nullopt;
      if (!func) return fail("an activation function name (exp, gelu, ...)");
      inst.func = *func;
    } else if (key == "accumulate" || key == "reverse0" || key == "reverse1" || key == "negate") {
      if (!llvm::isa<UnitAttr>(value)) return fail("a unit attribute");
      (key == "accumulate" ? inst.accumulate : key == "reverse0" ? inst.reverse0 : key == "reverse1" ? inst.reverse1 : inst.negate) = true;
    } else if (key == "imm" || key == "imm1" || key == "bias") {
      if (!real) return fail("an f32 attribute");
      (key == "imm" ? inst.imm : key == "imm1" ? inst.imm1 : inst.bias) = real.getValue().convertToFloat();
    } else if (key == "mode" || key == "count0" || key == "count1") {
      if (!integer) return fail("an integer attribute");
      if (key == "mode") inst.mode = static_cast<uint8_t>(integer.getInt());
      else (key == "count0" ? inst.count0 : inst.count1) = integer.getInt();
    } else if (key == "pattern") {
      auto array = llvm::dyn_cast<DenseI64ArrayAttr>(value);
      if (!array || array.size() != 2 + isa::AccessPattern::kMaxFreeDims)
        return fail("array<i64: base, partition step, 4 free-dimension steps>");
      inst.pattern.base = array[0];
      inst.pattern.partitionStep = array[1];
      for (unsigned d = 0; d < isa::AccessPattern::kMaxFreeDims; ++d) inst.pattern.steps[d] = array[2 + d];
    } else {
      return ("unknown parameter '" + key + "'").str();
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
  llvm::SmallVector<int64_t, 4> dims(ap.sizes.begin(), ap.sizes.begin() + ap.freeRank);
  llvm::SmallVector<int64_t, 4> strides(ap.strides.begin(), ap.strides.begin() + ap.freeRank);
  return AccessPatternAttr::get(ctx, isa::name(ap.space), toMlir(ctx, ap.dtype), ap.tensor, ap.partitionStart,
                                ap.partitions, ap.partitionStride, ap.offset, dims, strides);
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
  ap.freeRank = static_cast<uint8_t>(attr.getDims().size());
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    ap.sizes[d] = attr.getDims()[d];
    ap.strides[d] = attr.getStrides()[d];
  }
  return ap;
}

std::optional<isa::Engine> engineOf(Operation *op) {
  return parseEngine(op, {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd,
                          isa::Engine::Dma});
}

} // namespace tessera::nc

namespace {

/// The instruction an nc op stands for (nullopt: an nc.inst naming none).
std::optional<isa::Opcode> opcodeOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<isa::Opcode>>(op)
      .Case([](DmaCopyOp) { return isa::Opcode::DmaCopy; })
      .Case([](MatmulOp) { return isa::Opcode::Matmul; })
      .Case([](TensorTensorOp) { return isa::Opcode::TensorTensor; })
      .Case([](ActivationOp) { return isa::Opcode::Activation; })
      .Case([](TensorReduceOp) { return isa::Opcode::TensorReduce; })
      .Case([](TensorCopyOp) { return isa::Opcode::TensorCopy; })
      .Case([](MemsetOp) { return isa::Opcode::Memset; })
      .Case([](PrintOp) { return isa::Opcode::Print; })
      .Case([](InstOp o) { return isa::parseOpcode(o.getOpcode().str()); })
      .Default([](Operation *) { return std::nullopt; });
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
  MLIRContext *ctx = b.getContext();
  auto ap = [&](const isa::AccessPattern &p) { return toAttr(ctx, p); };
  StringAttr e = b.getStringAttr(isa::name(engine));
  IntegerAttr q = b.getI64IntegerAttr(queue);
  switch (inst.op) {
  case isa::Opcode::DmaCopy:
    return b.create<DmaCopyOp>(loc, ap(inst.dst), ap(inst.src0), e, q, nullptr, nullptr);
  case isa::Opcode::Matmul:
    return b.create<MatmulOp>(loc, ap(inst.dst), ap(inst.src0), ap(inst.src1),
                              inst.accumulate ? b.getUnitAttr() : UnitAttr(), e, q, nullptr,
                              nullptr);
  case isa::Opcode::TensorTensor:
    return b.create<TensorTensorOp>(loc, b.getStringAttr(isa::name(inst.alu)), ap(inst.dst), ap(inst.src0),
                                    ap(inst.src1), e, q, nullptr, nullptr);
  case isa::Opcode::Activation:
    return b.create<ActivationOp>(loc, b.getStringAttr(isa::name(inst.func)), ap(inst.dst), ap(inst.src0),
                                  b.getF32FloatAttr(inst.imm), e, q, nullptr, nullptr);
  case isa::Opcode::TensorReduce:
    return b.create<TensorReduceOp>(loc, b.getStringAttr(isa::name(inst.alu)), ap(inst.dst), ap(inst.src0), e, q,
                                    nullptr, nullptr);
  case isa::Opcode::TensorCopy:
    return b.create<TensorCopyOp>(loc, ap(inst.dst), ap(inst.src0), e, q, nullptr, nullptr);
  case isa::Opcode::Memset:
    return b.create<MemsetOp>(loc, ap(inst.dst), b.getF32FloatAttr(inst.imm), e, q, nullptr, nullptr);
  case isa::Opcode::Print:
    return b.create<PrintOp>(loc, b.getStringAttr(text), ap(inst.src0), e, q, nullptr, nullptr);
  default: break;
  }
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
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](DmaCopyOp o) {
        inst.op = isa::Opcode::DmaCopy;
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](MatmulOp o) {
        inst.op = isa::Opcode::Matmul;
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getStationary());
        inst.src1 = toIsa(o.getMoving());
        inst.accumulate = o.getAccumulate();
      })
      .Case([&](TensorTensorOp o) {
        inst.op = isa::Opcode::TensorTensor;
        inst.alu = parseAlu(o.getOp());
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getLhs());
        inst.src1 = toIsa(o.getRhs());
      })
      .Case([&](ActivationOp o) {
        inst.op = isa::Opcode::Activation;
        inst.func = parseFunc(o.getFunc());
        inst.imm = o.getScale().convertToFloat();
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](TensorReduceOp o) {
        inst.op = isa::Opcode::TensorReduce;
        inst.alu = parseAlu(o.getOp());
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](TensorCopyOp o) {
        inst.op = isa::Opcode::TensorCopy;
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](MemsetOp o) {
        inst.op = isa::Opcode::Memset;
        inst.imm = o.getValue().convertToFloat();
        inst.dst = toIsa(o.getDst());
      })
      .Case([&](PrintOp o) {
        inst.op = isa::Opcode::Print;
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](InstOp o) {
        inst.op = isa::parseOpcode(o.getOpcode().str()).value_or(isa::Opcode::TensorCopy);
        for (auto [attr, field] : {std::pair{o.getDstAttr(), &inst.dst}, std::pair{o.getDst2Attr(), &inst.dst2},
                                   std::pair{o.getSrc0Attr(), &inst.src0}, std::pair{o.getSrc1Attr(), &inst.src1},
                                   std::pair{o.getSrc2Attr(), &inst.src2}})
          if (attr) *field = toIsa(attr);
        (void)readParams(o.getParamsAttr(), inst); // checked by the verifier
      });
  return inst;
}

} // namespace tessera::nc
