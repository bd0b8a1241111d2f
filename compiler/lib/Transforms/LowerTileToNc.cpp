//===- LowerTileToNc.cpp - tile -> NeuronCore engine instructions ----------------------------------------===//
//
// Walks the kernel as it would run, unrolling every loop, and emits one nc op per engine instruction:
//  - addresses are resolved: tile i of a loop uses copy (i mod bufs) of its allocation;
//  - each op gets an engine: DMA on a queue (round robin; loads and stores on separate halves of the queues),
//    matmul on the tensor engine, activation on the scalar engine, and ops several engines can run go to the
//    one with the least work so far (estimated with the target's cost model);
//  - a PSUM tile that was zero-filled and is then accumulated into by matmuls needs no memset: its first
//    matmul starts the accumulation group (overwrites) instead. On NeuronCore v2/v3 accumulating onto a
//    memset-initialised bank is undefined (TARGETS.md), so this is also what makes the kernel correct; when
//    something read the zeros first (so the memset was emitted), the first matmul still starts the group;
//  - ops the kernel wrote at the tsr::isa level (tile.isa, tile.manual) become exactly one instruction each, as
//    written: no fill dropped, no accumulation rewritten. Ops of a manual_sync scope (tile.manual) give
//    instructions marked nc.manual; tile.wait makes the next of them wait for a semaphore, tile.signal makes
//    the previous one signal it;
//  - tile.print becomes nc.print, a reader of the tile on the least busy engine that can reach it;
//  - tile.view emits nothing: its uses address the window of its source's current copy.
// Test: compiler/test/Transforms/lower-tile-to-nc.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/compiler/Dialect/Nc/NcDialect.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/compiler/Passes.h"
#include "tessera/isa/AccessRules.h"
#include "tessera/isa/Cost.h"
#include "tessera/isa/InstructionSet.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>
#include <limits>

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

isa::AluOp toIsa(tile::Alu a) { return *isa::parseAluOp(tile::stringifyAlu(a)); }

isa::ActFunc toIsa(tile::Func f) { return *isa::parseActFunc(tile::stringifyFunc(f)); }

/// A tile allocation while the kernel is walked.
struct Buffer {
  isa::MemSpace space = isa::MemSpace::Sbuf;
  isa::DType dtype = isa::DType::F32;
  int64_t partitions = 0, freeSize = 0;
  int64_t offset = 0, bufs = 1, copyBytes = 0;
  int64_t instance = -1;        ///< how many times the alloc has run, minus one
  bool zeroPending = false;     ///< zero-filled, memset not emitted yet
  bool zeroFilled = false;      ///< holds the zeros of a memset that nothing has overwritten since
  std::optional<Location> memsetLoc;

  int64_t address() const { return offset + (instance % bufs) * copyBytes; }
  /// The whole tile, or (when `width` is larger than a [P, 1] tile's 1) the tile broadcast to `width`.
  isa::AccessPattern pattern(int64_t width = 0) const {
    isa::AccessPattern ap = isa::AccessPattern::dense(space, dtype, 0, static_cast<uint32_t>(partitions), address(),
                                                      freeSize);
    if (width > freeSize && freeSize == 1) {
      ap.sizes[0] = width;
      ap.strides[0] = 0;
    }
    return ap;
  }
};

class Lowering {
public:
  Lowering(const isa::Target &t, OpBuilder &b, uint64_t maxInstructions = 0)
      : target_(t), b_(b), maxInstructions_(maxInstructions) {}

  LogicalResult block(Block &block) {
    for (Operation &op : block) {
      current_ = &op;
      if (failed(operation(&op)) || error_) return failure();
    }
    return success();
  }

  /// After the last op: a tile.wait that no instruction followed is an error.
  LogicalResult finish() {
    if (pendingWaits_.empty()) return success();
    return emitError(pendingWaits_.front().loc)
           << "tile.wait: no instruction of its manual_sync scope follows it to wait";
  }

private:
  int64_t value(Value v) { return ints_.lookup(v); }

  /// Whether the op being lowered becomes exactly one instruction, as written (tsr::isa level).
  bool verbatim() const { return current_->hasAttr(tile::kIsaAttr) || manual(); }
  /// Whether the op being lowered comes from a manual_sync scope.
  bool manual() const { return current_->hasAttr(tile::kManualAttr); }

