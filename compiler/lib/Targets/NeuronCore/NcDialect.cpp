#include "NeuronCore/NcDialect.h"
#include "tessera/compiler/Dialect/Settings.h"

#include "Dialect/InstructionOps.h"
#include "tessera/compiler/Dialect/MachineDialect.h"

#include "tessera/isa/InstructionSet.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::nc;
using namespace tessera::compiler;

#include "NeuronCore/NcDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "NeuronCore/NcAttrs.cpp.inc"

namespace {

/// The nc dialect as the shared passes after lowering see it (MachineDialect.h).
struct NcMachine final : tessera::compiler::MachineDialectInterface {
  using MachineDialectInterface::MachineDialectInterface;
  const tessera::isa::Family &family() const override { return *tessera::isa::findFamily("neuroncore"); }
  std::optional<tessera::isa::Engine> engineOf(Operation *op) const override { return tessera::nc::engineOf(op); }
  tessera::isa::Instruction instructionOf(Operation *op) const override { return tessera::nc::toInstruction(op); }
  StringRef printLabelOf(Operation *op) const override {
    auto print = llvm::dyn_cast<tessera::nc::PrintOp>(op);
    return print ? print.getLabel() : StringRef();
  }
  bool isManual(Operation *op) const override { return op->hasAttr(tessera::nc::kManualAttr); }
};

} // namespace

void NcDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "NeuronCore/NcAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "NeuronCore/NcOps.cpp.inc"
      >();
  addInterfaces<NcMachine>();
}

namespace tessera::nc {


AccessPatternAttr toAttr(MLIRContext *ctx, const isa::AccessPattern &ap) {
  return AccessPatternAttr::get(ctx, isa::name(ap.space), compiler::mlirTypeOf(ctx, ap.dtype), ap.tensor, ap.partitionStart,
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
  ap.dtype = *compiler::dtypeOf(attr.getDtype());
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
                       compiler::dtypeOf(ap.getDtype()).has_value(), ap.getDims().size(), ap.getStrides().size(), ap.getCount(),
                       ap.getTensor()};
    if (failed(verifyPatternShape(op, shape, *engine, "partition"))) return failure();
  }
  if (auto inst = llvm::dyn_cast<InstOp>(op)) {
    isa::Instruction scratch;
    if (std::string problem = compiler::readParams(inst.getParamsAttr(), scratch); !problem.empty())
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
#include "NeuronCore/NcOps.cpp.inc"

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
  DictionaryAttr params = compiler::paramsAttr(b, inst);
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
    (void)compiler::readParams(o.getParamsAttr(), inst); // checked by the verifier
    return inst;
  }
  inst.op = opcodeIn(kOwnOps, op).value_or(isa::Opcode::TensorCopy);
  readInstructionFields(op, inst, [](Attribute a) { return toIsa(llvm::cast<AccessPatternAttr>(a)); });
  return inst;
}

} // namespace tessera::nc
