//===- ToTileProgram.cpp - a placed tile function as plain data, its loops kept -----------------------------===//
//
// One walk of the function: each scf.for becomes a TileLoop, each tile op a TileOpNode whose indices are
// LoopIndex (AffineIndex over the loops' iterations), each tile.alloc a TileBuffer, views folded into their
// operands' column offsets. The plan attributes (tile::kPlan*) are read where a planning pass wrote them.
// Test: tests/unit/compiler/TileProgramTest.cpp
//
//===------------------------------------------------------------------------------------------------------===//

#include "Export/ToTileProgram.h"

#include "Transforms/AffineIndex.h"
#include "Transforms/TileUnroller.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/ToProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <fmt/format.h>

#include <functional>

using namespace mlir;

namespace tessera::compiler {

namespace {

isa::AluOp toIsa(tile::Alu a) { return *isa::parseAluOp(tile::stringifyAlu(a)); }
isa::ActFunc toIsa(tile::Func f) { return *isa::parseActFunc(tile::stringifyFunc(f)); }

class Exporter {
public:
  explicit Exporter(func::FuncOp fn) : fn_(fn), records_(numberTileOps(fn.getBody().front())) {}

  TileProgram run() {
    fn_.walk<WalkOrder::PreOrder>([&](tile::AllocOp alloc) {
      tileOf_[alloc.getOperation()] = static_cast<int32_t>(program_.tiles.size());
      TileBuffer t;
      t.allocation = static_cast<int32_t>(program_.tiles.size());
      if (auto storage = alloc->getAttrOfType<StringAttr>(tile::kPlanStorageAttr)) {
        program_.planned = true;
        t.storage = storage.getValue() == "value"   ? TileStorage::Value
                    : storage.getValue() == "block" ? TileStorage::Block
                                                    : TileStorage::Scratch;
      }
      program_.tiles.push_back(t);
    });
    program_.body = body(fn_.getBody().front(), -1);
    if (auto blocks = fn_->getAttrOfType<ArrayAttr>(tile::kPlanBlocksAttr)) {
      program_.planned = true;
      for (Attribute a : blocks) program_.blocks.push_back(block(llvm::cast<DictionaryAttr>(a)));
    }
    // A Block tile's load, or else its store: a tile loaded from one block and stored to another lives in the
    // block it was loaded from, and its store copies it.
    for (TileOpKind kind : {TileOpKind::Load, TileOpKind::Store})
      for (size_t i = 0; i < program_.ops.size(); ++i) {
        const TileOpNode &op = program_.ops[i];
        if (op.kind != kind || op.block < 0) continue;
        TileBuffer &tile = program_.tiles[kind == TileOpKind::Load ? op.dst->tile : op.srcs[0].tile];
        if (tile.storage == TileStorage::Block && tile.blockOp < 0) tile.blockOp = static_cast<int32_t>(i);
      }
    return std::move(program_);
  }

private:
  std::vector<TileStatement> body(Block &b, int32_t parent) {
    std::vector<TileStatement> out;
    for (Operation &op : b) {
      if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
        out.push_back({true, this->loop(loop, parent)});
        continue;
      }
      if (auto alloc = llvm::dyn_cast<tile::AllocOp>(op)) {
        program_.tiles[tileOf_.at(alloc.getOperation())].loop = parent;
        continue;
      }
      if (llvm::isa<tile::ViewOp, func::ReturnOp, scf::YieldOp>(op) || op.getDialect() == arith_) continue;
      out.push_back({false, this->op(&op)});
    }
    return out;
  }

