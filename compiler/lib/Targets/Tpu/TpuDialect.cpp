#include "Tpu/TpuDialect.h"
#include "tessera/compiler/Dialect/Settings.h"

#include "Dialect/InstructionOps.h"
#include "tessera/compiler/Dialect/MachineDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::compiler;
using namespace tessera::tpu;

#include "Tpu/TpuDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "Tpu/TpuAttrs.cpp.inc"

namespace {

/// The tpu dialect as the shared passes after lowering see it (MachineDialect.h).
struct TpuMachine final : tessera::compiler::MachineDialectInterface {
  using MachineDialectInterface::MachineDialectInterface;
  const tessera::isa::Family &family() const override { return *tessera::isa::findFamily("tpu"); }
  std::optional<tessera::isa::Engine> engineOf(Operation *op) const override { return tessera::tpu::engineOf(op); }
  tessera::isa::Instruction instructionOf(Operation *op) const override { return tessera::tpu::toInstruction(op); }
  StringRef printLabelOf(Operation *op) const override {
    auto print = llvm::dyn_cast<tessera::tpu::PrintOp>(op);
    return print ? print.getLabel() : StringRef();
  }
};

} // namespace

void TpuDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Tpu/TpuAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Tpu/TpuOps.cpp.inc"
      >();
  addInterfaces<TpuMachine>();
}

namespace {

std::optional<isa::MemSpace> parseSpace(StringRef s) {
  return parseMemSpace(s, {isa::MemSpace::Vmem, isa::MemSpace::Smem, isa::MemSpace::Hbm});
}

/// The tpu ops and the instructions they stand for, one each.
constexpr InstructionOpName kOps[] = {
    {isa::Opcode::MxuMatmul, MxuMatmulOp::getOperationName()},
    {isa::Opcode::VpuBinary, VpuBinaryOp::getOperationName()},
    {isa::Opcode::VpuUnary, VpuUnaryOp::getOperationName()},
    {isa::Opcode::VpuReduce, VpuReduceOp::getOperationName()},
    {isa::Opcode::VpuConvert, VpuConvertOp::getOperationName()},
    {isa::Opcode::VpuFill, VpuFillOp::getOperationName()},
    {isa::Opcode::TpuDma, DmaOp::getOperationName()},
    {isa::Opcode::GridStep, GridStepOp::getOperationName()},
    {isa::Opcode::Print, PrintOp::getOperationName()},
};

/// The instruction a tpu op stands for.
isa::Opcode opcodeOf(Operation *op) { return *opcodeIn(kOps, op); }

/// Checks what every tpu op shares: a known unit among its definition's, well-formed #tpu.ref operands and
/// synchronisation attributes, and the instruction's own rules.
LogicalResult verifyCommon(Operation *op) {
  std::optional<isa::Engine> engine = engineOf(op);
  if (!engine) return op->emitOpError() << "has unknown engine " << op->getAttr("engine");
  if (failed(verifyEngine(op, opcodeOf(op), *engine)) || failed(verifyInstructionAttributes(op))) return failure();
  for (const NamedAttribute &named : op->getAttrs()) {
    auto ref = llvm::dyn_cast<RefAttr>(named.getValue());
    if (!ref) continue;
    PatternShape shape{ref.getSpace(), parseSpace(ref.getSpace()).has_value(), ref.getDtype(),
                       compiler::dtypeOf(ref.getDtype()).has_value(), ref.getDims().size(), ref.getStrides().size(),
                       ref.getRows(), ref.getTensor()};
    if (failed(verifyPatternShape(op, shape, *engine, "row"))) return failure();
    if (ref.getPitch() < 0) return op->emitOpError() << "has a negative row pitch " << ref.getPitch();
  }
  return verifyAgainstDefinition(op, toInstruction(op), *engine);
}

} // namespace

// Every op's verify() is verifyCommon (Tpu.td): its rules come from its instruction's definition.
#define GET_OP_CLASSES
#include "Tpu/TpuOps.cpp.inc"

namespace tessera::tpu {

RefAttr toAttr(MLIRContext *ctx, const isa::AccessPattern &ap) {
  return RefAttr::get(ctx, isa::name(ap.space), compiler::mlirTypeOf(ctx, ap.dtype), ap.tensor, ap.partitions,
                      ap.partitionStride, ap.offset, freeSizesOf(ap), freeStridesOf(ap));
}

isa::AccessPattern toIsa(RefAttr attr) {
  isa::AccessPattern ap;
  ap.space = *parseSpace(attr.getSpace());
  ap.dtype = *compiler::dtypeOf(attr.getDtype());
  ap.tensor = static_cast<int32_t>(attr.getTensor());
  ap.partitions = static_cast<uint32_t>(attr.getRows());
  ap.partitionStride = attr.getPitch();
  ap.offset = attr.getOffset();
  setFreeDims(ap, attr.getDims(), attr.getStrides());
  return ap;
}

std::optional<isa::Engine> engineOf(Operation *op) {
  return parseEngine(op, {isa::Engine::Mxu, isa::Engine::Vpu, isa::Engine::ScalarUnit, isa::Engine::Dma});
}

Operation *build(OpBuilder &b, Location loc, const isa::Instruction &inst, isa::Engine engine, unsigned queue,
                 StringRef text) {
  for (const InstructionOpName &op : kOps)
    if (op.opcode == inst.op)
      return buildInstructionOp(b, loc, op.name, inst, engine, queue, text, [&](const isa::AccessPattern &p) {
        return toAttr(b.getContext(), p);
      });
  llvm_unreachable("not a TPU instruction");
}

isa::Instruction toInstruction(Operation *op) {
  isa::Instruction inst;
  inst.op = opcodeOf(op);
  readInstructionFields(op, inst, [](Attribute a) { return toIsa(llvm::cast<RefAttr>(a)); });
  return inst;
}

} // namespace tessera::tpu
