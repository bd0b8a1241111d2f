//===- LowerTileToNc.cpp - tile -> NeuronCore engine instructions ----------------------------------------===//
//
// Walks the kernel as it would run, unrolling every loop (TileUnroller.h), and emits one nc op per engine
// instruction:
//  - addresses are resolved: tile i of a loop uses copy (i mod bufs) of its allocation;
//  - each op gets an engine: DMA on a queue (round robin; loads and stores on separate halves of the queues),
//    matmul on the tensor engine, activation on the scalar engine, and ops several engines can run go to the
//    one with the least work so far (estimated with the target's cost model);
//  - a PSUM tile that was zero-filled and is then accumulated into by matmuls needs no memset: its first
//    matmul starts the accumulation group (overwrites) instead. On NeuronCore v2/v3 accumulating onto a
//    memset-initialised bank is undefined (docs/targets.md "nc_matmul"), so this is also what makes the kernel
//    correct; when something read the zeros first (so the memset was emitted), the first matmul still starts the group;
//  - ops the kernel wrote at the tsr::isa level (tile.isa, tile.manual) become exactly one instruction each, as
//    written: no fill dropped, no accumulation rewritten. Ops of a manual_sync scope (tile.manual) give
//    instructions marked nc.manual; tile.wait makes the next of them wait for a semaphore, tile.signal makes
//    the previous one signal it;
//  - tile.broadcast onto partitions becomes one nc_stream_shuffle per quadrant of 32 partitions (after a
//    tensor_copy into the result's first partition where it converts or also repeats a column);
//  - tile.print becomes nc.print, a reader of the tile on the least busy engine that can reach it;
//  - tile.view emits nothing: its uses address the window of its source's current copy.
// Test: compiler/test/Transforms/lower-tile-to-nc.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "Transforms/TileUnroller.h"
#include "NeuronCore/NcDialect.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/compiler/Passes.h"
#include "Targets/TargetFamily.h"
#include "ErrorCollector.h"
#include "NeuronCore/Passes.h"
#include "tessera/isa/AccessRules.h"
#include "tessera/isa/Cost.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/Modes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>
#include <limits>
#include <vector>

#include <fmt/format.h>

using namespace mlir;

namespace tessera::compiler {
namespace {

class Lowering : public TileUnroller {
public:
  using TileUnroller::TileUnroller;
  /// Mark the instructions of ops that several engines can run (nc.flexible), for nc-schedule-instructions.
  void markFlexible() { markFlexible_ = true; }

  /// After the last op: a tile.wait that no instruction followed is an error.
  LogicalResult finish() {
    if (pendingWaits_.empty()) return success();
    return emitError(pendingWaits_.front().loc)
           << "tile.wait: no instruction of its manual_sync scope follows it to wait";
  }

private:
  /// Whether the op being lowered becomes exactly one instruction, as written (tsr::isa level).
  bool verbatim() const { return current()->hasAttr(tile::kIsaAttr) || manual(); }
  /// Whether the op being lowered comes from a manual_sync scope.
  bool manual() const { return current()->hasAttr(tile::kManualAttr); }

