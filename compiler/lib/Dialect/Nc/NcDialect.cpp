#include "tessera/compiler/Dialect/Nc/NcDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::nc;

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

Type toMlir(MLIRContext *ctx, isa::DType t) {
  Builder b(ctx);
  switch (t) {
  case isa::DType::F32: return b.getF32Type();
  case isa::DType::BF16: return b.getBF16Type();
  case isa::DType::F16: return b.getF16Type();
  case isa::DType::F8E4M3: return b.getFloat8E4M3FNType();
  case isa::DType::F8E5M2: return b.getFloat8E5M2Type();
  }
  return {};
}

std::optional<isa::DType> toIsa(Type t) {
  if (t.isF32()) return isa::DType::F32;
  if (t.isBF16()) return isa::DType::BF16;
  if (t.isF16()) return isa::DType::F16;
  if (t.isFloat8E4M3FN()) return isa::DType::F8E4M3;
  if (t.isFloat8E5M2()) return isa::DType::F8E5M2;
  return std::nullopt;
}

AccessPatternAttr toAttr(MLIRContext *ctx, const isa::AccessPattern &ap) {
  llvm::SmallVector<int64_t, 4> dims(ap.sizes.begin(), ap.sizes.begin() + ap.freeRank);
  llvm::SmallVector<int64_t, 4> strides(ap.strides.begin(), ap.strides.begin() + ap.freeRank);
  return AccessPatternAttr::get(ctx, isa::name(ap.space), toMlir(ctx, ap.dtype), ap.tensor, ap.partitionStart,
                                ap.partitions, ap.partitionStride, ap.offset, dims, strides);
}

static std::optional<isa::MemSpace> parseSpace(StringRef s) {
  for (auto space : {isa::MemSpace::Hbm, isa::MemSpace::Sbuf, isa::MemSpace::Psum})
    if (s == StringRef(isa::name(space))) return space;
  return std::nullopt;
}

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
  auto engine = op->getAttrOfType<StringAttr>("engine");
  if (!engine) return std::nullopt;
  for (auto e : {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd, isa::Engine::Dma})
    if (engine.getValue() == StringRef(isa::name(e))) return e;
  return std::nullopt;
}

Operands operandsOf(Operation *op) {
  Operands r;
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](DmaCopyOp o) { r = {{o.getSrc()}, o.getDst()}; })
      .Case([&](MatmulOp o) {
        r = {{o.getStationary(), o.getMoving()}, o.getDst()};
        if (o.getAccumulate()) r.reads.push_back(o.getDst());
      })
      .Case([&](TensorTensorOp o) { r = {{o.getLhs(), o.getRhs()}, o.getDst()}; })
      .Case([&](ActivationOp o) { r = {{o.getSrc()}, o.getDst()}; })
      .Case([&](TensorReduceOp o) { r = {{o.getSrc()}, o.getDst()}; })
      .Case([&](TensorCopyOp o) { r = {{o.getSrc()}, o.getDst()}; })
      .Case([&](MemsetOp o) { r = {{}, o.getDst()}; })
      .Case([&](PrintOp o) { r = {{o.getSrc()}, {}}; });
  return r;
}

} // namespace tessera::nc

