//===- LowerTileToTpu.cpp - tile -> TPU TensorCore instructions -----------------------------------------===//
//
// Walks the kernel as it would run, unrolling every loop (TileUnroller.h), and emits one tpu op per TensorCore
// instruction, every tile in VMEM at the address allocate-memory gave it (tile i of a loop uses copy i mod bufs):
//  - tile.load/store become DMAs between HBM and VMEM, on queues taken round robin (loads on the first half of
//    the target's queues, stores on the second);
//  - tile.matmul runs on the MXU; elementwise ops, activations, reductions, copies, fills and prints on the VPU;
//    a broadcast is a VPU copy whose source repeats its row (a row stride of 0) or column (a free stride of 0);
//  - a zero-filled accumulator (tile.memset 0 of a PSUM tile) gets a real VPU fill only when something reads it
//    first: a matmul accumulating onto it overwrites it instead (its `accumulate` is dropped);
//  - grid steps: the scalar core's bookkeeping (tpu.grid_step) runs once at the kernel's entry and at the start
//    of every iteration of a loop whose body itself (not a nested loop) loads or stores a tile, as Pallas' grid
//    loop does once per step;
//  - tile.view emits nothing: its uses address the window of its source's current copy.
// Ops written at the tsr::isa level (tile.inst, tile.wait/signal, ops marked tile.isa or tile.manual, tiles
// placed with sbuf_tile_at) are NeuronCore instructions: on a TPU they are an error at the kernel's line. So is a
// statement whose relayouts (access patterns, grouped reductions: isa/RowRelayout.h) and the tiles it touches pass
// what libtpu gives one kernel: Mosaic keeps those arrays in VMEM, and the Pallas emitter refuses it.
// Test: compiler/test/Transforms/lower-tile-to-tpu.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "Transforms/TileUnroller.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "Tpu/TpuDialect.h"
#include "tessera/compiler/Passes.h"
#include "Targets/TargetFamily.h"
#include "Tpu/Passes.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/RowRelayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <optional>
#include <string>

using namespace mlir;

namespace tessera::compiler {
namespace {

/// The tsr::isa call (without the namespace) an op was written with, when it has one: those are NeuronCore
/// instructions. nullopt for a tsr:: language op.
std::optional<std::string> neuronCoreCall(Operation *op) {
  if (auto inst = llvm::dyn_cast<tile::InstOp>(op)) {
    // The call the kernel wrote is NKI's name (tsr::isa::nc_stream_shuffle for the instruction stream_shuffle).
    const std::optional<isa::Opcode> code = isa::parseOpcode(inst.getOpcode().str());
    constexpr std::string_view kModule = "nki.isa.";
    const std::string_view nki = code ? isa::definition(*code).nki : std::string_view();
    return nki.starts_with(kModule) ? std::string(nki.substr(kModule.size())) : inst.getOpcode().str();
  }
  if (llvm::isa<tile::WaitOp>(op)) return "wait";
  if (llvm::isa<tile::SignalOp>(op)) return "signal";
  if (auto alloc = llvm::dyn_cast<tile::AllocOp>(op); alloc && alloc.getFixed()) return "sbuf_tile_at";
  if (op->hasAttr(tile::kIsaAttr))
    return llvm::TypeSwitch<Operation *, std::string>(op)
        .Case([](tile::MatmulOp) { return "nc_matmul"; })
        .Case([](tile::BinaryOp) { return "tensor_tensor"; })
        .Case([](tile::ActivationOp) { return "activation"; })
        .Case([](tile::ReduceOp) { return "tensor_reduce"; })
        .Case([](tile::CopyOp) { return "tensor_copy"; })
        .Case([](tile::MemsetOp) { return "memset"; })
        .Default([](Operation *o) { return o->getName().stripDialect().str(); });
  if (op->hasAttr(tile::kManualAttr)) return "manual_sync";
  return std::nullopt;
}

/// Whether one iteration of `loop` is a grid step: it is an axis of the launch grid, or its body itself moves a tile
/// between HBM and VMEM.
bool isGridLoop(scf::ForOp loop) {
  if (loop->hasAttr(tile::kSpmdAxisAttr)) return true; // a launch-grid axis: each program is a step
  return llvm::any_of(loop.getBody()->getOperations(),
                      [](Operation &op) { return llvm::isa<tile::LoadOp, tile::StoreOp>(op); });
}

class Lowering : public TileUnroller {
public:
  using TileUnroller::TileUnroller;