  int32_t loop(scf::ForOp forOp, int32_t parent) {
    const std::optional<int64_t> trips = tripCountOf(forOp);
    if (!trips) throw Error("a loop's trip count is not a constant", sourceOf(forOp.getLoc()));
    const auto index = static_cast<int32_t>(program_.loops.size());
    loopOf_[forOp.getOperation()] = index;
    TileLoop l;
    l.record = static_cast<int32_t>(records_.lookup(forOp));
    l.trips = *trips;
    l.loc = sourceOf(forOp.getLoc());
    l.parent = parent;
    if (auto axis = forOp->getAttrOfType<IntegerAttr>(tile::kSpmdAxisAttr)) l.spmdAxis = static_cast<int32_t>(axis.getInt());
    if (auto form = forOp->getAttrOfType<StringAttr>(tile::kPlanLoopAttr)) {
      program_.planned = true;
      l.form = form.getValue() == "grid" ? LoopForm::Grid
               : form.getValue() == "unrolled" ? LoopForm::Unrolled
                                               : LoopForm::Loop;
      if (auto dim = forOp->getAttrOfType<IntegerAttr>(tile::kPlanGridDimAttr)) l.gridDim = dim.getInt();
      l.parallel = forOp->hasAttr(tile::kPlanParallelAttr);
    }
    program_.loops.push_back(std::move(l));
    std::vector<TileStatement> inner = body(*forOp.getBody(), index);
    program_.loops[index].body = std::move(inner);
    return index;
  }

  LoopIndex index(Value v, Operation *at) {
    std::optional<LoopIndex> r = quasiAffine(v);
    if (!r)
      throw Error("an index is not an affine function of the kernel's loops (sums and constant multiples of loop "
                  "indices)",
                  sourceOf(at->getLoc()));
    return *r;
  }

  std::optional<LoopIndex> affine(Value v) {
    std::optional<AffineIndex> a = affineIndexOf(v);
    if (!a) return std::nullopt;
    LoopIndex r{{}, a->constant, {}};
    for (auto [loop, c] : a->terms) r.terms.push_back({loopOf_.at(loop.getOperation()), c});
    return r;
  }

  /// An affine index, or sums and constant multiples of affine indices and of their floor divisions by constants
  /// (tile-legalize-for-tpu's aligned windows).
  std::optional<LoopIndex> quasiAffine(Value v) {
    if (std::optional<LoopIndex> a = affine(v)) return a;
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumOperands() != 2) return std::nullopt;
    if (auto div = llvm::dyn_cast<arith::FloorDivSIOp>(def)) {
      std::optional<LoopIndex> n = affine(div.getLhs());
      auto d = div.getRhs().getDefiningOp<arith::ConstantIndexOp>();
      if (!n || !d || d.value() <= 0) return std::nullopt;
      return LoopIndex{{}, 0, {{n->terms, n->constant, d.value(), 1}}};
    }
    std::optional<LoopIndex> a = quasiAffine(def->getOperand(0)), b = quasiAffine(def->getOperand(1));
    if (!a || !b) return std::nullopt;
    if (llvm::isa<arith::AddIOp>(def)) return *a + *b;
    if (llvm::isa<arith::SubIOp>(def)) return *a + *b * -1;
    if (llvm::isa<arith::MulIOp>(def)) {
      if (b->isConstant()) return *a * b->constant;
      if (a->isConstant()) return *b * a->constant;
    }
    return std::nullopt;
  }

  /// A tile or a view of one: its allocation and the rows and columns it covers there.
  TileOperand operand(Value v, Operation *at) {
    TileOperand o;
    o.rows = llvm::cast<MemRefType>(v.getType()).getDimSize(0);
    o.cols = llvm::cast<MemRefType>(v.getType()).getDimSize(1);
    LoopIndex col;
    for (auto view = v.getDefiningOp<tile::ViewOp>(); view; view = v.getDefiningOp<tile::ViewOp>()) {
      col = col + index(view.getOffset(), at);
      o.row += view.firstPartition();
      if (auto pattern = view.getPatternAttr()) o.pattern.assign(pattern.asArrayRef().begin(), pattern.asArrayRef().end());
      v = view.getSource();
    }
    auto alloc = v.getDefiningOp<tile::AllocOp>();
    if (!alloc) throw Error("an on-chip operand is not a tile", sourceOf(at->getLoc()));
    o.tile = tileOf_.at(alloc.getOperation());
    o.col = std::move(col);
    return o;
  }