  LogicalResult operation(Operation *op) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](arith::ConstantIndexOp c) { ints_[c] = c.value(); return success(); })
        .Case([&](arith::AddIOp o) { ints_[o] = value(o.getLhs()) + value(o.getRhs()); return success(); })
        .Case([&](arith::SubIOp o) { ints_[o] = value(o.getLhs()) - value(o.getRhs()); return success(); })
        .Case([&](arith::MulIOp o) { ints_[o] = value(o.getLhs()) * value(o.getRhs()); return success(); })
        .Case([&](scf::ForOp o) { return loop(o); })
        .Case([&](scf::YieldOp) { return success(); })
        .Case([&](func::ReturnOp) { return success(); })
        .Case([&](tile::AllocOp o) { return alloc(o); })
        .Case([&](tile::ViewOp o) { return view(o); })
        .Case([&](tile::LoadOp o) { return dma(o, o.getSrc(), o.getIndices(), o.getDst(), true); })
        .Case([&](tile::StoreOp o) { return dma(o, o.getDst(), o.getIndices(), o.getSrc(), false); })
        .Case([&](tile::MatmulOp o) { return matmul(o); })
        .Case([&](tile::BinaryOp o) {
          isa::Instruction i;
          i.op = isa::Opcode::TensorTensor;
          i.alu = toIsa(o.getOp());
          // Read before write: an in-place op (dst == lhs) on a zero-filled tile needs the fill emitted.
          Buffer &lhs = read(o.getLhs()), &rhs = read(o.getRhs());
          Buffer &dst = written(o.getDst(), o);
          i.dst = dst.pattern();
          i.src0 = lhs.pattern(dst.freeSize);
          i.src1 = rhs.pattern(dst.freeSize);
          return emit(o.getLoc(), i, leastBusy({isa::Engine::Vector, isa::Engine::GpSimd}, i));
        })
        .Case([&](tile::ActivationOp o) {
          isa::Instruction i;
          i.op = isa::Opcode::Activation;
          i.func = toIsa(o.getFunc());
          i.imm = o.getScale().convertToFloat();
          i.src0 = read(o.getSrc()).pattern();
          i.dst = written(o.getDst(), o).pattern();
          return emit(o.getLoc(), i, isa::Engine::Scalar);
        })
        .Case([&](tile::ReduceOp o) {
          isa::Instruction i;
          i.op = isa::Opcode::TensorReduce;
          i.alu = toIsa(o.getOp());
          i.src0 = read(o.getSrc()).pattern();
          i.dst = written(o.getDst(), o).pattern();
          return emit(o.getLoc(), i, leastBusy({isa::Engine::Vector, isa::Engine::GpSimd}, i));
        })
        .Case([&](tile::CopyOp o) {
          isa::Instruction i;
          i.op = isa::Opcode::TensorCopy;
          i.src0 = read(o.getSrc()).pattern();
          i.dst = written(o.getDst(), o).pattern();
          return emit(o.getLoc(), i, leastBusy({isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd}, i));
        })
        .Case([&](tile::MemsetOp o) { return memset(o); })
        .Case([&](tile::InstOp o) { return instruction(o); })
        .Case([&](tile::PrintOp o) {
          isa::Instruction i;
          i.op = isa::Opcode::Print;
          i.src0 = read(o.getSrc()).pattern();
          return emit(o.getLoc(), i, leastBusy({isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd}, i),
                      o.getLabel());
        })
        .Case([&](tile::WaitOp o) -> LogicalResult {
          const int64_t count = value(o.getCount());
          if (count < 1)
            return o.emitOpError() << "waits for semaphore " << o.getSemaphoreAttr().getInt() << " to reach "
                                   << count << "; a wait is for a count of at least 1";
          pendingWaits_.push_back({o.getSemaphoreAttr().getInt(), count, o.getLoc()});
          return success();
        })
        .Case([&](tile::SignalOp o) -> LogicalResult {
          if (!lastEmitted_ || !lastEmitted_->hasAttr(nc::kManualAttr))
            return o.emitOpError("follows no instruction of its manual_sync scope: nothing to signal when done");
          append(lastEmitted_, "signals", {o.getSemaphoreAttr().getInt()});
          return success();
        })
        .Default([&](Operation *o) { return o->emitOpError("cannot be lowered to NeuronCore instructions"); });
  }

  LogicalResult loop(scf::ForOp o) {
    int64_t lb = value(o.getLowerBound()), ub = value(o.getUpperBound()), step = value(o.getStep());
    if (step <= 0) return o.emitOpError("needs a positive constant step");
    for (int64_t iv = lb; iv < ub; iv += step) {
      ints_[o.getInductionVar()] = iv;
      if (failed(block(*o.getBody()))) return failure();
    }
    return success();
  }

  LogicalResult alloc(tile::AllocOp o) {
    if (!o.getOffset() || !o.getBufs()) return o.emitOpError("has no address: run tile-allocate-memory first");
    auto [it, fresh] = buffers_.try_emplace(o.getResult());
    Buffer &b = it->second;
    if (fresh) {
      MemRefType t = o.getType();
      b.space = toIsa(tile::memorySpaceOf(t));
      b.dtype = *nc::toIsa(t.getElementType());
      b.partitions = t.getDimSize(0);
      b.freeSize = t.getDimSize(1);
      b.offset = *o.getOffset();
      b.bufs = *o.getBufs();
      b.copyBytes = tileCopyBytes(t, target_);
    }
    ++b.instance;
    b.zeroPending = false; // a zero fill nobody read is dropped with the old copy
    b.zeroFilled = false;
    return success();
  }

  /// A view addresses the window of the copy of its source in use now; the source does not move while the view
  /// lives (the view is nested in the source's block), so this snapshot stays right.
  LogicalResult view(tile::ViewOp o) {
    auto it = buffers_.find(o.getSource());
    if (it == buffers_.end()) return o.emitOpError("views a tile that has no address yet");
    Buffer v = it->second;
    const int64_t first = value(o.getOffset()), size = o.getType().getDimSize(1);
    if (first < 0 || first + size > v.freeSize)
      return o.emitOpError() << "window of " << size << " elements at offset " << first << " leaves its source ("
                             << v.freeSize << " elements)";
    v.offset = v.address() + first * static_cast<int64_t>(isa::byteSize(v.dtype));
    v.freeSize = size;
    v.bufs = 1;
    v.instance = 0;
    v.copyBytes = tileCopyBytes(o.getType(), target_);
    v.zeroPending = v.zeroFilled = false; // sbuf only: zero tracking is for PSUM accumulation groups
    buffers_[o.getResult()] = v;
    return success();
  }

  /// The buffer of `v` about to be read: a pending zero fill must happen first.
  Buffer &read(Value v) {
    Buffer &b = buffers_.find(v)->second;
    flushZero(b);
    return b;
  }
  /// The buffer of `v` about to be overwritten: a pending zero fill is dead.
  Buffer &written(Value v, Operation *) {
    Buffer &b = buffers_.find(v)->second;
    b.zeroPending = false;
    b.zeroFilled = false;
    return b;
  }

  void flushZero(Buffer &b) {
    if (!b.zeroPending) return;
    if (manual()) {
      // The fill would be an instruction the kernel's semaphores know nothing of, racing with this one.
      error_ = true;
      current_->emitOpError() << "reads a zero-filled PSUM tile (created at " << *b.memsetLoc
                              << ") whose fill the compiler has not emitted yet; in a manual_sync scope, fill it "
                                 "with tsr::isa::memset and order the two with a semaphore";
      return;
    }
    b.zeroPending = false;
    b.zeroFilled = true;
    isa::Instruction i;
    i.op = isa::Opcode::Memset;
    i.imm = 0.0f;
    i.dst = b.pattern();
    (void)emit(*b.memsetLoc, i, memsetEngine(b, i));
  }

  isa::Engine memsetEngine(const Buffer &b, const isa::Instruction &i) {
    // GpSimd has no PSUM port on NeuronCore (NKI architecture guide), so PSUM is filled by the vector engine.
    if (b.space == isa::MemSpace::Psum) return isa::Engine::Vector;
    return leastBusy({isa::Engine::Vector, isa::Engine::GpSimd}, i);
  }

  LogicalResult memset(tile::MemsetOp o) {
    Buffer &b = written(o.getDst(), o);
    float value = o.getValue().convertToFloat();
    if (b.space == isa::MemSpace::Psum && value == 0.0f && !verbatim()) {
      b.zeroPending = true; // the first accumulating matmul will start the group instead
      b.memsetLoc = o.getLoc();
      return success();
    }
    isa::Instruction i;
    i.op = isa::Opcode::Memset;
    i.imm = value;
    i.dst = b.pattern();
    LogicalResult emitted = emit(o.getLoc(), i, memsetEngine(b, i));
    b.zeroFilled = value == 0.0f;
    return emitted;
  }

  /// A tsr::isa instruction: exactly one, on the engine the kernel chose or the definition's preferred one. Its
  /// sources are read (a pending zero fill happens first) before its destinations are written.
  LogicalResult instruction(tile::InstOp o) {
    isa::Instruction i = tile::instructionOf(o, [&](Value tile) { return buffers_.find(tile)->second.pattern(); });
    for (Value source : {o.getSrc0(), o.getSrc1(), o.getSrc2()})
      if (source) (void)read(source);
    if (o.getDst()) {
      if (isa::operandUse(i).readsDst) (void)read(o.getDst());
      (void)written(o.getDst(), o);
    }
    if (o.getDst2()) (void)written(o.getDst2(), o);
    isa::Engine engine = isa::definition(i.op).preferredEngine;
    if (auto chosen = o.getEngine())
      for (isa::Engine e : {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd})
        if (*chosen == llvm::StringRef(isa::name(e))) engine = e;
    if (std::string problem = isa::verifyInstruction(i, engine, &target_); !problem.empty())
      return o.emitOpError() << problem;
    return emit(o.getLoc(), i, engine);
  }

  LogicalResult matmul(tile::MatmulOp o) {
    isa::Instruction i;
    i.op = isa::Opcode::Matmul;
    i.src0 = read(o.getStationary()).pattern();
    i.src1 = read(o.getMoving()).pattern();
    Buffer &acc = buffers_.find(o.getAcc())->second;
    if (verbatim()) {
      if (o.getAccumulate()) flushZero(acc); // accumulate exactly onto what the tile holds
      i.accumulate = o.getAccumulate();
    } else {
      // Accumulating onto zeros is the same as starting the group, which is defined on every target.
      i.accumulate = o.getAccumulate() && !acc.zeroPending && !acc.zeroFilled;
    }
    acc.zeroPending = false;
    acc.zeroFilled = false;
    i.dst = acc.pattern();
    return emit(o.getLoc(), i, isa::Engine::Tensor);
  }

  LogicalResult dma(Operation *op, Value hbm, ValueRange indices, Value tile, bool load) {
    auto hbmType = llvm::cast<MemRefType>(hbm.getType());
    Buffer &b = load ? written(tile, op) : read(tile);
    isa::AccessPattern h;
    h.space = isa::MemSpace::Hbm;
    h.dtype = b.dtype;
    h.tensor = static_cast<int32_t>(llvm::cast<BlockArgument>(hbm).getArgNumber());
    h.partitions = static_cast<uint32_t>(b.partitions);
    h.partitionStride = hbmType.getDimSize(1);
    h.offset = value(indices[0]) * hbmType.getDimSize(1) + value(indices[1]);
    h.freeRank = 1;
    h.sizes[0] = b.freeSize;
    h.strides[0] = 1;
    isa::Instruction i;
    i.op = isa::Opcode::DmaCopy;
    i.dst = load ? b.pattern() : h;
    i.src0 = load ? h : b.pattern();
    return emit(op->getLoc(), i, isa::Engine::Dma);
  }

  /// Of `engines`, the one with the least estimated work so far; GpSimd only when `i` does not touch PSUM.
  isa::Engine leastBusy(std::initializer_list<isa::Engine> engines, const isa::Instruction &i) {
    isa::Engine best = *engines.begin();
    double bestFinish = std::numeric_limits<double>::infinity();
    bool psum = i.dst.space == isa::MemSpace::Psum || i.src0.space == isa::MemSpace::Psum ||
                i.src1.space == isa::MemSpace::Psum;
    for (isa::Engine e : engines) {
      if (psum && e == isa::Engine::GpSimd) continue; // no PSUM port (see memsetEngine)
      double finish = busyNs_[static_cast<int>(e)] + isa::engineCycles(i, e, target_) / isa::clockGhz(e, target_);
      if (finish < bestFinish) {
        best = e;
        bestFinish = finish;
      }
    }
    return best;
  }

  LogicalResult emit(Location loc, const isa::Instruction &i, isa::Engine engine, StringRef text = {}) {
    if (maxInstructions_ != 0 && ++emitted_ > maxInstructions_)
      return emitError(loc) << kInstructionLimitMessage << ": the kernel unrolls to more than " << maxInstructions_
                            << " instructions";
    unsigned queue = 0;
    if (engine == isa::Engine::Dma) queue = nextDmaQueue(i);
    else busyNs_[static_cast<int>(engine)] += isa::engineCycles(i, engine, target_) / isa::clockGhz(engine, target_);
    isa::Instruction fitted = i;
    if (engine != isa::Engine::Dma) // a row of 64K elements is walked as two dimensions: sizes are uint16
      for (isa::AccessPattern *ap : {&fitted.dst, &fitted.dst2, &fitted.src0, &fitted.src1, &fitted.src2})
        if (ap->partitions != 0 && ap->space != isa::MemSpace::Hbm) isa::splitLongFreeDimension(*ap, target_);
    Operation *created = nc::build(b_, loc, fitted, engine, queue, text);
    lastEmitted_ = created;
    if (!manual()) {
      if (pendingWaits_.empty()) return success();
      return emitError(pendingWaits_.front().loc)
             << "tile.wait: the next instruction is not in its manual_sync scope";
    }
    created->setAttr(nc::kManualAttr, b_.getUnitAttr());
    llvm::SmallVector<int64_t> waits;
    for (const PendingWait &w : pendingWaits_) waits.append({w.semaphore, w.count});
    pendingWaits_.clear();
    if (!waits.empty()) append(created, "waits", waits);
    return success();
  }

  /// The DMA queue of the next transfer, round robin: loads over the first half of the target's queues, stores (to
  /// HBM) over the second half, so that a store waiting for its data never holds up the loads queued behind it.
  unsigned nextDmaQueue(const isa::Instruction &i) {
    const unsigned queues = target_.dma.queues, loadQueues = std::max(1u, queues / 2);
    if (queues < 2) return 0;
    if (i.dst.space == isa::MemSpace::Hbm) return loadQueues + nextStoreQueue_++ % (queues - loadQueues);
    return nextLoadQueue_++ % loadQueues;
  }

  /// Appends `values` to the i64 array attribute `name` of `op`.
  void append(Operation *op, StringRef name, ArrayRef<int64_t> values) {
    llvm::SmallVector<int64_t> all;
    if (auto existing = op->getAttrOfType<DenseI64ArrayAttr>(name)) all.assign(existing.asArrayRef().begin(), existing.asArrayRef().end());
    all.append(values.begin(), values.end());
    op->setAttr(name, b_.getDenseI64ArrayAttr(all));
  }

  struct PendingWait {
    int64_t semaphore, count;
    Location loc;
  };

  const isa::Target &target_;
  OpBuilder &b_;
  DenseMap<Value, int64_t> ints_;
  DenseMap<Value, Buffer> buffers_;
  std::array<double, 5> busyNs_{};
  unsigned nextLoadQueue_ = 0, nextStoreQueue_ = 0;
  Operation *current_ = nullptr;     ///< the tile op being lowered
  Operation *lastEmitted_ = nullptr; ///< the last nc op built
  llvm::SmallVector<PendingWait> pendingWaits_; ///< tile.waits for the next instruction
  bool error_ = false;               ///< an error was emitted where no LogicalResult could carry it
  uint64_t maxInstructions_ = 0;     ///< 0: no limit
  uint64_t emitted_ = 0;
};