  LogicalResult lower(Operation *op) override {
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case<tile::LoadOp, tile::StoreOp>([&](Operation *o) { return transfer(o); })
        .Case([&](tile::MatmulOp o) {
          return emit(o.getLoc(), matmulInstruction(o, isa::Opcode::Matmul, verbatim()), isa::Engine::Tensor);
        })
        .Case([&](tile::BinaryOp o) { return binary(o); })
        .Case([&](tile::BinaryScalarOp o) { return elementwise(o, isa::Opcode::TensorScalar); })
        .Case([&](tile::ActivationOp o) {
          return elementwise(o, o.getSum() ? isa::Opcode::ActivationReduce : isa::Opcode::Activation);
        })
        .Case([&](tile::TransposeOp o) { return transpose(o); })
        .Case([&](tile::FillWhereOp o) { return fillWhere(o); })
        .Case([&](tile::ScanOp o) {
          // dst[i] = (a[i] * dst[i-1]) + b[i]: tensor_tensor_scan with op0 multiply, op1 add, from the initial
          // tile or imm1 = 0.
          return emit(o.getLoc(), computeInstruction(o, isa::Opcode::TensorTensorScan), isa::Engine::Vector);
        })
        .Case([&](tile::ReduceOp o) { return compute(o, isa::Opcode::TensorReduce); })
        .Case([&](tile::CopyOp o) { return copy(o); })
        .Case([&](tile::BroadcastOp o) { return broadcast(o); })
        .Case([&](tile::MemsetOp o) { return memset(o); })
        .Case([&](tile::InstOp o) { return instruction(o); })
        .Case([&](tile::PrintOp o) { return compute(o, isa::Opcode::Print, o.getLabel()); })
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

  /// The fill of a zero-filled PSUM tile about to be read.
  LogicalResult emitZeroFill(Buffer &b) override {
    if (manual()) // the fill would be an instruction the kernel's semaphores know nothing of, racing with this one
      return current()->emitOpError() << "reads a zero-filled PSUM tile (created at " << *b.memsetLoc
                                      << ") whose fill the compiler has not emitted yet; in a manual_sync scope, fill "
                                         "it with tsr::isa::memset and order the two with a semaphore";
    isa::Instruction i = zeroFill(b, isa::Opcode::Memset);
    return emit(*b.memsetLoc, i, memsetEngine(b, i));
  }

  isa::Engine memsetEngine(const Buffer &b, const isa::Instruction &i) {
    // GpSimd has no PSUM port on NeuronCore (NKI architecture guide), so PSUM is filled by the vector engine.
    if (b.space == isa::MemSpace::Psum) return isa::Engine::Vector;
    return leastBusy({isa::Engine::Vector, isa::Engine::GpSimd}, i);
  }

  /// A compute op as `opcode`, on the least busy of the engines that may run it (marked nc.flexible for the
  /// scheduler when there are several and the kernel is list-scheduled).
  LogicalResult compute(Operation *op, isa::Opcode opcode, StringRef text = {}) {
    return place(op, {computeInstruction(op, opcode)}, text);
  }

  /// An op that `forms` implement alike (an instruction, or another that computes the same), on the least busy
  /// engine that one of them may run on: the first form an engine may run is what it runs. The engines and rules
  /// come from each form's definition (isa::verifyInstruction), so a kernel never gets an instruction its target
  /// rejects; when no engine may run any form, the error says why each could not.
  LogicalResult place(Operation *op, llvm::ArrayRef<isa::Instruction> forms, StringRef text = {}) {
    llvm::SmallVector<std::pair<isa::Engine, const isa::Instruction *>, 4> candidates;
    std::string refusals;
    for (isa::Engine e : {isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd, isa::Engine::Tensor}) {
      if (llvm::any_of(candidates, [&](const auto &c) { return c.first == e; })) continue;
      for (const isa::Instruction &form : forms) {
        if (!isa::definition(form.op).engines.contains(e)) continue;
        std::string problem = isa::verifyInstruction(form, e, &target_);
        if (problem.empty()) {
          candidates.push_back({e, &form});
          break;
        }
        refusals += fmt::format("{}{} on the {} engine: {}", refusals.empty() ? "" : "; ",
                                isa::name(form.op), isa::name(e), problem);
      }
    }
    if (candidates.empty())
      return op->emitOpError() << "no engine of " << target_.name << " can run it: " << refusals;
    auto [engine, form] = leastBusy(candidates);
    if (failed(emit(op->getLoc(), *form, engine, text))) return failure();
    if (markFlexible_ && candidates.size() > 1 && !verbatim())
      lastEmitted_->setAttr(nc::kFlexibleAttr, b_.getUnitAttr());
    return success();
  }

  /// An elementwise op as `opcode` (compute), unless it reads an access pattern after writing some of its elements
  /// (refuseReadingOwnWrites).
  LogicalResult elementwise(Operation *op, isa::Opcode opcode) {
    const isa::Instruction i = computeInstruction(op, opcode);
    if (failed(refuseReadingOwnWrites(op, i))) return failure();
    return place(op, {i});
  }

  /// An elementwise op that reads an access pattern (Tile::ap) whose elements it writes before reading them:
  /// refused, as such copies are (copy).
  LogicalResult refuseReadingOwnWrites(Operation *op, const isa::Instruction &i) {
    for (Value v : op->getOperands()) {
      if (!tile::patternView(v) || !readsAfterWriting(bufferOf(v).pattern(), i.dst)) continue;
      InFlightDiagnostic error = op->emitOpError()
                                 << "an elementwise op reads an access pattern (Tile::ap) whose elements it writes "
                                    "first: an engine streams the elements, so it would read some it has already "
                                    "written";
      error.attachNote() << compiler::kHintNote << "write the result into a tile of its own";
      return error;
    }
    return success();
  }

  /// An elementwise binary op: tensor_tensor, or tensor_scalar when one operand is a [P, 1] tile read across the
  /// row (NKI's tensor_tensor does not broadcast; its tensor_scalar takes a [P, 1] operand): that tile becomes
  /// operand0, reversed when it is the left operand.
  LogicalResult binary(tile::BinaryOp o) {
    isa::Instruction i = computeInstruction(o, isa::Opcode::TensorTensor);
    if (failed(refuseReadingOwnWrites(o, i))) return failure();
    const bool lhsColumn = isBroadcast(i.src0), rhsColumn = isBroadcast(i.src1);
    if (lhsColumn == rhsColumn) return place(o, {i});
    isa::Instruction scalar;
    scalar.op = isa::Opcode::TensorScalar;
    scalar.alu = i.alu;
    scalar.alu1 = isa::AluOp::Bypass;
    scalar.reverse0 = lhsColumn;
    scalar.dst = i.dst;
    scalar.src0 = lhsColumn ? i.src1 : i.src0;
    scalar.src1 = unbroadcast(lhsColumn ? i.src0 : i.src1);
    return place(o, {scalar});
  }

  /// tensor_copy; on a NeuronCore-v2 scalar engine, where tensor_copy does not run, activation(copy) (NKI's
  /// advice, nki.isa.tensor_copy): the same FP32 round trip.
  LogicalResult copy(tile::CopyOp o) {
    const isa::Instruction copy = computeInstruction(o, isa::Opcode::TensorCopy);
    if ((tile::patternView(o.getSrc()) || tile::patternView(o.getDst())) && readsAfterWriting(copy.src0, copy.dst))
      return o.emitOpError() << "an access-pattern copy reads elements of its destination after writing them: an "
                                "engine streams the elements, so it would read what it wrote, which the "
                                "simulator's copy does not; copy through a tile of its own";
    return copyForms(o, copy);
  }

  /// Whether an instruction streaming `src` into `dst`, element k of each at step k, reads some byte at a later
  /// step than it writes it (the same step is a read before the write). Different first partitions that share a
  /// partition count as such whenever they share a byte (the partitions' lanes are not in step).
  static bool readsAfterWriting(const isa::AccessPattern &src, const isa::AccessPattern &dst) {
    if (src.space != dst.space || src.partitionStart >= dst.partitionStart + dst.partitions ||
        dst.partitionStart >= src.partitionStart + src.partitions)
      return false;
    const auto [dFirst, dLast] = dst.byteExtent();
    const auto [sFirst, sLast] = src.byteExtent();
    if (dLast <= sFirst || sLast <= dFirst) return false;
    const bool sameLanes = src.partitionStart == dst.partitionStart;
    constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> writtenAt(static_cast<size_t>(dLast - dFirst), kNever); // each byte's first write step
    auto walk = [](const isa::AccessPattern &ap, auto &&visit) {
      std::array<int64_t, isa::AccessPattern::kMaxFreeDims> index{};
      const int64_t bytes = isa::byteSize(ap.dtype);
      for (int64_t step = 0; step < ap.freeElements(); ++step) {
        int64_t element = 0;
        for (unsigned d = 0; d < ap.freeRank; ++d) element += index[d] * ap.strides[d];
        for (int64_t byte = 0; byte < bytes; ++byte)
          if (visit(ap.offset + element * bytes + byte, step)) return true;
        for (int d = ap.freeRank - 1; d >= 0 && ++index[d] == ap.sizes[d]; --d) index[d] = 0;
      }
      return false;
    };
    walk(dst, [&](int64_t byte, int64_t step) {
      writtenAt[byte - dFirst] = std::min(writtenAt[byte - dFirst], step);
      return false;
    });
    return walk(src, [&](int64_t byte, int64_t step) {
      if (byte < dFirst || byte >= dLast) return false;
      const int64_t written = writtenAt[byte - dFirst];
      return written != kNever && (!sameLanes || written < step);
    });
  }

  /// `copy` (a tensor_copy) placed as tensor_copy or activation(copy).
  LogicalResult copyForms(Operation *op, const isa::Instruction &copy) {
    isa::Instruction activation;
    activation.op = isa::Opcode::Activation;
    activation.func = isa::ActFunc::Identity;
    activation.dst = copy.dst;
    activation.src0 = copy.src0;
    return place(op, {copy, activation});
  }

  /// Along the free dimension ([P, 1] -> [P, F]): a tensor_copy reading the column repeatedly. Onto partitions
  /// ([1, F] -> [P, F]): one nc_stream_shuffle per quadrant of dst with a mask of zeros, each copying the row onto
  /// the quadrant's partitions (NKI ISA reference, nki.isa.nc_stream_shuffle; the NKI library's
  /// stream_shuffle_broadcast). A shuffle neither converts nor repeats along the free dimension, so where the dtype
  /// changes or src is [1, 1], a tensor_copy first makes the row in dst's first partition, and the shuffles copy
  /// it from there (the first quadrant's in place: that partition copies itself, so no partition of dst is read
  /// before it is written). In a manual_sync scope, where an op is one instruction, only a broadcast that is one.
  LogicalResult broadcast(tile::BroadcastOp o) {
    const isa::Instruction copy = computeInstruction(o, isa::Opcode::TensorCopy);
    if (copy.src0.partitions == copy.dst.partitions) return copyForms(o, copy);
    isa::AccessPattern row = copy.src0;
    const bool ownRow = row.dtype != copy.dst.dtype || isBroadcast(row);
    const uint32_t shuffles = (copy.dst.partitions + isa::kShuffleMaskSize - 1) / isa::kShuffleMaskSize;
    const uint32_t instructions = shuffles + (ownRow ? 1 : 0);
    if (manual() && instructions > 1)
      return o.emitOpError() << "onto " << copy.dst.partitions << " partitions takes " << instructions
                             << " instructions, and in a manual_sync scope each op is one instruction the kernel "
                                "orders itself: call tsr::isa::nc_stream_shuffle once per quadrant of 32 partitions "
                                "(from a row of the destination's dtype) and order the calls with semaphores";
    if (ownRow) {
      isa::Instruction first = copy;
      first.dst.partitions = 1;
      if (failed(copyForms(o, first))) return failure();
      row = first.dst;
    }
    for (uint32_t start = 0; start < copy.dst.partitions; start += isa::kShuffleMaskSize) {
      isa::Instruction shuffle;
      shuffle.op = isa::Opcode::StreamShuffle;
      shuffle.dst = copy.dst;
      shuffle.dst.partitionStart += start;
      shuffle.dst.partitions = std::min<uint32_t>(isa::kShuffleMaskSize, copy.dst.partitions - start);
      shuffle.src0 = row;
      if (failed(place(o, {shuffle}))) return failure();
    }
    return success();
  }

  /// Whether `ap` reads one element per partition across a wider row (Buffer::pattern's [P, 1] broadcast).
  static bool isBroadcast(const isa::AccessPattern &ap) {
    return ap.partitions != 0 && ap.freeRank == 1 && ap.strides[0] == 0 && ap.sizes[0] > 1;
  }
  static isa::AccessPattern unbroadcast(isa::AccessPattern ap) {
    ap.sizes[0] = 1;
    ap.strides[0] = 1;
    return ap;
  }

  /// A DMA. A transposed load is a DMA transpose where the core has one and the dtype is 2 bytes (it reads the
  /// window as it lies in HBM, [F, P] for a [P, F] tile); any other transposed window is an element-strided copy.
  LogicalResult transfer(Operation *o) {
    isa::Instruction i = transferInstruction(o, isa::Opcode::DmaCopy);
    auto load = llvm::dyn_cast<tile::LoadOp>(o);
    const bool transposed = load ? load.getTranspose() : llvm::cast<tile::StoreOp>(o).getTranspose();
    if (load && transposed && dmaTransposes(i.dst.dtype)) {
      i.op = isa::Opcode::DmaTranspose;
      i.mode = static_cast<uint8_t>(isa::TransposeForm::Tensor);
      // The window as it lies: [F, P], a tensor row apart (TileUnroller::hbmPattern gave the tile's walk of it).
      const int64_t rows = i.src0.sizes[0];
      i.src0.sizes[0] = i.src0.partitions;
      i.src0.partitions = static_cast<uint32_t>(rows);
      std::swap(i.src0.partitionStride, i.src0.strides[0]);
    } else if (transposed && elementStrided_.insert(o).second && i.dst.partitions * i.dst.freeElements() > 1) {
      o->emitRemark() << (load ? "load" : "store")
                      << ": this transposed window moves as an element-strided DMA (one element per step, a tensor "
                         "row apart), simulated at NKI's strided-access rate only; on hardware it is likely slower "
                         "(docs/dsl.md, \"Transposed windows\")"
                      << (load ? "; a 2-byte dtype on NeuronCore-v3 or later loads it with a DMA transpose" : "");
    }
    return emit(o->getLoc(), i, isa::Engine::Dma);
  }
  /// The transposed windows told to be element-strided DMAs, once each (a loop's unrolled copies are one op).
  llvm::DenseSet<Operation *> elementStrided_;
  bool dmaTransposes(isa::DType dtype) const {
    return isa::generationAtLeast(target_, isa::definition(isa::Opcode::DmaTranspose).since) &&
           isa::byteSize(dtype) == 2;
  }

  /// Into PSUM on the tensor engine; into SBUF as a DMA transpose on a load queue.
  LogicalResult transpose(tile::TransposeOp o) {
    const bool dma = tile::memorySpaceOf(llvm::cast<MemRefType>(o.getDst().getType())) == tile::MemorySpace::sbuf;
    isa::Instruction i = computeInstruction(o, dma ? isa::Opcode::DmaTranspose : isa::Opcode::Transpose);
    i.mode = static_cast<uint8_t>(isa::TransposeForm::Tensor);
    const isa::Engine engine = dma ? isa::Engine::Dma : isa::Engine::Tensor;
    if (std::string problem = isa::verifyInstruction(i, engine, &target_); !problem.empty())
      return o.emitOpError() << isa::name(i.op) << " " << problem;
    return emit(o.getLoc(), i, engine);
  }

  /// GpSimd's affine_select in place: keep the elements where the test fails, the value where it holds.
  LogicalResult fillWhere(tile::FillWhereOp o) {
    isa::Instruction i = computeInstruction(o, isa::Opcode::AffineSelect);
    i.onFalse = o.getValue().convertToFloat();
    i.pattern.base = value(o.getOffset());
    i.pattern.partitionStep = o.getPartition();
    i.pattern.steps[0] = o.getFree();
    i.alu = negation(toIsa(o.getCmp()));
    return emit(o.getLoc(), i, isa::Engine::GpSimd);
  }

  /// The comparison that holds exactly where `cmp` does not.
  static isa::AluOp negation(isa::AluOp cmp) {
    switch (cmp) {
    case isa::AluOp::IsGt: return isa::AluOp::IsLe;
    case isa::AluOp::IsGe: return isa::AluOp::IsLt;
    case isa::AluOp::IsLt: return isa::AluOp::IsGe;
    case isa::AluOp::IsLe: return isa::AluOp::IsGt;
    case isa::AluOp::IsEqual: return isa::AluOp::NotEqual;
    default: return isa::AluOp::IsEqual; // NotEqual (the verifier admits comparisons only)
    }
  }

  LogicalResult memset(tile::MemsetOp o) {
    std::optional<isa::Instruction> i = fillInstruction(o, isa::Opcode::Memset, !verbatim());
    if (!i) return success(); // a zero fill: the first matmul will start the group instead
    return emit(o.getLoc(), *i, memsetEngine(bufferOf(o.getDst()), *i));
  }

  /// A tsr::isa instruction: exactly one, on the engine the kernel chose or the definition's preferred one. Its
  /// sources are read (a pending zero fill happens first) before its destinations are written.
  LogicalResult instruction(tile::InstOp o) {
    isa::Instruction i = tile::instructionOf(o, [&](Value tile) { return bufferOf(tile).pattern(); });
    for (Value source : {o.getSrc0(), o.getSrc1(), o.getSrc2()})
      if (source) (void)read(source);
    if (o.getDst()) {
      if (isa::operandUse(i).readsDst) (void)read(o.getDst());
      (void)written(o.getDst());
    }
    if (o.getDst2()) (void)written(o.getDst2());
    isa::Engine engine = isa::definition(i.op).preferredEngine;
    if (auto chosen = o.getEngine())
      for (isa::Engine e : {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd})
        if (*chosen == llvm::StringRef(isa::name(e))) engine = e;
    if (std::string problem = isa::verifyInstruction(i, engine, &target_); !problem.empty())
      return o.emitOpError() << problem;
    return emit(o.getLoc(), i, engine);
  }

  /// Of `engines`, the one with the least estimated work so far; GpSimd only when `i` does not touch PSUM.
  isa::Engine leastBusy(std::initializer_list<isa::Engine> engines, const isa::Instruction &i) {
    llvm::SmallVector<std::pair<isa::Engine, const isa::Instruction *>, 4> candidates;
    const bool psum = i.dst.space == isa::MemSpace::Psum || i.src0.space == isa::MemSpace::Psum ||
                      i.src1.space == isa::MemSpace::Psum;
    for (isa::Engine e : engines)
      if (!psum || e != isa::Engine::GpSimd) candidates.push_back({e, &i}); // no PSUM port (see memsetEngine)
    return leastBusy(candidates).first;
  }

  /// Of (engine, instruction) candidates, the one that would finish first given the estimated work so far (the
  /// first of equals).
  std::pair<isa::Engine, const isa::Instruction *>
  leastBusy(llvm::ArrayRef<std::pair<isa::Engine, const isa::Instruction *>> candidates) {
    std::pair<isa::Engine, const isa::Instruction *> best = candidates.front();
    double bestFinish = std::numeric_limits<double>::infinity();
    for (const auto &[e, form] : candidates) {
      double finish = busyNs_[static_cast<int>(e)] + isa::engineCycles(*form, e, target_) / isa::clockGhz(e, target_);
      if (finish < bestFinish) {
        best = {e, form};
        bestFinish = finish;
      }
    }
    return best;
  }

  LogicalResult emit(Location loc, const isa::Instruction &i, isa::Engine engine, StringRef text = {}) {
    if (failed(countInstruction(loc))) return failure();
    unsigned queue = 0;
    if (engine == isa::Engine::Dma) queue = nextDmaQueue(i);
    else busyNs_[static_cast<int>(engine)] += isa::engineCycles(i, engine, target_) / isa::clockGhz(engine, target_);
    isa::Instruction fitted = i;
    if (engine != isa::Engine::Dma) // a row of 64K elements is walked as two dimensions: sizes are uint16
      for (isa::AccessPattern *ap : {&fitted.dst, &fitted.dst2, &fitted.src0, &fitted.src1, &fitted.src2})
        if (ap->partitions != 0 && ap->space != isa::MemSpace::Hbm) isa::splitLongFreeDimension(*ap, target_);
    Operation *created = nc::build(b_, loc, fitted, engine, queue, text);
    stamp(created);
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

  std::array<double, static_cast<size_t>(isa::Engine::Dma) + 1> busyNs_{};
  bool markFlexible_ = false;
  Operation *lastEmitted_ = nullptr; ///< the last nc op built
  llvm::SmallVector<PendingWait> pendingWaits_; ///< tile.waits for the next instruction
};

struct LowerTileToNcPass : PassWrapper<LowerTileToNcPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerTileToNcPass)
  LowerTileToNcPass(uint64_t maxInstructions = 0, bool recordOrigins = false, bool markFlexible = false)
      : maxInstructions(maxInstructions), recordOrigins(recordOrigins), markFlexible(markFlexible) {}
  uint64_t maxInstructions = 0;
  bool recordOrigins = false;
  bool markFlexible = false;
  StringRef getName() const override { return "LowerTileToNc"; }
  StringRef getArgument() const override { return "lower-tile-to-nc"; }
  StringRef getDescription() const override { return "Unroll, resolve addresses and assign engines: tile -> nc"; }
  void getDependentDialects(DialectRegistry &registry) const override { registry.insert<nc::NcDialect>(); }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    if (failed(requireFamily(getOperation(), *target, neuronCoreFamily(), "lower-tile-to-nc")))
      return signalPassFailure();
    for (auto fn : llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (failed(replaceBody(fn, [&](Block &body, OpBuilder &b) {
            Lowering lowering(*target, b, maxInstructions);
            if (recordOrigins) lowering.recordOrigins(body);
            if (markFlexible) lowering.markFlexible();
            if (failed(lowering.block(body))) return failure();
            return lowering.finish();
          })))
        return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createLowerTileToNcPass(uint64_t maxInstructions, bool recordOrigins, bool markFlexible) {
  return std::make_unique<LowerTileToNcPass>(maxInstructions, recordOrigins, markFlexible);
}

} // namespace tessera::compiler
