#include "tessera/compiler/Dialect/Tpu/TpuDialect.h"

#include "../InstructionOpChecks.h"
#include "tessera/compiler/Dialect/Nc/NcDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::compiler;
using namespace tessera::tpu;

#include "tessera/compiler/Dialect/Tpu/TpuDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tessera/compiler/Dialect/Tpu/TpuAttrs.cpp.inc"

void TpuDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/compiler/Dialect/Tpu/TpuAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tessera/compiler/Dialect/Tpu/TpuOps.cpp.inc"
      >();
}

namespace {

std::optional<isa::MemSpace> parseSpace(StringRef s) {
  return parseMemSpace(s, {isa::MemSpace::Vmem, isa::MemSpace::Smem, isa::MemSpace::Hbm});
}

/// The instruction a tpu op stands for.
isa::Opcode opcodeOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, isa::Opcode>(op)
      .Case([](MxuMatmulOp) { return isa::Opcode::MxuMatmul; })
      .Case([](VpuBinaryOp) { return isa::Opcode::VpuBinary; })
      .Case([](VpuUnaryOp) { return isa::Opcode::VpuUnary; })
      .Case([](VpuReduceOp) { return isa::Opcode::VpuReduce; })
      .Case([](VpuConvertOp) { return isa::Opcode::VpuConvert; })
      .Case([](VpuFillOp) { return isa::Opcode::VpuFill; })
      .Case([](DmaOp) { return isa::Opcode::TpuDma; })
      .Case([](GridStepOp) { return isa::Opcode::GridStep; })
      .Case([](PrintOp) { return isa::Opcode::Print; });
}

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
                       nc::toIsa(ref.getDtype()).has_value(), ref.getDims().size(), ref.getStrides().size(),
                       ref.getRows(), ref.getTensor()};
    if (failed(verifyPatternShape(op, shape, *engine, "row"))) return failure();
    if (ref.getPitch() < 0) return op->emitOpError() << "has a negative row pitch " << ref.getPitch();
  }
  return verifyAgainstDefinition(op, toInstruction(op), *engine);
}

} // namespace

// Every op's rules come from its instruction's definition (isa/InstructionSet.h).
LogicalResult MxuMatmulOp::verify() { return verifyCommon(*this); }
LogicalResult VpuBinaryOp::verify() { return verifyCommon(*this); }
LogicalResult VpuUnaryOp::verify() { return verifyCommon(*this); }
LogicalResult VpuReduceOp::verify() { return verifyCommon(*this); }
LogicalResult VpuConvertOp::verify() { return verifyCommon(*this); }
LogicalResult VpuFillOp::verify() { return verifyCommon(*this); }
LogicalResult DmaOp::verify() { return verifyCommon(*this); }
LogicalResult GridStepOp::verify() { return verifyCommon(*this); }
LogicalResult PrintOp::verify() { return verifyCommon(*this); }

#define GET_OP_CLASSES
#include "tessera/compiler/Dialect/Tpu/TpuOps.cpp.inc"

namespace tessera::tpu {

RefAttr toAttr(MLIRContext *ctx, const isa::AccessPattern &ap) {
  llvm::SmallVector<int64_t, 4> dims(ap.sizes.begin(), ap.sizes.begin() + ap.freeRank);
  llvm::SmallVector<int64_t, 4> strides(ap.strides.begin(), ap.strides.begin() + ap.freeRank);
  return RefAttr::get(ctx, isa::name(ap.space), nc::toMlir(ctx, ap.dtype), ap.tensor, ap.partitions,
                      ap.partitionStride, ap.offset, dims, strides);
}

isa::AccessPattern toIsa(RefAttr attr) {
  isa::AccessPattern ap;
  ap.space = *parseSpace(attr.getSpace());
  ap.dtype = *nc::toIsa(attr.getDtype());
  ap.tensor = static_cast<int32_t>(attr.getTensor());
  ap.partitions = static_cast<uint32_t>(attr.getRows());
  ap.partitionStride = attr.getPitch();
  ap.offset = attr.getOffset();
  ap.freeRank = static_cast<uint8_t>(attr.getDims().size());
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    ap.sizes[d] = attr.getDims()[d];
    ap.strides[d] = attr.getStrides()[d];
  }
  return ap;
}