  /// The grid step before the first: the kernel's entry.
  LogicalResult prologue(Location loc) { return gridStep(loc); }

private:
  LogicalResult lower(Operation *op) override {
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case<tile::LoadOp, tile::StoreOp>([&](Operation *o) {
          return emit(o->getLoc(), transferInstruction(o, isa::Opcode::TpuDma), isa::Engine::Dma);
        })
        .Case([&](tile::MatmulOp o) {
          isa::Instruction i = matmulInstruction(o, isa::Opcode::MxuMatmul, /*verbatim=*/false);
          return emit(o.getLoc(), i, isa::Engine::Mxu);
        })
        .Case([&](tile::BinaryOp o) { return vpu(o, isa::Opcode::VpuBinary); })
        .Case([&](tile::BinaryScalarOp o) { return vpu(o, isa::Opcode::VpuBinary); })
        .Case([&](tile::ActivationOp o) -> LogicalResult {
          if (o.getBias() || o.getSum())
            return o.emitOpError("with a bias or row sums has no one VPU instruction: run tile-legalize-for-tpu first");
          return vpu(o, isa::Opcode::VpuUnary);
        })
        .Case([&](tile::TransposeOp o) {
          return o.emitOpError("has no VPU instruction: run tile-legalize-for-tpu first (an MXU matmul)");
        })
        .Case([&](tile::ScanOp o) {
          return o.emitOpError("has no VPU instruction: run tile-legalize-for-tpu first (the doubling scan)");
        })
        .Case([&](tile::FillWhereOp o) { return fillWhere(o); })
        .Case([&](tile::ReduceOp o) { return vpu(o, isa::Opcode::VpuReduce); })
        .Case([&](tile::CopyOp o) { return vpu(o, isa::Opcode::VpuConvert); })
        .Case([&](tile::BroadcastOp o) { return vpu(o, isa::Opcode::VpuConvert); }) // src read repeatedly
        .Case([&](tile::PrintOp o) { return vpu(o, isa::Opcode::Print, o.getLabel()); })
        .Case([&](tile::MemsetOp o) -> LogicalResult {
          // A zero fill of an accumulator waits for its first reader; a matmul overwrites it instead.
          std::optional<isa::Instruction> i = fillInstruction(o, isa::Opcode::VpuFill, /*mayDefer=*/true);
          return i ? emit(o.getLoc(), *i, isa::Engine::Vpu) : success();
        })
        .Default([&](Operation *o) { return o->emitOpError("cannot be lowered to TPU instructions"); });
  }

  /// One vpu_fill per run of a row's elements that the test picks (at most two per row: the test is linear in f).
  LogicalResult fillWhere(tile::FillWhereOp o) {
    (void)read(o.getDst());
    Buffer &b = written(o.getDst());
    const int64_t bytes = isa::byteSize(b.dtype);
    const isa::AluOp cmp = toIsa(o.getCmp());
    // The coefficients as signed numbers (an I64Attr's getter gives them unsigned).
    const int64_t offset = value(o.getOffset()), partition = o.getPartition(), free = o.getFree();
    for (int64_t p = 0; p < b.partitions; ++p) {
      int64_t runStart = -1;
      for (int64_t f = 0; f <= b.freeSize; ++f) {
        const bool picked = f < b.freeSize &&
                            isa::apply(cmp, float(offset + partition * p + free * f), 0.0f) != 0;
        if (picked && runStart < 0) runStart = f;
        if (picked || runStart < 0) continue;
        isa::Instruction i;
        i.op = isa::Opcode::VpuFill;
        i.value = o.getValue().convertToFloat();
        i.dst = b.pattern();
        i.dst.partitions = 1;
        i.dst.offset += (p * b.pitch + runStart) * bytes;
        i.dst.sizes[0] = f - runStart;
        if (failed(emit(o.getLoc(), i, isa::Engine::Vpu))) return failure();
        runStart = -1;
      }
    }
    return success();
  }

  LogicalResult vpu(Operation *op, isa::Opcode opcode, StringRef text = {}) {
    return emit(op->getLoc(), computeInstruction(op, opcode), isa::Engine::Vpu, text);
  }

  LogicalResult beginIteration(scf::ForOp loop) override {
    return isGridLoop(loop) ? gridStep(loop.getLoc()) : success();
  }

  LogicalResult emitZeroFill(Buffer &b) override {
    return emit(*b.memsetLoc, zeroFill(b, isa::Opcode::VpuFill), isa::Engine::Vpu);
  }

  LogicalResult gridStep(Location loc) {
    isa::Instruction i;
    i.op = isa::Opcode::GridStep;
    return emit(loc, i, isa::Engine::ScalarUnit);
  }