struct LowerTileToNcPass : PassWrapper<LowerTileToNcPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerTileToNcPass)
  explicit LowerTileToNcPass(uint64_t maxInstructions = 0) : maxInstructions(maxInstructions) {}
  uint64_t maxInstructions = 0;
  StringRef getName() const override { return "LowerTileToNc"; }
  StringRef getArgument() const override { return "lower-tile-to-nc"; }
  StringRef getDescription() const override { return "Unroll, resolve addresses and assign engines: tile -> nc"; }
  void getDependentDialects(DialectRegistry &registry) const override { registry.insert<nc::NcDialect>(); }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    for (auto fn : llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (failed(lower(fn, *target))) return signalPassFailure();
  }

  /// Replaces the body of `fn` with its nc instructions.
  LogicalResult lower(func::FuncOp fn, const isa::Target &target) {
    Block &body = fn.getBody().front();
    auto newBody = std::make_unique<Block>();
    for (BlockArgument a : body.getArguments()) newBody->addArgument(a.getType(), a.getLoc());
    OpBuilder b(fn.getContext());
    b.setInsertionPointToEnd(newBody.get());
    Lowering lowering(target, b, maxInstructions);
    if (failed(lowering.block(body)) || failed(lowering.finish())) return failure();
    b.create<func::ReturnOp>(fn.getLoc());
    for (auto [from, to] : llvm::zip(body.getArguments(), newBody->getArguments())) from.replaceAllUsesWith(to);
    fn.getBody().push_back(newBody.release());
    body.dropAllReferences();
    body.erase();
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> createLowerTileToNcPass(uint64_t maxInstructions) {
  return std::make_unique<LowerTileToNcPass>(maxInstructions);
}

} // namespace tessera::compiler
