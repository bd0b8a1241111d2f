#include "tessera/compiler/Dialect/Tile/TensorShape.h"
#include "tessera/compiler/ImportGraph.h"
#include "tessera/compiler/FlatWindow.h"
#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/isa/MatrixShape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <map>

using namespace mlir;
namespace graph = tsr::graph;

namespace tessera::compiler {

namespace {

tile::Alu toTile(isa::AluOp op) { return *tile::symbolizeAlu(isa::name(op)); }

tile::Func toTile(isa::ActFunc f) { return *tile::symbolizeFunc(isa::name(f)); }

tile::MemorySpace toTile(isa::MemSpace s) {
  switch (s) {
  case isa::MemSpace::Hbm: return tile::MemorySpace::hbm;
  case isa::MemSpace::Sbuf: return tile::MemorySpace::sbuf;
  case isa::MemSpace::Psum: return tile::MemorySpace::psum;
  }
  return tile::MemorySpace::sbuf;
}

/// Builds the body of the kernel function statement by statement.
class Importer {
public:
  Importer(OpBuilder &b, const graph::KernelGraph &g, func::FuncOp fn) : b_(b), g_(g), fn_(fn) {}

  void block(const graph::Block &block) {
    for (const graph::Stmt &s : block.stmts) std::visit([&](auto &x) { stmt(x); }, s);
  }

private:
  Location loc(const SourceLoc &l) {
    if (!l.known()) return b_.getUnknownLoc();
    return FileLineColLoc::get(b_.getContext(), l.file, l.line, l.column);
  }

  Value constant(int64_t v) { return b_.create<arith::ConstantIndexOp>(b_.getUnknownLoc(), v); }

  /// The index value of an affine expression in the enclosing loops.
  Value affine(const std::vector<std::pair<int, int64_t>> &terms, int64_t constantPart) {
    Location l = b_.getUnknownLoc();
    Value sum;
    for (auto [loop, coeff] : terms) {
      Value term = loopVars_.at(loop);
      if (coeff != 1) term = b_.create<arith::MulIOp>(l, term, constant(coeff));
      sum = sum ? b_.create<arith::AddIOp>(l, sum, term).getResult() : term;
    }
    if (!sum) return constant(constantPart);
    if (constantPart != 0) sum = b_.create<arith::AddIOp>(l, sum, constant(constantPart));
    return sum;
  }

  /// The index value of an expression in the enclosing loops: its affine part, plus each floor division
  /// (arith.floordivsi, which the unroller evaluates and the loop export reads back as a LoopIndex floor).
  Value index(const graph::IndexExpr &e) {
    Value sum = affine(e.terms, e.constant);
    Location l = b_.getUnknownLoc();
    for (const graph::FloorTerm &f : e.floors) {
      Value term = b_.create<arith::FloorDivSIOp>(l, affine(f.terms, f.constant), constant(f.divisor));
      if (f.coefficient != 1) term = b_.create<arith::MulIOp>(l, term, constant(f.coefficient));
      sum = b_.create<arith::AddIOp>(l, sum, term);
    }
    return sum;
  }

  /// A window as the tile dialect keeps it: of the tensor's [rows, columns] matrix (FlatWindow.h).
  graph::HbmWindow flat(const graph::HbmWindow &w) { return flatWindow(w, g_.tensors.at(w.tensor).shape); }

  /// A strided window's steps, as the DMA op's `steps` attribute; none for a window of unit steps.
  DenseI64ArrayAttr steps(const graph::HbmWindow &w) {
    const graph::HbmWindow f = flat(w);
    return f.strided() ? b_.getDenseI64ArrayAttr(f.steps) : DenseI64ArrayAttr();
  }

  llvm::SmallVector<Value> indices(const graph::HbmWindow &w) {
    llvm::SmallVector<Value> r;
    for (const graph::IndexExpr &e : flat(w).offsets) r.push_back(index(e));
    return r;
  }