  TensorWindow window(Value tensor, ValueRange indices, std::optional<ArrayRef<int64_t>> steps, Value tile,
                      Operation *at) {
    TensorWindow w;
    auto arg = llvm::dyn_cast<BlockArgument>(tensor);
    if (!arg) throw Error("a DMA's HBM side is not a kernel argument", sourceOf(at->getLoc()));
    w.tensor = static_cast<int32_t>(arg.getArgNumber());
    w.row = index(indices[0], at);
    w.col = index(indices[1], at);
    auto shape = llvm::cast<MemRefType>(tile.getType()).getShape();
    w.rows = shape[0];
    w.cols = shape[1];
    if (steps && steps->size() == 2) {
      w.rowStep = (*steps)[0];
      w.colStep = (*steps)[1];
    }
    return w;
  }

  /// A transposed window reaches no TPU program: tile-legalize-for-tpu moves it as it lies and transposes on chip.
  static Error transposedWindow(Operation *o) {
    return Error("a transposed HBM window reached the Pallas export; tile-legalize-for-tpu moves it as it lies first",
                 sourceOf(o->getLoc()));
  }

  int32_t op(Operation *o) {
    if (o->hasAttr(tile::kIsaAttr) || o->hasAttr(tile::kManualAttr) ||
        llvm::isa<tile::InstOp, tile::WaitOp, tile::SignalOp>(o))
      throw Error(fmt::format("'{}' is written at the tsr::isa level (a NeuronCore instruction)",
                              o->getName().getStringRef().str()),
                  sourceOf(o->getLoc()));
    TileOpNode n;
    n.record = static_cast<int32_t>(records_.lookup(o));
    n.loc = sourceOf(o->getLoc());
    llvm::TypeSwitch<Operation *>(o)
        .Case([&](tile::LoadOp l) {
          if (l.getTranspose()) throw transposedWindow(o);
          n.kind = TileOpKind::Load;
          n.window = window(l.getSrc(), l.getIndices(), l.getSteps(), l.getDst(), o);
          n.dst = operand(l.getDst(), o);
          n.preserve = o->hasAttr(tile::kPreserveAttr);
          n.prefetch = o->hasAttr(tile::kPlanPrefetchAttr);
        })
        .Case([&](tile::StoreOp s) {
          if (s.getTranspose()) throw transposedWindow(o);
          n.kind = TileOpKind::Store;
          n.window = window(s.getDst(), s.getIndices(), s.getSteps(), s.getSrc(), o);
          n.srcs = {operand(s.getSrc(), o)};
        })
        .Case([&](tile::MatmulOp m) {
          n.kind = TileOpKind::Matmul;
          n.srcs = {operand(m.getStationary(), o), operand(m.getMoving(), o)};
          n.dst = operand(m.getAcc(), o);
          n.accumulate = m.getAccumulate();
        })
        .Case([&](tile::BinaryOp b) {
          n.kind = TileOpKind::Binary;
          n.alu = toIsa(b.getOp());
          n.srcs = {operand(b.getLhs(), o), operand(b.getRhs(), o)};
          n.dst = operand(b.getDst(), o);
        })
        .Case([&](tile::BinaryScalarOp b) {
          n.kind = TileOpKind::BinaryScalar;
          n.alu = toIsa(b.getOp());
          n.value = b.getScalar().convertToFloat();
          n.reverse = b.getReverse();
          n.srcs = {operand(b.getSrc(), o)};
          n.dst = operand(b.getDst(), o);
        })
        .Case([&](tile::ActivationOp a) {
          if (a.getScales()) // tile-legalize-for-tpu makes them a multiply before the plan
            throw Error("an activation with a tile of scales reached the Pallas export unlegalized", n.loc,
                        "report it with the kernel");
          n.kind = TileOpKind::Activation;
          n.func = toIsa(a.getFunc());
          n.value = a.getScale().convertToFloat();
          n.srcs = {operand(a.getSrc(), o)};
          if (a.getBias()) n.srcs.push_back(operand(a.getBias(), o));
          n.dst = operand(a.getDst(), o);
          if (a.getSum()) n.dst2 = operand(a.getSum(), o);
        })
        .Case([&](tile::ReduceOp r) {
          n.kind = TileOpKind::Reduce;
          n.alu = toIsa(r.getOp());
          n.srcs = {operand(r.getSrc(), o)};
          n.dst = operand(r.getDst(), o);
        })
        .Case([&](tile::CopyOp c) {
          n.kind = TileOpKind::Copy;
          n.srcs = {operand(c.getSrc(), o)};
          n.dst = operand(c.getDst(), o);
        })
        .Case([&](tile::BroadcastOp c) {
          n.kind = TileOpKind::Broadcast;
          n.srcs = {operand(c.getSrc(), o)};
          n.dst = operand(c.getDst(), o);
        })
        .Case([&](tile::MemsetOp m) {
          n.kind = TileOpKind::Memset;
          n.value = m.getValue().convertToFloat();
          n.dst = operand(m.getDst(), o);
        })
        .Case([&](tile::FillWhereOp f) {
          n.kind = TileOpKind::FillWhere;
          n.alu = toIsa(f.getCmp());
          n.dst = operand(f.getDst(), o);
          n.offset = index(f.getOffset(), o);
          n.value = f.getValue().convertToFloat();
          n.partition = f.getPartition();
          n.free = f.getFree();
        })
        .Case([&](tile::PrintOp p) {
          n.kind = TileOpKind::Print;
          n.srcs = {operand(p.getSrc(), o)};
          n.text = p.getLabel().str();
        })
        .Default([&](Operation *other) {
          throw Error(fmt::format("'{}' has no place in a kernel's loops (a tile op was expected)",
                                  other->getName().getStringRef().str()),
                      sourceOf(other->getLoc()));
        });
    if (auto block = o->getAttrOfType<IntegerAttr>(tile::kPlanBlockAttr)) n.block = block.getInt();
    program_.ops.push_back(std::move(n));
    return static_cast<int32_t>(program_.ops.size() - 1);
  }

