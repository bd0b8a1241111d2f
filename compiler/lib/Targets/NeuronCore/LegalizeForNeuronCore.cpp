//===- LegalizeForNeuronCore.cpp - tile ops a NeuronCore has no instruction for, rewritten ------------------===//
//
// NeuronCore engines have no division: NKI's ALU operator table has no divide, and its release notes say
// "Division is not available as a hardware instruction. As a workaround, multiply by the reciprocal". Before
// memory is allocated (so the tile it needs gets SBUF like any other), on a NeuronCore target only:
//  - tile.binary divide lhs, rhs -> dst becomes the vector engine's full-precision reciprocal of rhs into an f32
//    tile of rhs's shape (nki.isa.reciprocal), then tile.binary multiply lhs, that tile -> dst. A [P, 1] divisor
//    (a row sum) stays [P, 1], so the multiply becomes a tensor_scalar with it as operand0. lhs * (1 / rhs) differs
//    from lhs / rhs by one FP32 rounding at most. tile.binary_scalar divide x, c becomes a multiply by 1 / c (the
//    number's reciprocal rounded to FP32 here), and c / x a reciprocal of x times c.
//  - tile.store of a PSUM tile (or tile.load into one) goes through an SBUF tile of the same shape and dtype, with a
//    tile.copy between: NKI's DMA cannot read or write PSUM (nki.isa.dma_copy; NKI 0.3.0 release notes).
//  - tile.binary with both operands in PSUM reads its right operand from an SBUF copy: NKI's tensor_tensor takes
//    at most one input from PSUM.
//  - tile.broadcast of a row just loaded from HBM (in the same block), in its own dtype, onto partitions becomes the
//    load itself with the row repeated on every partition (a broadcast DMA) instead of one Vector-engine
//    nc_stream_shuffle per quadrant. An assumption about what NKI's compiler makes of `nl.load` then
//    `broadcast_to`, which its documents do not say; the published profile of NKI's fused Mamba tutorial says it is
//    not Vector-engine work there: each (channel tile, state) pair of v2 runs in 3.1 us at 99.6% Vector activity,
//    where two broadcasts of [1, 512] as shuffles would add 8 x 512 Vector cycles (3.7 us at 1.12 GHz) on top of
//    its five compute calls (docs/fidelity.md, "Published measurements not in the suite").
//  - tile.transpose into SBUF (a DMA transpose) on NeuronCore-v2, which has none (a Trainium2 DMA feature): a
//    tensor-engine transpose into a PSUM tile of the source's dtype, then a copy into the destination.
// Test: compiler/test/Transforms/legalize-for-neuroncore.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"
#include "Targets/TargetFamily.h"
#include "NeuronCore/Passes.h"
#include "tessera/isa/InstructionSet.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace tessera::compiler {
namespace {

/// An f32 SBUF tile of `divisor`'s shape holding 1 / divisor (the vector engine's full-precision reciprocal),
/// made before `op`.
Value reciprocalOf(OpBuilder &b, Location loc, Value divisor) {
  auto type = llvm::cast<MemRefType>(divisor.getType());
  std::string name = "reciprocal";
  if (tile::AllocOp root = tile::rootAllocation(divisor); root && root.getName())
    name = root.getName()->str() + "_reciprocal";
  Value reciprocal = b.create<tile::AllocOp>(
      loc, tile::tileType(b.getContext(), type.getShape(), b.getF32Type(), tile::MemorySpace::sbuf),
      b.getStringAttr(name), IntegerAttr(), IntegerAttr(), UnitAttr());
  b.create<tile::InstOp>(loc, b.getStringAttr(isa::name(isa::Opcode::Reciprocal)), reciprocal, Value(), divisor,
                         Value(), Value(), DictionaryAttr(), StringAttr());
  return reciprocal;
}

/// lhs / rhs as lhs * reciprocal(rhs).
void divideByReciprocal(tile::BinaryOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value reciprocal = reciprocalOf(b, loc, op.getRhs());
  b.create<tile::BinaryOp>(loc, tile::AluAttr::get(b.getContext(), tile::Alu::multiply), op.getLhs(), reciprocal,
                           op.getDst());
  op->erase();
}

/// x / c as x * (1 / c), the number's reciprocal rounded once to FP32; c / x as reciprocal(x) * c.
void divideByReciprocal(tile::BinaryScalarOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  const float c = op.getScalar().convertToFloat();
  const tile::Alu multiply = tile::Alu::multiply;
  if (op.getReverse())
    b.create<tile::BinaryScalarOp>(loc, multiply, reciprocalOf(b, loc, op.getSrc()), llvm::APFloat(c), op.getDst());
  else
    b.create<tile::BinaryScalarOp>(loc, multiply, op.getSrc(), llvm::APFloat(1.0f / c), op.getDst());
  op->erase();
}

bool inPsum(Value tile) { return tile::memorySpaceOf(llvm::cast<MemRefType>(tile.getType())) == tile::MemorySpace::psum; }

/// An SBUF tile of `like`'s shape and dtype, named after it, allocated before `op`.
Value sbufTileLike(OpBuilder &b, Location loc, Value like, StringRef suffix) {
  auto type = llvm::cast<MemRefType>(like.getType());
  std::string name = "t";
  if (tile::AllocOp root = tile::rootAllocation(like); root && root.getName()) name = root.getName()->str();
  return b.create<tile::AllocOp>(
      loc, tile::tileType(b.getContext(), type.getShape(), type.getElementType(), tile::MemorySpace::sbuf),
      b.getStringAttr(name + suffix.str()), IntegerAttr(), IntegerAttr(), UnitAttr());
}

/// A store from PSUM through an SBUF copy of the tile.
void storeThroughSbuf(tile::StoreOp op) {
  OpBuilder b(op);
  Value staged = sbufTileLike(b, op.getLoc(), op.getSrc(), "_sbuf");
  b.create<tile::CopyOp>(op.getLoc(), op.getSrc(), staged);
  op.getSrcMutable().assign(staged);
}

/// A load into PSUM through an SBUF tile, then copied.
void loadThroughSbuf(tile::LoadOp op) {
  OpBuilder b(op);
  Value psum = op.getDst();
  Value staged = sbufTileLike(b, op.getLoc(), psum, "_sbuf");
  op.getDstMutable().assign(staged);
  b.setInsertionPointAfter(op);
  b.create<tile::CopyOp>(op.getLoc(), staged, psum);
}

/// lhs <op> rhs with both in PSUM: rhs through an SBUF copy.
void rhsThroughSbuf(tile::BinaryOp op) {
  OpBuilder b(op);
  Value staged = sbufTileLike(b, op.getLoc(), op.getRhs(), "_sbuf");
  b.create<tile::CopyOp>(op.getLoc(), op.getRhs(), staged);
  op.getRhsMutable().assign(staged);
}

/// A DMA transpose as a tensor-engine transpose into PSUM and a copy. The PSUM tiles are shared by the transposes
/// of one block that have the same shape (`staging`): each is dead once copied, and a PSUM tile takes a whole bank.
void transposeThroughPsum(tile::TransposeOp op, llvm::DenseMap<std::pair<Block *, Type>, Value> &staging) {
  OpBuilder b(op);
  auto dstType = llvm::cast<MemRefType>(op.getDst().getType());
  auto srcType = llvm::cast<MemRefType>(op.getSrc().getType());
  MemRefType psumType =
      tile::tileType(b.getContext(), dstType.getShape(), srcType.getElementType(), tile::MemorySpace::psum);
  Value &psum = staging[{op->getBlock(), psumType}];
  if (!psum) {
    std::string name = "transposed";
    if (tile::AllocOp root = tile::rootAllocation(op.getDst()); root && root.getName())
      name = root.getName()->str() + "_psum";
    psum = b.create<tile::AllocOp>(op.getLoc(), psumType, b.getStringAttr(name), IntegerAttr(), IntegerAttr(),
                                   UnitAttr());
  }
  Value dst = op.getDst();
  op.getDstMutable().assign(psum);
  b.setInsertionPointAfter(op);
  b.create<tile::CopyOp>(op.getLoc(), psum, dst);
}

/// A row loaded from HBM and broadcast onto partitions as it is (tile.load of a [1, F] window into `row`, then
/// tile.broadcast row -> dst of row's dtype, in the same block): one load of that window repeated on every
/// partition of dst (steps {0, 1}, a broadcast DMA), the load into `row` dropped when nothing else uses the row.
/// Only where that is the same value (`row` has no other writer, the tensor is never stored to in the kernel) and
/// no more traffic than the kernel asked for per broadcast (a row loaded before a loop and broadcast in it stays,
/// rather than be loaded again on every iteration); never for ops the kernel wrote at the tsr::isa level or in a
/// manual_sync scope, which become exactly the instructions written.
void broadcastLoadedRow(tile::BroadcastOp op, const llvm::DenseSet<Value> &storedTensors) {
  auto rowType = llvm::cast<MemRefType>(op.getSrc().getType());
  auto dstType = llvm::cast<MemRefType>(op.getDst().getType());
  if (rowType.getDimSize(0) != 1 || rowType.getDimSize(1) != dstType.getDimSize(1) ||
      rowType.getElementType() != dstType.getElementType())
    return;
  auto row = op.getSrc().getDefiningOp<tile::AllocOp>();
  if (!row) return;
  tile::LoadOp load;
  for (Operation *user : row->getUsers()) {
    if (auto l = llvm::dyn_cast<tile::LoadOp>(user); l && l.getDst() == row.getResult() && !load) {
      load = l;
      continue;
    }
    auto reader = llvm::dyn_cast<tile::BroadcastOp>(user);
    if (!reader || reader.getDst() == row.getResult()) return; // another user, which may write the row
  }
  if (!load || load.getSteps() || load.getTranspose() || storedTensors.contains(load.getSrc())) return;
  if (load->getBlock() != op->getBlock() || !load->isBeforeInBlock(op)) return;
  for (Operation *written : {op.getOperation(), load.getOperation()})
    if (written->hasAttr(tile::kIsaAttr) || written->hasAttr(tile::kManualAttr)) return;
  OpBuilder b(op);
  const int64_t rank = static_cast<int64_t>(load.getIndices().size());
  llvm::SmallVector<int64_t> steps(rank, 1);
  steps[rank - 2] = 0; // the window's rows: one row, repeated
  b.create<tile::LoadOp>(op.getLoc(), load.getSrc(), load.getIndices(), op.getDst(), b.getDenseI64ArrayAttr(steps));
  op->erase();
  if (llvm::all_of(row->getUsers(), [&](Operation *user) { return user == load.getOperation(); })) {
    load->erase();
    row->erase();
  }
}

struct LegalizeForNeuronCorePass : PassWrapper<LegalizeForNeuronCorePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LegalizeForNeuronCorePass)
  StringRef getName() const override { return "LegalizeForNeuronCore"; }
  StringRef getArgument() const override { return "tile-legalize-for-neuroncore"; }
  StringRef getDescription() const override {
    return "Rewrite divisions, PSUM transfers, PSUM operand pairs, broadcasts of loaded rows and (on NeuronCore-v2) "
           "DMA transposes into what NeuronCore engines run";
  }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    if (&targetFamily(*target) != &neuronCoreFamily()) return; // other families divide and reach PSUM otherwise
    llvm::DenseSet<Value> storedTensors;
    getOperation().walk([&](tile::StoreOp op) { storedTensors.insert(op.getDst()); });
    llvm::SmallVector<tile::BroadcastOp> broadcasts;
    getOperation().walk([&](tile::BroadcastOp op) { broadcasts.push_back(op); });
    for (tile::BroadcastOp op : broadcasts) broadcastLoadedRow(op, storedTensors);
    llvm::SmallVector<tile::BinaryOp> divisions;
    getOperation().walk([&](tile::BinaryOp op) {
      if (op.getOp() == tile::Alu::divide) divisions.push_back(op);
    });
    for (tile::BinaryOp op : divisions) divideByReciprocal(op);
    llvm::SmallVector<tile::BinaryScalarOp> scalarDivisions;
    getOperation().walk([&](tile::BinaryScalarOp op) {
      if (op.getOp() == tile::Alu::divide) scalarDivisions.push_back(op);
    });
    for (tile::BinaryScalarOp op : scalarDivisions) divideByReciprocal(op);
    llvm::SmallVector<Operation *> transfers;
    getOperation().walk([&](Operation *op) {
      if (auto store = llvm::dyn_cast<tile::StoreOp>(op); store && inPsum(store.getSrc())) transfers.push_back(op);
      if (auto load = llvm::dyn_cast<tile::LoadOp>(op); load && inPsum(load.getDst())) transfers.push_back(op);
    });
    for (Operation *op : transfers) {
      if (auto store = llvm::dyn_cast<tile::StoreOp>(op)) storeThroughSbuf(store);
      else loadThroughSbuf(llvm::cast<tile::LoadOp>(op));
    }
    llvm::SmallVector<tile::BinaryOp> psumPairs;
    getOperation().walk([&](tile::BinaryOp op) {
      if (inPsum(op.getLhs()) && inPsum(op.getRhs())) psumPairs.push_back(op);
    });
    for (tile::BinaryOp op : psumPairs) rhsThroughSbuf(op);
    if (!isa::generationAtLeast(*target, isa::definition(isa::Opcode::DmaTranspose).since)) {
      llvm::SmallVector<tile::TransposeOp> dmaTransposes;
      getOperation().walk([&](tile::TransposeOp op) {
        if (!inPsum(op.getDst())) dmaTransposes.push_back(op);
      });
      llvm::DenseMap<std::pair<Block *, Type>, Value> staging;
      for (tile::TransposeOp op : dmaTransposes) transposeThroughPsum(op, staging);
    }
  }
};

} // namespace

std::unique_ptr<Pass> createLegalizeForNeuronCorePass() { return std::make_unique<LegalizeForNeuronCorePass>(); }

} // namespace tessera::compiler
