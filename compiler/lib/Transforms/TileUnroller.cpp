#include "TileUnroller.h"
#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/isa/FreePattern.h"

#include "tessera/compiler/Compiler.h"
#include "Targets/TargetFamily.h"
#include "tessera/compiler/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace tessera::compiler {
namespace {

isa::MemSpace toIsa(tile::MemorySpace s) {
  switch (s) {
  case tile::MemorySpace::hbm: return isa::MemSpace::Hbm;
  case tile::MemorySpace::sbuf: return isa::MemSpace::Sbuf;
  case tile::MemorySpace::psum: return isa::MemSpace::Psum;
  }
  return isa::MemSpace::Sbuf;
}

} // namespace

isa::AluOp toIsa(tile::Alu a) { return *isa::parseAluOp(tile::stringifyAlu(a)); }

isa::ActFunc toIsa(tile::Func f) { return *isa::parseActFunc(tile::stringifyFunc(f)); }

isa::AccessPattern Buffer::pattern(int64_t width, int64_t rows) const {
  isa::AccessPattern ap =
      isa::AccessPattern::dense(space, dtype, static_cast<uint32_t>(partitionStart), static_cast<uint32_t>(partitions),
                                address(), freeSize);
  if (ap.flat()) ap.partitionStride = pitch;
  if (!freePattern.empty()) {
    isa::setFreePattern(ap, freePattern);
    return ap;
  }
  if (ap.flat() && rows > partitions && partitions == 1) {
    ap.partitions = static_cast<uint32_t>(rows);
    ap.partitionStride = 0;
  }
  if (width > freeSize && freeSize == 1) {
    ap.sizes[0] = width;
    ap.strides[0] = 0;
  }
  return ap;
}

llvm::DenseMap<Operation *, int64_t> numberTileOps(Block &body) {
  llvm::DenseMap<Operation *, int64_t> numbers;
  for (Operation &op : body)
    op.walk<WalkOrder::PreOrder>([&](Operation *o) { numbers.try_emplace(o, static_cast<int64_t>(numbers.size())); });
  return numbers;
}

void TileUnroller::stamp(Operation *instruction) {
  if (origins_.empty() || !current_) return;
  auto it = origins_.find(current_);
  if (it == origins_.end()) return;
  instruction->setAttr(tile::kOriginAttr, b_.getI64IntegerAttr(it->second));
  if (!iterations_.empty()) instruction->setAttr(tile::kIterationsAttr, b_.getDenseI64ArrayAttr(iterations_));
}

LogicalResult TileUnroller::block(Block &block) {
  for (Operation &op : block) {
    current_ = &op;
    if (failed(operation(&op)) || error_) return failure();
  }
  return success();
}

LogicalResult TileUnroller::operation(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantIndexOp c) { ints_[c] = c.value(); return success(); })
      .Case([&](arith::AddIOp o) { ints_[o] = value(o.getLhs()) + value(o.getRhs()); return success(); })
      .Case([&](arith::SubIOp o) { ints_[o] = value(o.getLhs()) - value(o.getRhs()); return success(); })
      .Case([&](arith::MulIOp o) { ints_[o] = value(o.getLhs()) * value(o.getRhs()); return success(); })
      .Case([&](arith::FloorDivSIOp o) -> LogicalResult {
        const int64_t d = value(o.getRhs());
        if (d == 0) return o.emitOpError("divides by zero");
        const int64_t n = value(o.getLhs()), q = n / d;
        ints_[o] = (n % d != 0 && (n < 0) != (d < 0)) ? q - 1 : q;
        return success();
      })
      .Case([&](arith::MinSIOp o) { ints_[o] = std::min(value(o.getLhs()), value(o.getRhs())); return success(); })
      .Case([&](scf::ForOp o) { return loop(o); })
      .Case([&](scf::YieldOp) { return success(); })
      .Case([&](func::ReturnOp) { return success(); })
      .Case([&](tile::AllocOp o) { return alloc(o); })
      .Case([&](tile::ViewOp o) { return view(o); })
      .Default([&](Operation *o) { return lower(o); });
}

LogicalResult TileUnroller::loop(scf::ForOp o) {
  int64_t lb = value(o.getLowerBound()), ub = value(o.getUpperBound()), step = value(o.getStep());
  if (step <= 0) return o.emitOpError("needs a positive constant step");
  iterations_.push_back(0);
  for (int64_t iv = lb; iv < ub; iv += step, ++iterations_.back()) {
    ints_[o.getInductionVar()] = iv;
    if (failed(beginIteration(o)) || failed(block(*o.getBody()))) return failure();
  }
  iterations_.pop_back();
  return success();
}