  /// A block of the plan: {tensor, output, shape, index = affine_map over the grid dimensions}.
  GridBlock block(DictionaryAttr d) {
    GridBlock b;
    b.tensor = static_cast<int32_t>(llvm::cast<IntegerAttr>(d.get("tensor")).getInt());
    b.output = static_cast<bool>(d.get("output"));
    auto shape = llvm::cast<DenseI64ArrayAttr>(d.get("shape")).asArrayRef();
    b.shape = {shape[0], shape[1]};
    std::vector<int32_t> grid = program_.gridLoops();
    AffineMap map = llvm::cast<AffineMapAttr>(d.get("index")).getValue();
    for (unsigned r = 0; r < 2; ++r) {
      // A sum of constant multiples of dimensions and a constant, as tpu-plan-pallas writes it.
      std::function<void(AffineExpr, int64_t)> add = [&](AffineExpr e, int64_t k) {
        if (auto c = llvm::dyn_cast<AffineConstantExpr>(e)) {
          b.index[r].constant += k * c.getValue();
        } else if (auto dim = llvm::dyn_cast<AffineDimExpr>(e)) {
          b.index[r].terms.push_back({grid.at(dim.getPosition()), k});
        } else if (auto bin = llvm::dyn_cast<AffineBinaryOpExpr>(e)) {
          if (e.getKind() == AffineExprKind::Add) {
            add(bin.getLHS(), k);
            add(bin.getRHS(), k);
          } else if (auto c = llvm::dyn_cast<AffineConstantExpr>(bin.getRHS());
                     e.getKind() == AffineExprKind::Mul && c) {
            add(bin.getLHS(), k * c.getValue());
          } else {
            throw Error("a plan's block index is not a sum of multiples of grid dimensions");
          }
        }
      };
      add(map.getResult(r), 1);
    }
    return b;
  }

  func::FuncOp fn_;
  llvm::DenseMap<Operation *, int64_t> records_;
  Dialect *arith_ = fn_.getContext()->getLoadedDialect<arith::ArithDialect>();
  llvm::DenseMap<Operation *, int32_t> tileOf_;
  llvm::DenseMap<Operation *, int32_t> loopOf_;
  TileProgram program_;
};

} // namespace

TileProgram toTileProgram(func::FuncOp fn) { return Exporter(fn).run(); }

} // namespace tessera::compiler