namespace {

/// Checks what every nc op shares: a known engine among `allowed`, well-formed access patterns, and
/// (semaphore, count) pairs in `waits`.
LogicalResult verifyInstruction(Operation *op, std::initializer_list<isa::Engine> allowed) {
  std::optional<isa::Engine> engine = engineOf(op);
  if (!engine) return op->emitOpError() << "has unknown engine " << op->getAttr("engine");
  if (std::find(allowed.begin(), allowed.end(), *engine) == allowed.end())
    return op->emitOpError() << "cannot run on the " << isa::name(*engine) << " engine";
  if (auto waits = op->getAttrOfType<DenseI64ArrayAttr>("waits")) {
    if (waits.size() % 2) return op->emitOpError("waits must hold (semaphore, count) pairs");
    for (size_t k = 0; k < waits.size(); k += 2)
      if (waits[k] < 0 || waits[k + 1] < 1)
        return op->emitOpError() << "waits for semaphore " << waits[k] << " to reach " << waits[k + 1]
                                 << "; semaphores are numbered from 0 and counts start at 1";
  }
  if (auto signals = op->getAttrOfType<DenseI64ArrayAttr>("signals"))
    for (int64_t sem : signals.asArrayRef())
      if (sem < 0) return op->emitOpError() << "signals semaphore " << sem << "; semaphores are numbered from 0";
  if (auto queue = op->getAttrOfType<IntegerAttr>("queue"); queue && queue.getInt() < 0)
    return op->emitOpError() << "has negative DMA queue " << queue.getInt();
  Operands operands = operandsOf(op);
  llvm::SmallVector<AccessPatternAttr, 4> all(operands.reads.begin(), operands.reads.end());
  if (operands.write) all.push_back(operands.write);
  for (AccessPatternAttr ap : all) {
    if (!parseSpace(ap.getSpace())) return op->emitOpError() << "unknown memory space '" << ap.getSpace() << "'";
    if (!toIsa(ap.getDtype())) return op->emitOpError() << "unsupported element type " << ap.getDtype();
    if (ap.getDims().size() != ap.getStrides().size() || ap.getDims().empty() ||
        ap.getDims().size() > isa::AccessPattern::kMaxFreeDims)
      return op->emitOpError("access patterns need 1 to 4 free dimensions, each with a stride");
    if (ap.getCount() <= 0) return op->emitOpError("access patterns touch at least one partition");
    bool hbm = ap.getSpace() == StringRef(isa::name(isa::MemSpace::Hbm));
    if (hbm != (ap.getTensor() >= 0)) return op->emitOpError("HBM access patterns (and only they) name a tensor");
    if (*engine != isa::Engine::Dma && hbm) return op->emitOpError("compute engines cannot access HBM");
  }
  return success();
}

int64_t freeElements(nc::AccessPatternAttr ap) {
  int64_t n = 1;
  for (int64_t d : ap.getDims()) n *= d;
  return n;
}

} // namespace

LogicalResult DmaCopyOp::verify() {
  if (failed(verifyInstruction(*this, {isa::Engine::Dma}))) return failure();
  if (getDst().getCount() * freeElements(getDst()) != getSrc().getCount() * freeElements(getSrc()))
    return emitOpError("source and destination hold different numbers of elements");
  return success();
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyInstruction(*this, {isa::Engine::Tensor}))) return failure();
  if (getStationary().getCount() != getMoving().getCount())
    return emitOpError("stationary and moving must share the contraction (partition) dimension");
  if (getDst().getSpace() != "psum" || !getDst().getDtype().isF32())
    return emitOpError("writes f32 to psum");
  if (getDst().getCount() != freeElements(getStationary()) || freeElements(getDst()) != freeElements(getMoving()))
    return emitOpError("dst must be [stationary free, moving free]");
  return success();
}

LogicalResult TensorTensorOp::verify() {
  return verifyInstruction(*this, {isa::Engine::Vector, isa::Engine::GpSimd});
}
LogicalResult ActivationOp::verify() { return verifyInstruction(*this, {isa::Engine::Scalar}); }
LogicalResult TensorReduceOp::verify() { return verifyInstruction(*this, {isa::Engine::Vector, isa::Engine::GpSimd}); }
LogicalResult TensorCopyOp::verify() {
  return verifyInstruction(*this, {isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd});
}
LogicalResult MemsetOp::verify() {
  return verifyInstruction(*this, {isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd});
}
LogicalResult PrintOp::verify() {
  if (failed(verifyInstruction(*this, {isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd})))
    return failure();
  if (getSrc().getSpace() == StringRef(isa::name(isa::MemSpace::Hbm))) return emitOpError("prints on-chip tiles only");
  return success();
}

#define GET_OP_CLASSES
#include "tessera/compiler/Dialect/Nc/NcOps.cpp.inc"

namespace tessera::nc {

namespace {
isa::AluOp parseAlu(StringRef s) {
  for (auto op : {isa::AluOp::Add, isa::AluOp::Subtract, isa::AluOp::Multiply, isa::AluOp::Max, isa::AluOp::Min,
                  isa::AluOp::Divide})
    if (s == StringRef(isa::name(op))) return op;
  return isa::AluOp::Add;
}
isa::ActFunc parseFunc(StringRef s) { return s == StringRef(isa::name(isa::ActFunc::Exp)) ? isa::ActFunc::Exp : isa::ActFunc::Identity; }
} // namespace

Operation *build(OpBuilder &b, Location loc, const isa::Instruction &inst, isa::Engine engine, unsigned queue,
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
  }
  return nullptr;
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
      });
  return inst;
}

} // namespace tessera::nc