  /// Checks `i` against its definition and the target, then builds its op.
  LogicalResult emit(Location loc, const isa::Instruction &i, isa::Engine engine, StringRef text = {}) {
    if (failed(countInstruction(loc))) return failure();
    if (std::string problem = isa::verifyInstruction(i, engine, &target_); !problem.empty())
      return emitError(loc) << isa::name(i.op) << " " << problem;
    const unsigned queue = engine == isa::Engine::Dma ? nextDmaQueue(i) : 0;
    stamp(tpu::build(b_, loc, i, engine, queue, text));
    return success();
  }
};

struct LowerTileToTpuPass : PassWrapper<LowerTileToTpuPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerTileToTpuPass)
  LowerTileToTpuPass(uint64_t maxInstructions = 0, bool recordOrigins = false)
      : maxInstructions(maxInstructions), recordOrigins(recordOrigins) {}
  uint64_t maxInstructions = 0;
  bool recordOrigins = false;
  StringRef getName() const override { return "LowerTileToTpu"; }
  StringRef getArgument() const override { return "lower-tile-to-tpu"; }
  StringRef getDescription() const override {
    return "Unroll, resolve VMEM addresses and assign units (MXU, VPU, scalar core, DMA): tile -> tpu";
  }
  void getDependentDialects(DialectRegistry &registry) const override { registry.insert<tpu::TpuDialect>(); }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    if (failed(requireFamily(getOperation(), *target, tpuFamily(), "lower-tile-to-tpu")))
      return signalPassFailure();
    if (failed(rejectNeuronCoreOps(*target))) return signalPassFailure();
    if (failed(rejectUnalignedSliceCopies(*target))) return signalPassFailure();
    if (failed(rejectRelayoutsPastVmem(*target))) return signalPassFailure();
    for (auto fn : llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (failed(replaceBody(fn, [&](Block &body, OpBuilder &b) {
            Lowering lowering(*target, b, maxInstructions);
            if (recordOrigins) lowering.recordOrigins(body);
            if (failed(lowering.prologue(fn.getLoc()))) return failure();
            return lowering.block(body);
          })))
        return signalPassFailure();
  }

  /// A DMA to or from a partition slice (Tile::partition_slice) whose first row is not a multiple of its dtype's
  /// sublane tile is an error at its kernel line: Mosaic copies VMEM in whole tiles of rows (libtpu 0.0.50.1:
  /// "Offsets along tiled dimensions must be aligned to tiles"). Vector operations on such a slice are fine.
  LogicalResult rejectUnalignedSliceCopies(const isa::Target &target) {
    WalkResult walked = getOperation().walk([&](Operation *op) {
      Value tile;
      if (auto load = llvm::dyn_cast<tile::LoadOp>(op)) tile = load.getDst();
      if (auto store = llvm::dyn_cast<tile::StoreOp>(op)) tile = store.getSrc();
      if (!tile) return WalkResult::advance();
      const int64_t row = tile::firstPartitionOf(tile);
      tile::AllocOp alloc = tile::rootAllocation(tile);
      if (row == 0 || !alloc) return WalkResult::advance();
      const int64_t rows = vmemLayout(alloc.getType(), target).sublaneTiling;
      if (row % rows == 0) return WalkResult::advance();
      op->emitError() << (llvm::isa<tile::LoadOp>(op) ? "a load into" : "a store from") << " partitions ["
                      << row << ", " << row + llvm::cast<MemRefType>(tile.getType()).getDimSize(0) << ") of tile"
                      << tile::quotedName(alloc) << " " << tile::shapeAndDtype(alloc.getType()) << ": " << target.name
                      << " copies VMEM in tiles of " << rows << " rows of this dtype, so a DMA's first row is a "
                      << "multiple of " << rows << "; start the slice there, or copy its rows into a tile of their "
                      << "own first (vector operations take any rows)";
      return WalkResult::interrupt();
    });
    return failure(walked.wasInterrupted());
  }