LogicalResult TileUnroller::alloc(tile::AllocOp o) {
  if (!o.getOffset() || !o.getBufs()) return o.emitOpError("has no address: run tile-allocate-memory first");
  auto [it, fresh] = buffers_.try_emplace(o.getResult());
  Buffer &b = it->second;
  if (fresh) {
    MemRefType t = o.getType();
    b.dtype = *compiler::dtypeOf(t.getElementType());
    b.partitions = t.getDimSize(0);
    b.freeSize = t.getDimSize(1);
    b.accumulator = tile::memorySpaceOf(t) == tile::MemorySpace::psum;
    b.offset = *o.getOffset();
    b.bufs = *o.getBufs();
    const TargetFamily &family = targetFamily(target_);
    b.copyBytes = family.tileCopyBytes(t, target_);
    b.space = family.tileSpace(tile::memorySpaceOf(t));
    b.pitch = family.tilePitch(t, target_);
  }
  ++b.instance;
  b.zeroPending = false; // a zero fill nobody read is dropped with the old copy
  b.zeroFilled = false;
  return success();
}

/// A view addresses the window of the copy of its source in use now; the source does not move while the view
/// lives (the view is nested in the source's block), so this snapshot stays right.
LogicalResult TileUnroller::view(tile::ViewOp o) {
  auto it = buffers_.find(o.getSource());
  if (it == buffers_.end()) return o.emitOpError("views a tile that has no address yet");
  flushZero(it->second); // what is written through the view lands on the filled zeros, not under a later fill
  Buffer v = it->second;
  const int64_t first = value(o.getOffset()), size = o.getType().getDimSize(1);
  if (auto pattern = o.getPatternAttr()) {
    int64_t span = 0;
    for (size_t d = 0; d < pattern.size(); d += 2) span += pattern[d] * (pattern[d + 1] - 1);
    if (first < 0 || first + span >= v.freeSize)
      return o.emitOpError() << "access pattern reaches elements " << first << " to " << first + span
                             << " of its source (" << v.freeSize << " elements)";
    v.freePattern.assign(pattern.asArrayRef().begin(), pattern.asArrayRef().end());
  } else if (first < 0 || first + size > v.freeSize)
    return o.emitOpError() << "window of " << size << " elements at offset " << first << " leaves its source ("
                           << v.freeSize << " elements)";
  const int64_t bytes = isa::byteSize(v.dtype);
  v.offset = v.address() + first * bytes;
  v.freeSize = size;
  // A partition slice: on chip its first partition; in a flat memory (VMEM) its first row, `pitch` elements apart.
  if (const int64_t partition = o.firstPartition(); partition > 0) {
    if (v.pitch > 0)
      v.offset += partition * v.pitch * bytes;
    else
      v.partitionStart += partition;
  }
  v.partitions = o.getType().getDimSize(0);
  v.bufs = 1;
  v.instance = 0;
  v.copyBytes = targetFamily(target_).tileCopyBytes(o.getType(), target_);
  v.zeroPending = v.zeroFilled = false; // a view is never folded: it cannot start an accumulation group
  buffers_[o.getResult()] = v;
  return success();
}

Buffer &TileUnroller::read(Value tile) {
  Buffer &b = bufferOf(tile);
  flushZero(b);
  return b;
}

Buffer &TileUnroller::written(Value tile) {
  Buffer &b = bufferOf(tile);
  b.zeroPending = false;
  b.zeroFilled = false;
  return b;
}

void TileUnroller::flushZero(Buffer &b) {
  if (!b.zeroPending) return;
  if (failed(emitZeroFill(b))) return fail();
  b.zeroPending = false;
  b.zeroFilled = true;
}