  void stmt(const graph::Alloc &a) {
    const graph::Buffer &buf = g_.buffers[a.buffer];
    MemRefType type = tile::tileType(b_.getContext(), buf.shape, compiler::mlirTypeOf(b_.getContext(), buf.dtype),
                                     toTile(buf.space));
    if (buf.viewOf >= 0) { // a slice of another tile (Tile::slice, Tile::partition_slice)
      buffers_[a.buffer] = b_.create<tile::ViewOp>(
          loc(buf.loc), type, buffers_.at(buf.viewOf), index(buf.viewOffset),
          buf.viewPartition ? b_.getI64IntegerAttr(buf.viewPartition) : IntegerAttr(),
          buf.viewPattern.empty() ? DenseI64ArrayAttr() : b_.getDenseI64ArrayAttr(buf.viewPattern));
      return;
    }
    IntegerAttr offset, bufs;
    if (buf.offset >= 0) { // placed by the kernel (tsr::isa::sbuf_tile_at)
      offset = b_.getI64IntegerAttr(buf.offset);
      bufs = b_.getI64IntegerAttr(1);
    }
    auto op = b_.create<tile::AllocOp>(loc(buf.loc), type, b_.getStringAttr(buf.name), offset, bufs,
                                       buf.offset >= 0 ? b_.getUnitAttr() : UnitAttr());
    buffers_[a.buffer] = op.getResult();
  }

  void stmt(const graph::Loop &loop) {
    Location l = loc(loop.loc);
    auto forOp = b_.create<scf::ForOp>(l, constant(0), constant(loop.tripCount), constant(1));
    if (loop.spmdAxis >= 0) forOp->setAttr(tile::kSpmdAxisAttr, b_.getI64IntegerAttr(loop.spmdAxis));
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(forOp.getBody()->getTerminator());
    loopVars_[loop.id] = forOp.getInductionVar();
    block(loop.body);
    loopVars_.erase(loop.id);
  }

  void stmt(const graph::Op &op) {
    Operation *created = create(op);
    if (op.isaLevel) created->setAttr(tile::kIsaAttr, b_.getUnitAttr());
    if (op.manual) created->setAttr(tile::kManualAttr, b_.getUnitAttr());
  }

  Operation *create(const graph::Op &op) {
    Location l = loc(op.loc);
    auto src = [&](int i) { return buffers_.at(op.srcs[i]); };
    Value dst = op.dst >= 0 ? buffers_.at(op.dst) : Value();
    switch (op.kind) {
    case graph::OpKind::Load:
      return b_.create<tile::LoadOp>(l, fn_.getArgument(op.hbm.tensor), indices(op.hbm), dst, steps(op.hbm),
                                     op.hbm.transposed);
    case graph::OpKind::Store:
      return b_.create<tile::StoreOp>(l, src(0), fn_.getArgument(op.hbm.tensor), indices(op.hbm), steps(op.hbm),
                                      op.hbm.transposed);
    case graph::OpKind::Matmul:
      return b_.create<tile::MatmulOp>(l, src(0), src(1), dst, op.accumulate);
    case graph::OpKind::Binary:
      return b_.create<tile::BinaryOp>(l, toTile(op.alu), src(0), src(1), dst);
    case graph::OpKind::BinaryScalar:
      return b_.create<tile::BinaryScalarOp>(l, toTile(op.alu), src(0), llvm::APFloat(op.value), dst, op.reverse);
    case graph::OpKind::Activation:
      return b_.create<tile::ActivationOp>(l, tile::FuncAttr::get(b_.getContext(), toTile(op.func)), src(0),
                                           op.srcs.size() > 1 ? src(1) : Value(), dst,
                                           op.dst2 >= 0 ? buffers_.at(op.dst2) : Value(),
                                           op.scaleTile >= 0 ? buffers_.at(op.scaleTile) : Value(),
                                           b_.getF32FloatAttr(op.value));
    case graph::OpKind::Transpose:
      return b_.create<tile::TransposeOp>(l, src(0), dst);
    case graph::OpKind::Broadcast:
      return b_.create<tile::BroadcastOp>(l, src(0), dst);
    case graph::OpKind::FillWhere:
      return b_.create<tile::FillWhereOp>(l, tile::AluAttr::get(b_.getContext(), toTile(op.where.cmp)), dst,
                                          index(op.where.offset), b_.getF32FloatAttr(op.value),
                                          b_.getI64IntegerAttr(op.where.partition),
                                          b_.getI64IntegerAttr(op.where.free));
    case graph::OpKind::Scan:
      return b_.create<tile::ScanOp>(l, src(0), src(1), dst, op.srcs.size() > 2 ? src(2) : Value());
    case graph::OpKind::Reduce:
      return b_.create<tile::ReduceOp>(l, toTile(op.alu), src(0), dst);
    case graph::OpKind::Copy:
      return b_.create<tile::CopyOp>(l, src(0), dst);
    case graph::OpKind::Memset:
      return b_.create<tile::MemsetOp>(l, dst, b_.getF32FloatAttr(op.value));
    case graph::OpKind::Print:
      return b_.create<tile::PrintOp>(l, b_.getStringAttr(op.text), src(0));
    case graph::OpKind::Wait:
      return b_.create<tile::WaitOp>(l, b_.getI64IntegerAttr(op.semaphore), index(op.count));
    case graph::OpKind::Signal:
      return b_.create<tile::SignalOp>(l, b_.getI64IntegerAttr(op.semaphore));
    case graph::OpKind::Instruction: {
      auto buffer = [&](int id) { return id >= 0 ? buffers_.at(id) : Value(); };
      auto source = [&](size_t i) { return i < op.srcs.size() ? buffer(op.srcs[i]) : Value(); };
      DictionaryAttr params = compiler::paramsAttr(b_, op.settings);
      StringAttr engine = op.engine ? b_.getStringAttr(isa::name(*op.engine)) : StringAttr();
      return b_.create<tile::InstOp>(l, b_.getStringAttr(isa::name(op.settings.op)), dst, buffer(op.dst2),
                                     source(0), source(1), source(2), params.empty() ? DictionaryAttr() : params,
                                     engine);
    }
    }
    llvm_unreachable("every graph::OpKind is imported");
  }