  /// The arrays an access pattern's relayout materialises (isa/RowRelayout.h), and a grouped reduction's reshape,
  /// are Mosaic's values, in VMEM while their statement runs, beside at least one copy of each tile the statement
  /// reads or writes. A statement for which those alone pass what libtpu gives one kernel is an error at its kernel
  /// line. The Pallas emitter counts the same arrays (RowRelayout::vmemBytes) on top of every block and scratch
  /// buffer, so what this refuses deploy refuses too; what fits here may still be refused there, with its message.
  LogicalResult rejectRelayoutsPastVmem(const isa::Target &target) {
    std::optional<TileBudget> budget;
    for (const isa::FamilyMemory &m : tpuFamily().family().memories(target))
      if (m.space == isa::MemSpace::Vmem) budget = tpuFamily().tileBudget(m, target);
    if (!budget) return success();
    const int64_t sublanes = target.tpu.sublanes, lanes = target.tpu.lanes;
    WalkResult walked = getOperation().walk([&](Operation *op) {
      int64_t arrayBytes = 0;
      llvm::SmallVector<std::string> arrays;
      auto count = [&](const std::vector<int64_t> &shape) {
        arrayBytes += isa::paddedVregBytes(shape, sublanes, lanes);
        arrays.push_back(fmt::format("[{}]", fmt::join(shape, ", ")));
      };
      bool patterns = false;
      for (Value operand : op->getOperands()) {
        auto view = operand.getDefiningOp<tile::ViewOp>();
        if (!view || !view.getPatternAttr()) continue;
        auto relayout = isa::rowRelayout(view.getPatternAttr().asArrayRef(), isa::MovingOffset{},
                                         std::numeric_limits<int64_t>::max() / 4);
        if (const auto *r = std::get_if<isa::RowRelayout>(&relayout))
          for (const std::vector<int64_t> &shape : r->intermediates(typeOf(view).getDimSize(0))) {
            count(shape);
            patterns = true;
          }
      }
      int64_t groupSize = 0;
      if (auto reduce = llvm::dyn_cast<tile::ReduceOp>(op)) {
        const MemRefType src = typeOf(reduce.getSrc()), dst = typeOf(reduce.getDst());
        for (const std::vector<int64_t> &array :
             isa::groupedReductionArrays(src.getDimSize(0), src.getDimSize(1), dst.getDimSize(1))) {
          groupSize = array.back();
          count(array);
        }
      }
      if (arrayBytes == 0) return WalkResult::advance();
      llvm::SmallVector<tile::AllocOp> tiles; // one copy of each tile the statement reads or writes
      int64_t tileBytes = 0;
      for (Value operand : op->getOperands())
        if (tile::AllocOp alloc = tile::rootAllocation(operand); alloc && !llvm::is_contained(tiles, alloc)) {
          tiles.push_back(alloc);
          tileBytes += tpuFamily().tileCopyBytes(alloc.getType(), target);
        }
      if (arrayBytes + tileBytes <= budget->bytes) return WalkResult::advance();
      auto mib = [](int64_t b) { return fmt::format("{:.2f} MiB", double(b) / double(1 << 20)); };
      InFlightDiagnostic error = op->emitError();
      error << "this statement's relayout materialises " << fmt::format("{}", fmt::join(arrays, " and "))
            << " in FP32, " << mib(arrayBytes) << " of VMEM in (" << sublanes << ", " << lanes << ") tiles (Mosaic's "
            << "form of " << (patterns ? "an access pattern" : "a grouped reduction") << " on " << target.name
            << "), which with the " << mib(tileBytes) << " of the tiles it reads and writes is more than the "
            << mib(budget->bytes) << " libtpu gives one kernel: the device's compiler cannot place it; ";
      if (patterns)
        error << "walk fewer rows at a time (a smaller tile), or a pattern whose innermost walked dimension is "
                 "long (a box whose last dimension is short pads each of its rows to "
              << lanes << " lanes)";
      else
        error << "its groups of " << groupSize << " elements each pad to " << lanes << " lanes: reduce fewer rows "
              << "or columns per statement, or groups of a multiple of " << lanes << " elements";
      return WalkResult::interrupt();
    });
    return failure(walked.wasInterrupted());
  }

  static MemRefType typeOf(Value v) { return llvm::cast<MemRefType>(v.getType()); }

  /// The first op written at the tsr::isa level is an error at its kernel line.
  LogicalResult rejectNeuronCoreOps(const isa::Target &target) {
    WalkResult walked = getOperation().walk([&](Operation *op) {
      std::optional<std::string> call = neuronCoreCall(op);
      if (!call) return WalkResult::advance();
      op->emitError() << "tsr::isa::" << *call << " is a NeuronCore instruction; target " << target.name
                      << " is a TPU: write this kernel with tsr:: language ops";
      return WalkResult::interrupt();
    });
    return failure(walked.wasInterrupted());
  }
};

} // namespace

std::unique_ptr<Pass> createLowerTileToTpuPass(uint64_t maxInstructions, bool recordOrigins) {
  return std::make_unique<LowerTileToTpuPass>(maxInstructions, recordOrigins);
}

} // namespace tessera::compiler