isa::Instruction TileUnroller::computeInstruction(Operation *op, isa::Opcode opcode) {
  isa::Instruction i;
  i.op = opcode;
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](tile::BinaryOp o) {
        i.alu = toIsa(o.getOp());
        // Read before write: an in-place op (dst == lhs) on a zero-filled tile needs the fill emitted.
        Buffer &lhs = read(o.getLhs()), &rhs = read(o.getRhs());
        Buffer &dst = written(o.getDst());
        i.dst = dst.pattern();
        i.src0 = lhs.pattern(dst.freeSize);
        i.src1 = rhs.pattern(dst.freeSize);
      })
      .Case([&](tile::ActivationOp o) {
        i.func = toIsa(o.getFunc());
        i.scale = o.getScale().convertToFloat();
        i.src0 = read(o.getSrc()).pattern();
        if (o.getBias()) i.src1 = read(o.getBias()).pattern();
        if (o.getScales()) i.src2 = read(o.getScales()).pattern();
        i.dst = written(o.getDst()).pattern();
        if (o.getSum()) {
          i.alu = isa::AluOp::Add;
          i.dst2 = written(o.getSum()).pattern();
        }
      })
      .Case([&](tile::TransposeOp o) {
        i.src0 = read(o.getSrc()).pattern();
        i.dst = written(o.getDst()).pattern();
      })
      .Case([&](tile::ScanOp o) {
        i.alu = isa::AluOp::Multiply;
        i.alu1 = isa::AluOp::Add;
        i.src0 = read(o.getA()).pattern();
        i.src1 = read(o.getB()).pattern();
        if (o.getInitial()) i.src2 = read(o.getInitial()).pattern();
        i.dst = written(o.getDst()).pattern();
      })
      .Case([&](tile::FillWhereOp o) {
        i.src0 = read(o.getDst()).pattern(); // the elements that are not filled keep their values
        i.dst = written(o.getDst()).pattern();
      })
      .Case([&](tile::BinaryScalarOp o) {
        // tensor_scalar's settings: operand0 the number, reverse0 when it is the left operand, no second stage.
        i.alu = toIsa(o.getOp());
        i.alu1 = isa::AluOp::Bypass;
        i.operand0 = o.getScalar().convertToFloat();
        i.reverse0 = o.getReverse();
        i.src0 = read(o.getSrc()).pattern();
        i.dst = written(o.getDst()).pattern();
      })
      .Case([&](tile::ReduceOp o) {
        i.alu = toIsa(o.getOp());
        i.src0 = read(o.getSrc()).pattern();
        i.dst = written(o.getDst()).pattern();
        // Into groups of a contiguous source: its free dimension as [groups, n], tensor_reduce's innermost n.
        if (const int64_t groups = i.dst.freeElements(); groups > 1 && i.src0.freeRank == 1) {
          const int64_t n = i.src0.sizes[0] / groups, stride = i.src0.strides[0];
          i.src0.freeRank = 2;
          i.src0.sizes = {groups, n, 0, 0};
          i.src0.strides = {n * stride, stride, 0, 0};
        }
      })
      .Case([&](tile::CopyOp o) {
        i.src0 = read(o.getSrc()).pattern();
        i.dst = written(o.getDst()).pattern();
      })
      .Case([&](tile::BroadcastOp o) {
        const Buffer &src = read(o.getSrc());
        const Buffer &dst = written(o.getDst());
        i.src0 = src.pattern(dst.freeSize, dst.partitions);
        i.dst = dst.pattern();
      })
      .Case([&](tile::PrintOp o) { i.src0 = read(o.getSrc()).pattern(); });
  return i;
}

isa::Instruction TileUnroller::matmulInstruction(tile::MatmulOp o, isa::Opcode opcode, bool verbatim) {
  isa::Instruction i;
  i.op = opcode;
  i.src0 = read(o.getStationary()).pattern();
  i.src1 = read(o.getMoving()).pattern();
  Buffer &acc = bufferOf(o.getAcc());
  if (verbatim && o.getAccumulate()) flushZero(acc); // accumulate exactly onto what the tile holds
  // Accumulating onto zeros is the same as starting the accumulation, which is defined on every target.
  i.accumulate = o.getAccumulate() && (verbatim || (!acc.zeroPending && !acc.zeroFilled));
  acc.zeroPending = false;
  acc.zeroFilled = false;
  i.dst = acc.pattern();
  return i;
}

isa::Instruction TileUnroller::transferInstruction(Operation *op, isa::Opcode opcode) {
  isa::Instruction i;
  i.op = opcode;
  if (auto load = llvm::dyn_cast<tile::LoadOp>(op)) {
    Buffer &b = written(load.getDst());
    i.src0 = hbmPattern(load.getSrc(), load.getIndices(), load.getSteps(), load.getTranspose(), b);
    i.dst = b.pattern();
    i.preserve = op->hasAttr(tile::kPreserveAttr);
    return i;
  }
  auto store = llvm::cast<tile::StoreOp>(op);
  Buffer &b = read(store.getSrc());
  i.src0 = b.pattern();
  i.dst = hbmPattern(store.getDst(), store.getIndices(), store.getSteps(), store.getTranspose(), b);
  return i;
}