  OpBuilder &b_;
  const graph::KernelGraph &g_;
  func::FuncOp fn_;
  std::map<int, Value> buffers_;
  std::map<int, Value> loopVars_;
};

} // namespace

OwningOpRef<ModuleOp> importGraph(MLIRContext &ctx, const graph::KernelGraph &g, const std::string &targetName) {
  ctx.loadDialect<tile::TileDialect, func::FuncDialect, scf::SCFDialect, arith::ArithDialect,
                  memref::MemRefDialect>();
  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  (*module)->setAttr(tile::kTargetAttr, b.getStringAttr(targetName));
  if (g.scheduleInstructions) (*module)->setAttr(tile::kScheduleAttr, b.getUnitAttr());

  llvm::SmallVector<Type> args;
  for (const graph::TensorArg &t : g.tensors) { // an N-D tensor as its [rows, columns] matrix (MatrixShape.h)
    const std::array<int64_t, 2> matrix = isa::matrixShape(t.shape);
    args.push_back(tile::tileType(&ctx, matrix, compiler::mlirTypeOf(&ctx, t.dtype), tile::MemorySpace::hbm));
  }
  b.setInsertionPointToEnd(module->getBody());
  auto fn = b.create<func::FuncOp>(b.getUnknownLoc(), g.name, b.getFunctionType(args, {}));
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    fn.setArgAttr(i, tile::kTensorNameAttr, b.getStringAttr(g.tensors[i].name));
    if (g.tensors[i].isOutput) fn.setArgAttr(i, tile::kOutputAttr, b.getUnitAttr());
    if (g.tensors[i].isScratch) fn.setArgAttr(i, tile::kScratchAttr, b.getUnitAttr());
    if (g.tensors[i].shape.size() != 2)
      fn.setArgAttr(i, tile::kTensorShapeAttr, b.getDenseI64ArrayAttr(g.tensors[i].shape));
  }
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  auto ret = b.create<func::ReturnOp>(b.getUnknownLoc());
  b.setInsertionPoint(ret);
  Importer(b, g, fn).block(g.body);
  return module;
}

} // namespace tessera::compiler