std::optional<isa::Engine> engineOf(Operation *op) {
  return parseEngine(op, {isa::Engine::Mxu, isa::Engine::Vpu, isa::Engine::ScalarUnit, isa::Engine::Dma});
}

Operation *build(OpBuilder &b, Location loc, const isa::Instruction &inst, isa::Engine engine, unsigned queue,
                 StringRef text) {
  MLIRContext *ctx = b.getContext();
  auto ref = [&](const isa::AccessPattern &p) { return toAttr(ctx, p); };
  StringAttr e = b.getStringAttr(isa::name(engine));
  IntegerAttr q = b.getI64IntegerAttr(queue);
  switch (inst.op) {
  case isa::Opcode::MxuMatmul:
    return b.create<MxuMatmulOp>(loc, ref(inst.dst), ref(inst.src0), ref(inst.src1),
                              inst.accumulate ? b.getUnitAttr() : UnitAttr(), e, q, nullptr, nullptr);
  case isa::Opcode::VpuBinary:
    return b.create<VpuBinaryOp>(loc, b.getStringAttr(isa::name(inst.alu)), ref(inst.dst), ref(inst.src0),
                                 ref(inst.src1), e, q, nullptr, nullptr);
  case isa::Opcode::VpuUnary:
    return b.create<VpuUnaryOp>(loc, b.getStringAttr(isa::name(inst.func)), ref(inst.dst), ref(inst.src0),
                                b.getF32FloatAttr(inst.imm), e, q, nullptr, nullptr);
  case isa::Opcode::VpuReduce:
    return b.create<VpuReduceOp>(loc, b.getStringAttr(isa::name(inst.alu)), ref(inst.dst), ref(inst.src0), e, q,
                                 nullptr, nullptr);
  case isa::Opcode::VpuConvert:
    return b.create<VpuConvertOp>(loc, ref(inst.dst), ref(inst.src0), e, q, nullptr, nullptr);
  case isa::Opcode::VpuFill:
    return b.create<VpuFillOp>(loc, ref(inst.dst), b.getF32FloatAttr(inst.imm), e, q, nullptr, nullptr);
  case isa::Opcode::TpuDma:
    return b.create<DmaOp>(loc, ref(inst.dst), ref(inst.src0), e, q, nullptr, nullptr);
  case isa::Opcode::GridStep:
    return b.create<GridStepOp>(loc, e, q, nullptr, nullptr);
  case isa::Opcode::Print:
    return b.create<PrintOp>(loc, b.getStringAttr(text), ref(inst.src0), e, q, nullptr, nullptr);
  default:
    llvm_unreachable("not a TPU instruction");
  }
}

isa::Instruction toInstruction(Operation *op) {
  isa::Instruction inst;
  inst.op = opcodeOf(op);
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](MxuMatmulOp o) {
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getLhs());
        inst.src1 = toIsa(o.getWeights());
        inst.accumulate = o.getAccumulate();
      })
      .Case([&](VpuBinaryOp o) {
        inst.alu = isa::parseAluOp(o.getOp().str()).value_or(isa::AluOp::Add); // checked by the verifier
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getLhs());
        inst.src1 = toIsa(o.getRhs());
      })
      .Case([&](VpuUnaryOp o) {
        inst.func = isa::parseActFunc(o.getFunc().str()).value_or(isa::ActFunc::Identity);
        inst.imm = o.getScale().convertToFloat();
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](VpuReduceOp o) {
        inst.alu = isa::parseAluOp(o.getOp().str()).value_or(isa::AluOp::Add);
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](VpuConvertOp o) {
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](VpuFillOp o) {
        inst.imm = o.getValue().convertToFloat();
        inst.dst = toIsa(o.getDst());
      })
      .Case([&](DmaOp o) {
        inst.dst = toIsa(o.getDst());
        inst.src0 = toIsa(o.getSrc());
      })
      .Case([&](PrintOp o) { inst.src0 = toIsa(o.getSrc()); });
  return inst;
}

} // namespace tessera::tpu