std::optional<isa::Instruction> TileUnroller::fillInstruction(tile::MemsetOp o, isa::Opcode opcode, bool mayDefer) {
  Buffer &b = written(o.getDst());
  const float value = o.getValue().convertToFloat();
  if (mayDefer && b.accumulator && value == 0.0f) {
    b.zeroPending = true;
    b.memsetLoc = o.getLoc();
    return std::nullopt;
  }
  isa::Instruction i;
  i.op = opcode;
  i.value = value;
  i.dst = b.pattern();
  b.zeroFilled = value == 0.0f;
  return i;
}

isa::Instruction TileUnroller::zeroFill(const Buffer &b, isa::Opcode opcode) {
  isa::Instruction i;
  i.op = opcode;
  i.value = 0.0f;
  i.dst = b.pattern();
  return i;
}

LogicalResult TileUnroller::countInstruction(Location loc) {
  if (maxInstructions_ == 0 || ++emitted_ <= maxInstructions_) return success();
  return emitError(loc) << kInstructionLimitMessage << ": the kernel unrolls to more than " << maxInstructions_
                        << " instructions";
}

unsigned TileUnroller::nextDmaQueue(const isa::Instruction &transfer) {
  const unsigned queues = target_.dma.queues, loadQueues = std::max(1u, queues / 2);
  if (queues < 2) return 0;
  const bool store = transfer.dst.space == isa::MemSpace::Hbm; // a DMA between HBM tensors counts as a load
  auto next = [&] {
    return store ? loadQueues + nextStoreQueue_++ % (queues - loadQueues) : nextLoadQueue_++ % loadQueues;
  };
  const Location loc = current_ ? current_->getLoc() : UnknownLoc::get(b_.getContext());
  const void *statement = llvm::isa<UnknownLoc>(loc) ? static_cast<const void *>(current_) : loc.getAsOpaquePointer();
  const int32_t tensor = store ? transfer.dst.tensor : transfer.src0.tensor; // -1: on-chip to on-chip
  auto [it, added] = statementQueues_.try_emplace({statement, tensor, store}, 0);
  if (added) it->second = next();
  return it->second;
}

isa::AccessPattern TileUnroller::hbmPattern(Value hbm, ValueRange indices,
                                            std::optional<llvm::ArrayRef<int64_t>> steps, bool transpose,
                                            const Buffer &b) const {
  auto hbmType = llvm::cast<MemRefType>(hbm.getType());
  isa::AccessPattern h;
  h.space = isa::MemSpace::Hbm;
  h.dtype = b.dtype;
  h.tensor = static_cast<int32_t>(llvm::cast<BlockArgument>(hbm).getArgNumber());
  h.partitions = static_cast<uint32_t>(b.partitions);
  const int64_t rowStep = steps ? (*steps)[0] : 1, colStep = steps ? (*steps)[1] : 1;
  h.partitionStride = hbmType.getDimSize(1) * rowStep;
  h.offset = value(indices[0]) * hbmType.getDimSize(1) + value(indices[1]);
  h.freeRank = 1;
  h.sizes[0] = b.freeSize;
  h.strides[0] = colStep;
  if (transpose) std::swap(h.partitionStride, h.strides[0]); // steps are 1 (the op's verifier)
  return h;
}

LogicalResult replaceBody(func::FuncOp fn, llvm::function_ref<LogicalResult(Block &body, OpBuilder &b)> lower) {
  Block &body = fn.getBody().front();
  auto newBody = std::make_unique<Block>();
  for (BlockArgument a : body.getArguments()) newBody->addArgument(a.getType(), a.getLoc());
  OpBuilder b(fn.getContext());
  b.setInsertionPointToEnd(newBody.get());
  if (failed(lower(body, b))) return failure();
  b.create<func::ReturnOp>(fn.getLoc());
  for (auto [from, to] : llvm::zip(body.getArguments(), newBody->getArguments())) from.replaceAllUsesWith(to);
  fn.getBody().push_back(newBody.release());
  body.dropAllReferences();
  body.erase();
  return success();
}

} // namespace tessera::compiler
