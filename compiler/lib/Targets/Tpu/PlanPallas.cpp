//===- PlanPallas.cpp - how a placed TPU kernel becomes a Pallas kernel with its loops kept -------------------===//
//
// tpu-plan-pallas decides, on the placed tile function, what the Pallas emitter (hw-backends/lib/pallas/) writes,
// and records it as tile::kPlan* attributes (read back by the export to compiler::TileProgram):
//
//  1. The grid: first the kernel's SPMD launch grid (tile.spmd_axis loops, the outermost), in both styles; then
//     (option grid=true), from the top of the kernel or the launch grid's innermost body, while a body holds a loop
//     that moves tiles (a load or store inside it), the next grid dimension is such a loop: of those that load if
//     any do (a loop that only stores writes results back), the one of most iterations. What a grid loop's body
//     holds before the next grid loop runs at the first step of the dimensions inside (pl.when), what it holds
//     after, at their last; the innermost grid loop's body is the step. With no grid dimension the kernel is one
//     step.
//  2. Blocks: the loads (stores) of a tensor whose windows move with the grid loops by multiples of one block shape
//     and stay, over the loops inside the step, within one block, share a BlockSpec: its shape is the smallest that
//     Mosaic takes (a multiple of (8, 128), or the whole dimension) dividing the tensor and the windows' strides,
//     and its index map follows from the strides. An output's stores must write its whole block in one step, in one
//     phase whose guard does not skip a step the block changes in. A tensor with any window that is not a block (or
//     an output the kernel also reads) is left in HBM: each of its loads and stores is an async copy of its own.
//  3. Loop forms: a loop that is not a grid dimension is a pl.loop when every index that moves with it and becomes
//     a dynamic offset (a tile's columns, a block's rows or columns, a copy's window) is a multiple Mosaic can prove
//     aligned (128 lanes; rows the dtype's sublane tiling), and an access pattern's offset moves with it only by
//     multiples of the pattern's largest step (its relayout's indices are static, so such a loop is not a grid
//     dimension either); else, and for a loop of one iteration, it is unrolled as the kernel is traced.
//  4. Prefetches: a load of its own into a tile the body of a pl.loop allocates with two or more rotating copies,
//     from a tensor the kernel does not write, of a window that is not strided (those are staged), starts one
//     iteration ahead, as the simulated program's DMA queues run ahead of its compute.
//  5. Storage: a tile that one block load fills whole is read from the block, and one that one block store (of the
//     body that allocates it) writes whole is computed in the output's block; an f32 tile that no copy touches,
//     whose offsets are all static, every write whole, first accessed by a write and only ever written in one
//     scope (the kernel, a pl.loop body, one phase of the grid step) and read there or in scopes inside it, is a
//     value; the others are VMEM scratch.
//  6. Parallel dimensions: a grid dimension is parallel (megacore may split it) unless a tile from outside its loop
//     (other than a block's, which Pallas fetches for every step) carries a value into it or out of it, or an output
//     window does not move with it; and only a prefix of the grid may be parallel (Pallas' rule).
// Test: compiler/test/Transforms/plan-pallas.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "Targets/TargetFamily.h"
#include "Tpu/Passes.h"
#include "Transforms/AffineIndex.h"
#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"
#include "tessera/isa/RowRelayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

using namespace mlir;

namespace tessera::compiler {
namespace {

enum class Form { Loop, Unrolled, Grid };
enum class Storage { Scratch, Value, Block };

/// One access of an op to a tile: which allocation, the columns it touches there, how.
struct Access {
  Operation *op = nullptr;
  tile::AllocOp alloc;
  std::optional<AffineIndex> col; ///< nullopt: not affine
  int64_t cols = 0;
  bool read = false, write = false;
  bool whole = false; ///< a write of every element (all rows and columns, no accumulation into part of it)
};

/// Where a statement runs in the Pallas kernel: which Python scope it is written in.
struct Scope {
  enum Kind { Kernel, Preamble, Postamble, Pre, Post, Step, Body } kind = Kernel;
  Operation *anchor = nullptr; ///< the loop (grid loop for Pre/Post/Step, pl.loop for Body)
  bool operator==(const Scope &o) const { return kind == o.kind && anchor == o.anchor; }
};

/// A block: the windows of one tensor that move with the grid loops by the same strides.
struct BlockPlan {
  int64_t tensor = -1;
  bool output = false;
  std::array<llvm::SmallVector<int64_t>, 2> coef; ///< per dimension, the element stride per grid dimension
  std::array<int64_t, 2> lo{INT64_MAX, INT64_MAX}, hi{INT64_MIN, INT64_MIN}; ///< local extent of the windows
  std::array<int64_t, 2> shape{}, origin{};       ///< the block, and its index at grid position 0
  llvm::SmallVector<Operation *> sites;
};

/// Whether `loop` moves an index inside an access pattern's relayout (isa/RowRelayout.h), which must be static in
/// Pallas: an offset that moves with it by other than multiples of the pattern's largest step (which move the
/// relayout's window).
bool movesARelayoutIndex(scf::ForOp loop) {
  bool moves = false;
  loop.getBody()->walk([&](tile::ViewOp view) {
    DenseI64ArrayAttr pattern = view.getPatternAttr();
    if (!pattern) return;
    std::optional<AffineIndex> offset = affineIndexOf(view.getOffset());
    moves |= !offset || offset->coefficient(loop) % isa::outermostStep(pattern.asArrayRef()) != 0;
  });
  return moves;
}

bool movesTiles(scf::ForOp loop) {
  bool moves = false;
  loop.walk([&](Operation *op) { moves |= llvm::isa<tile::LoadOp, tile::StoreOp>(op); });
  return moves;
}

/// The index operands and tensor of a load or store.
struct Dma {
  Value tensor, tile;
  ValueRange indices;
  std::optional<ArrayRef<int64_t>> steps;
  bool store = false;
  bool transposed = false; ///< none after tile-legalize-for-tpu; a block of one would not be the window
};
std::optional<Dma> dmaOf(Operation *op) {
  if (auto l = llvm::dyn_cast<tile::LoadOp>(op))
    return Dma{l.getSrc(), l.getDst(), l.getIndices(), l.getSteps(), false, l.getTranspose()};
  if (auto s = llvm::dyn_cast<tile::StoreOp>(op))
    return Dma{s.getDst(), s.getSrc(), s.getIndices(), s.getSteps(), true, s.getTranspose()};
  return std::nullopt;
}

class Planner {
public:
  Planner(func::FuncOp fn, const isa::Target &target, bool grid) : fn_(fn), target_(target), grid_(grid) {}

  void run() {
    collectAccesses();
    chooseLaunchGrid();
    if (grid_) chooseGrid();
    chooseBlocks();
    chooseLoopForms();
    choosePrefetches();
    chooseStorage();
    chooseParallel();
    write();
  }

private:
  // --- what the kernel touches ---------------------------------------------------------------------------

  /// The columns a tile operand covers in its allocation (its views' offsets summed).
  std::optional<AffineIndex> columnsOf(Value v) {
    AffineIndex col;
    while (auto view = v.getDefiningOp<tile::ViewOp>()) {
      std::optional<AffineIndex> offset = affineIndexOf(view.getOffset());
      if (!offset) return std::nullopt;
      col += *offset;
      v = view.getSource();
    }
    return col;
  }

  void access(Operation *op, Value tile, bool read, bool write, bool whole = true) {
    tile::AllocOp alloc = tile::rootAllocation(tile);
    if (!alloc) return;
    Access a;
    a.op = op;
    a.alloc = alloc;
    a.col = columnsOf(tile);
    a.cols = llvm::cast<MemRefType>(tile.getType()).getDimSize(1);
    a.read = read;
    a.write = write;
    const bool allRows = tile::firstPartitionOf(tile) == 0 &&
                         llvm::cast<MemRefType>(tile.getType()).getDimSize(0) == alloc.getType().getDimSize(0);
    a.whole = write && whole && allRows && a.col && a.col->isConstant() && a.col->constant == 0 &&
              a.cols == alloc.getType().getDimSize(1);
    accessesOf_[alloc.getOperation()].push_back(accesses_.size());
    accesses_.push_back(std::move(a));
  }

  void collectAccesses() {
    fn_.walk([&](Operation *op) {
      llvm::TypeSwitch<Operation *>(op)
          .Case([&](tile::LoadOp o) { access(op, o.getDst(), false, true); })
          .Case([&](tile::StoreOp o) { access(op, o.getSrc(), true, false); })
          .Case([&](tile::MatmulOp o) {
            access(op, o.getStationary(), true, false);
            access(op, o.getMoving(), true, false);
            access(op, o.getAcc(), o.getAccumulate(), true);
          })
          .Case([&](tile::BinaryOp o) {
            access(op, o.getLhs(), true, false);
            access(op, o.getRhs(), true, false);
            access(op, o.getDst(), false, true);
          })
          .Case([&](tile::BinaryScalarOp o) {
            access(op, o.getSrc(), true, false);
            access(op, o.getDst(), false, true);
          })
          .Case([&](tile::ActivationOp o) {
            access(op, o.getSrc(), true, false);
            if (o.getBias()) access(op, o.getBias(), true, false);
            access(op, o.getDst(), false, true);
            if (o.getSum()) access(op, o.getSum(), false, true);
          })
          .Case([&](tile::ReduceOp o) {
            access(op, o.getSrc(), true, false);
            access(op, o.getDst(), false, true);
          })
          .Case<tile::CopyOp, tile::BroadcastOp>([&](auto o) {
            access(op, o.getSrc(), true, false);
            access(op, o.getDst(), false, true);
          })
          .Case([&](tile::MemsetOp o) { access(op, o.getDst(), false, true); })
          .Case([&](tile::FillWhereOp o) { access(op, o.getDst(), true, true, /*whole=*/false); })
          .Case([&](tile::PrintOp o) { access(op, o.getSrc(), true, false); });
      if (dmaOf(op)) dmas_.push_back(op);
    });
  }

  // --- 1. the grid ---------------------------------------------------------------------------------------

  /// The loop of `body` that is the next grid dimension: of the loops that move tiles, those that load if any do
  /// (a loop that only stores is a write-back, which runs at the last step), the one of most iterations (the first
  /// of them); none when no loop moves tiles.
  static scf::ForOp nextGridLoop(Block &body) {
    scf::ForOp best;
    bool bestLoads = false;
    int64_t bestTrips = 0;
    for (Operation &op : body) {
      auto loop = llvm::dyn_cast<scf::ForOp>(op);
      if (!loop || !movesTiles(loop) || movesARelayoutIndex(loop)) continue;
      bool loads = false;
      loop.walk([&](tile::LoadOp) { loads = true; });
      const int64_t trips = tripCountOf(loop).value_or(0);
      if (!best || (loads && !bestLoads) || (loads == bestLoads && trips > bestTrips)) {
        best = loop;
        bestLoads = loads;
        bestTrips = trips;
      }
    }
    return best;
  }

  /// The kernel's SPMD launch grid (tile::kSpmdAxisAttr), its outermost loops: the first grid dimensions, in both
  /// styles (a program is a step of the grid, which megacore splits), whether or not they move tiles.
  void chooseLaunchGrid() {
    Block *body = &fn_.getBody().front();
    for (bool found = true; found;) {
      found = false;
      for (Operation &op : *body) {
        auto loop = llvm::dyn_cast<scf::ForOp>(op);
        if (!loop || !loop->hasAttr(tile::kSpmdAxisAttr)) continue;
        addGridLoop(loop);
        body = loop.getBody();
        found = true;
        break;
      }
    }
  }

  void addGridLoop(scf::ForOp loop) {
    level_[loop.getOperation()] = static_cast<int>(chain_.size());
    chain_.push_back(loop);
    form_[loop.getOperation()] = Form::Grid;
  }

  void chooseGrid() {
    Block *body = chain_.empty() ? &fn_.getBody().front() : chain_.back().getBody();
    while (true) {
      scf::ForOp next = nextGridLoop(*body);
      if (!next) break;
      addGridLoop(next);
      body = next.getBody();
    }
  }

  bool isGrid(scf::ForOp loop) const { return level_.count(loop.getOperation()) != 0; }
  int gridLevel(scf::ForOp loop) const { return level_.at(loop.getOperation()); }

  /// The index with the grid loops' terms removed (what moves within a step), and the grid terms' strides.
  std::pair<AffineIndex, llvm::SmallVector<int64_t>> splitGrid(const AffineIndex &a) const {
    AffineIndex local{{}, a.constant};
    llvm::SmallVector<int64_t> coef(chain_.size(), 0);
    for (const auto &[loop, c] : a.terms) {
      if (isGrid(loop))
        coef[gridLevel(loop)] = c;
      else
        local.terms.push_back({loop, c});
    }
    return {local, coef};
  }

  // --- scopes ----------------------------------------------------------------------------------------------

  Form formOf(scf::ForOp loop) const {
    auto it = form_.find(loop.getOperation());
    return it == form_.end() ? Form::Loop : it->second;
  }

  /// The Python scope `op` is written in.
  Scope scopeOf(Operation *op) const {
    Operation *x = op;
    while (true) {
      auto loop = x->getParentOfType<scf::ForOp>();
      if (!loop) {
        if (chain_.empty()) return {Scope::Kernel, nullptr};
        scf::ForOp first = chain_.front();
        if (x == first.getOperation()) return {Scope::Kernel, nullptr};
        return {x->isBeforeInBlock(first) ? Scope::Preamble : Scope::Postamble, nullptr};
      }
      switch (formOf(loop)) {
      case Form::Loop: return {Scope::Body, loop};
      case Form::Unrolled: x = loop; continue;
      case Form::Grid: {
        const int level = gridLevel(loop);
        if (level + 1 == static_cast<int>(chain_.size())) return {Scope::Step, loop};
        Operation *next = chain_[level + 1];
        if (x == next) return {Scope::Step, loop};
        return {x->isBeforeInBlock(next) ? Scope::Pre : Scope::Post, loop};
      }
      }
    }
  }

  /// The scope around scope `s` (the kernel for the grid's phases, which are siblings).
  std::optional<Scope> parentOf(const Scope &s) const {
    if (s.kind != Scope::Body) return std::nullopt;
    return scopeOf(s.anchor);
  }

  bool nestedIn(Scope inner, const Scope &outer) const {
    for (std::optional<Scope> s = inner; s; s = parentOf(*s))
      if (*s == outer) return true;
    return false;
  }

  /// The grid level whose phase runs `op` (-1: the kernel's top), and whether that phase is guarded to the first
  /// or last step of the levels inside it.
  std::pair<int, bool> phaseOf(Operation *op) const {
    for (Scope s = scopeOf(op);;) {
      switch (s.kind) {
      case Scope::Kernel: return {-1, false};
      case Scope::Preamble:
      case Scope::Postamble: return {-1, true};
      case Scope::Pre:
      case Scope::Post: return {gridLevel(llvm::cast<scf::ForOp>(s.anchor)), true};
      case Scope::Step: return {gridLevel(llvm::cast<scf::ForOp>(s.anchor)), false};
      case Scope::Body: s = *parentOf(s); continue;
      }
    }
  }

  /// How many times `op` runs per execution of its phase: the trip counts of the non-grid loops around it.
  int64_t repeatsInPhase(Operation *op) const {
    int64_t n = 1;
    for (auto loop = op->getParentOfType<scf::ForOp>(); loop && !isGrid(loop);
         loop = loop->getParentOfType<scf::ForOp>())
      n *= tripCountOf(loop).value_or(1);
    return n;
  }

  // --- 2. blocks -------------------------------------------------------------------------------------------

  int64_t sublaneTiling(Value v) const {
    return vmemLayout(llvm::cast<MemRefType>(v.getType()), target_).sublaneTiling;
  }
  int64_t lanes() const { return static_cast<int64_t>(target_.tpu.lanes); }

  void chooseBlocks() {
    if (chain_.empty()) return;
    std::set<int64_t> manual;      // tensors left in HBM
    std::set<int64_t> readOutputs; // outputs the kernel loads (a read-modify-write)
    std::vector<BlockPlan> groups;
    for (Operation *op : dmas_) {
      const Dma d = *dmaOf(op);
      const auto tensor = static_cast<int64_t>(llvm::cast<BlockArgument>(d.tensor).getArgNumber());
      if (fn_.getArgAttr(tensor, tile::kScratchAttr)) { // written and read back within the kernel: in HBM, by hand
        manual.insert(tensor);
        continue;
      }
      if (!d.store && fn_.getArgAttr(tensor, tile::kOutputAttr)) readOutputs.insert(tensor);
      std::optional<AffineIndex> row = affineIndexOf(d.indices[0]), col = affineIndexOf(d.indices[1]);
      if (!row || !col || d.transposed || (d.steps && llvm::any_of(*d.steps, [](int64_t s) { return s != 1; }))) {
        manual.insert(tensor);
        continue;
      }
      auto [rowLocal, rowCoef] = splitGrid(*row);
      auto [colLocal, colCoef] = splitGrid(*col);
      auto rowRange = rowLocal.range(), colRange = colLocal.range();
      if (!rowRange || !colRange) {
        manual.insert(tensor);
        continue;
      }
      auto it = std::find_if(groups.begin(), groups.end(), [&](const BlockPlan &g) {
        return g.tensor == tensor && g.output == d.store && g.coef[0] == rowCoef && g.coef[1] == colCoef;
      });
      if (it == groups.end()) {
        groups.push_back({});
        it = std::prev(groups.end());
        it->tensor = tensor;
        it->output = d.store;
        it->coef = {rowCoef, colCoef};
      }
      auto size = llvm::cast<MemRefType>(d.tile.getType()).getShape();
      const std::pair<int64_t, int64_t> ranges[2] = {*rowRange, *colRange};
      for (int dim = 0; dim < 2; ++dim) {
        it->lo[dim] = std::min(it->lo[dim], ranges[dim].first);
        it->hi[dim] = std::max(it->hi[dim], ranges[dim].second + size[dim]);
      }
      it->sites.push_back(op);
    }
    for (int64_t t : readOutputs) manual.insert(t);
    std::set<int64_t> outputsSeen;
    for (BlockPlan &g : groups) {
      if (manual.count(g.tensor)) continue;
      if (!shapeBlock(g) || (g.output && (!outputsSeen.insert(g.tensor).second || !coversBlock(g)))) {
        manual.insert(g.tensor);
        continue;
      }
    }
    // Inputs' blocks first, then the outputs', each in the order first met.
    for (bool output : {false, true})
      for (BlockPlan &g : groups) {
        if (g.output != output || manual.count(g.tensor)) continue;
        for (Operation *site : g.sites) blockOf_[site] = static_cast<int64_t>(blocks_.size());
        blocks_.push_back(std::move(g));
      }
  }

  /// The smallest block shape Mosaic takes that holds every window of `g` at every grid position.
  bool shapeBlock(BlockPlan &g) const {
    func::FuncOp fn = fn_;
    auto type = llvm::cast<MemRefType>(fn.getArgument(g.tensor).getType());
    for (int dim = 0; dim < 2; ++dim) {
      const int64_t extent = type.getDimSize(dim);
      const int64_t tiling = dim == 0 ? static_cast<int64_t>(target_.tpu.sublanes) : lanes();
      int64_t stride = 0;
      for (int64_t c : g.coef[dim]) stride = std::gcd(stride, std::abs(c));
      const int64_t lo = g.lo[dim], hi = g.hi[dim];
      if (lo < 0 || hi > extent) return false;
      // A multiple of the tiling that divides the dimension, or the whole dimension; the windows' strides must be
      // whole blocks, and every window one block.
      auto fits = [&](int64_t b) { return b >= hi - lo && stride % b == 0 && lo / b == (hi - 1) / b; };
      int64_t chosen = 0;
      for (int64_t b = tiling; b < extent && !chosen; b += tiling)
        if (extent % b == 0 && fits(b)) chosen = b;
      if (!chosen && fits(extent)) chosen = extent;
      if (!chosen) return false;
      g.shape[dim] = chosen;
      g.origin[dim] = lo / chosen;
    }
    return true;
  }

  /// Whether an output's stores write its whole block every time a step writes it.
  bool coversBlock(const BlockPlan &g) const {
    std::optional<std::pair<int, bool>> phase;
    int64_t area = 0;
    for (Operation *site : g.sites) {
      const std::pair<int, bool> p = phaseOf(site);
      if (phase && *phase != p) return false; // one phase writes the block
      phase = p;
      auto size = llvm::cast<MemRefType>(dmaOf(site)->tile.getType()).getShape();
      area += size[0] * size[1] * repeatsInPhase(site);
    }
    if (area != g.shape[0] * g.shape[1]) return false;
    // A guarded phase runs at one step of the levels inside it: the block may not change along them.
    if (phase && phase->second)
      for (size_t level = static_cast<size_t>(phase->first + 1); level < chain_.size(); ++level)
        if (g.coef[0][level] != 0 || g.coef[1][level] != 0) return false;
    return true;
  }

  // --- 3. loop forms ---------------------------------------------------------------------------------------

  /// Whether every dynamic offset that moves with `loop` is one Mosaic can prove aligned.
  bool offsetsAligned(scf::ForOp loop) {
    bool ok = !movesARelayoutIndex(loop);
    auto require = [&](const std::optional<AffineIndex> &a, int64_t alignment) {
      if (!a) {
        ok = false;
        return;
      }
      if (a->coefficient(loop) == 0) return;
      if (a->alignment(alignment) < alignment) ok = false;
    };
    loop.getBody()->walk([&](Operation *op) {
      if (auto view = llvm::dyn_cast<tile::ViewOp>(op)) require(columnsOf(view.getResult()), lanes());
      std::optional<Dma> d = dmaOf(op);
      if (!d) return;
      const int64_t rows = sublaneTiling(d->tensor);
      std::optional<AffineIndex> row = affineIndexOf(d->indices[0]), col = affineIndexOf(d->indices[1]);
      if (auto b = blockOf_.find(op); b != blockOf_.end() && row && col) { // offsets within the block
        const BlockPlan &g = blocks_[b->second];
        AffineIndex r = splitGrid(*row).first, c = splitGrid(*col).first;
        r.constant -= g.origin[0] * g.shape[0];
        c.constant -= g.origin[1] * g.shape[1];
        require(r, rows);
        require(c, lanes());
        return;
      }
      require(row, rows);
      require(col, lanes());
    });
    return ok;
  }

  void chooseLoopForms() {
    fn_.walk([&](scf::ForOp loop) {
      if (isGrid(loop)) return;
      const std::optional<int64_t> trips = tripCountOf(loop);
      form_[loop.getOperation()] = trips && *trips > 1 && offsetsAligned(loop) ? Form::Loop : Form::Unrolled;
    });
  }

  // --- 4. prefetches ---------------------------------------------------------------------------------------

  /// The loop around `op` that iterates: its loops of one iteration are their bodies.
  static scf::ForOp iteratingLoopAround(Operation *op) {
    auto loop = op->getParentOfType<scf::ForOp>();
    while (loop && tripCountOf(loop) == 1) loop = loop->getParentOfType<scf::ForOp>();
    return loop;
  }

  void choosePrefetches() {
    std::set<int64_t> written; // tensors the kernel stores to
    for (Operation *op : dmas_)
      if (dmaOf(op)->store) written.insert(llvm::cast<BlockArgument>(dmaOf(op)->tensor).getArgNumber());
    for (Operation *op : dmas_) {
      auto load = llvm::dyn_cast<tile::LoadOp>(op);
      if (!load || blockOf_.count(op) || load->hasAttr(tile::kPreserveAttr)) continue;
      if (load.getSteps() && llvm::any_of(*load.getSteps(), [](int64_t s) { return s != 1; })) continue; // staged
      scf::ForOp loop = iteratingLoopAround(op);
      tile::AllocOp alloc = tile::rootAllocation(load.getDst());
      if (!loop || formOf(loop) != Form::Loop || !alloc || iteratingLoopAround(alloc) != loop) continue;
      if (alloc.getBufs().value_or(1) < 2 || load.getDst() != alloc.getResult()) continue;
      if (written.count(llvm::cast<BlockArgument>(load.getSrc()).getArgNumber())) continue;
      prefetch_.insert(op);
    }
  }

  // --- 5. storage ------------------------------------------------------------------------------------------

  /// Whether every offset of `a` is known when the kernel is traced (no term of a pl.loop or grid loop).
  bool staticOffset(const Access &a) const {
    if (!a.col) return false;
    return llvm::all_of(a.col->terms, [&](const auto &t) { return formOf(t.first) == Form::Unrolled; });
  }

  /// Whether every loop inside the grid step that moves `load`'s window also holds every access in `all`: the tile is
  /// read from the block where the load's indices are those it was loaded with.
  bool loopsEncloseAll(Operation *load, llvm::ArrayRef<const Access *> all) const {
    std::optional<Dma> d = dmaOf(load);
    for (Value index : d->indices) {
      std::optional<AffineIndex> a = affineIndexOf(index);
      if (!a) return false;
      for (auto [loop, c] : a->terms)
        if (!isGrid(loop) && !llvm::all_of(all, [&](const Access *x) { return loop->isAncestor(x->op); }))
          return false;
    }
    return true;
  }

  Storage storageOf(tile::AllocOp alloc) const {
    auto it = accessesOf_.find(alloc.getOperation());
    if (it == accessesOf_.end()) return Storage::Scratch;
    llvm::SmallVector<const Access *> all;
    for (size_t i : it->second) all.push_back(&accesses_[i]);
    // Block: one load fills it whole from a block, and nothing else writes it.
    llvm::SmallVector<const Access *> writes;
    for (const Access *a : all)
      if (a->write) writes.push_back(a);
    if (writes.size() == 1 && writes[0]->whole && blockOf_.count(writes[0]->op) &&
        llvm::isa<tile::LoadOp>(writes[0]->op) && loopsEncloseAll(writes[0]->op, all))
      return Storage::Block;
    // Block (an output's): one block store in the body that allocates it copies it whole, and every access is in
    // that store's phase (its block stays put).
    llvm::SmallVector<const Access *> stores;
    for (const Access *a : all)
      if (llvm::isa<tile::StoreOp>(a->op)) stores.push_back(a);
    if (stores.size() == 1 && blockOf_.count(stores[0]->op) && stores[0]->col && stores[0]->col->isConstant() &&
        stores[0]->col->constant == 0 && stores[0]->cols == alloc.getType().getDimSize(1) &&
        stores[0]->op->getParentOp() == alloc->getParentOp() && llvm::all_of(all, [&](const Access *a) {
          return (a == stores[0] || !dmaOf(a->op)) && phaseOf(a->op) == phaseOf(stores[0]->op);
        }))
      return Storage::Block;
    // Value.
    if (!alloc.getType().getElementType().isF32()) return Storage::Scratch;
    std::optional<Scope> scope;
    for (const Access *a : all) {
      if (dmaOf(a->op) || !staticOffset(*a) || (a->write && !a->whole)) return Storage::Scratch;
      if (a->write) {
        const Scope s = scopeOf(a->op);
        if (scope && !(*scope == s)) return Storage::Scratch;
        scope = s;
      }
    }
    if (!scope) return Storage::Scratch;
    for (const Access *a : all)
      if (!nestedIn(scopeOf(a->op), *scope)) return Storage::Scratch;
    // Accesses come in program order (a pre-order walk): the first must write.
    if (all.front()->read || !all.front()->write) return Storage::Scratch;
    return Storage::Value;
  }

  void chooseStorage() {
    fn_.walk([&](tile::AllocOp alloc) { storage_[alloc.getOperation()] = storageOf(alloc); });
  }

  // --- 6. parallel grid dimensions -------------------------------------------------------------------------

  void chooseParallel() {
    parallel_.assign(chain_.size(), true);
    computeParallel();
    // The launch grid's programs are independent by definition (each is its own kernel instance): its axes are
    // parallel, so that megacore splits them as the simulator does.
    for (size_t level = 0; level < chain_.size(); ++level)
      if (chain_[level]->hasAttr(tile::kSpmdAxisAttr)) parallel_[level] = true;
    // Pallas takes parallel dimensions only as a prefix of the grid: after an arbitrary one, every one is.
    for (size_t level = 1; level < parallel_.size(); ++level) parallel_[level] = parallel_[level] && parallel_[level - 1];
  }

  void computeParallel() {
    for (size_t level = 0; level < chain_.size(); ++level) {
      scf::ForOp loop = chain_[level];
      for (const auto &[allocOp, indices] : accessesOf_) {
        if (loop->isAncestor(allocOp)) continue; // a tile of each iteration
        if (storage_.at(allocOp) == Storage::Block) continue; // Pallas fetches its block for every step
        bool inside = false, outside = false, carried = false, first = true;
        for (size_t i : indices) {
          const Access &a = accesses_[i];
          if (!loop->isAncestor(a.op)) {
            outside = true;
            continue;
          }
          if (first && (a.read || !a.whole)) carried = true;
          first = false;
          inside = true;
        }
        if (inside && (outside || carried)) parallel_[level] = false;
      }
      llvm::DenseSet<Value> storedHere; // HBM tensors the loop's iterations write
      for (Operation *op : dmas_) { // outputs written at the same place by different iterations
        if (!dmaOf(op)->store || !loop->isAncestor(op)) continue;
        storedHere.insert(dmaOf(op)->tensor);
        std::optional<AffineIndex> row = affineIndexOf(dmaOf(op)->indices[0]),
                                   col = affineIndexOf(dmaOf(op)->indices[1]);
        if (!row || !col || (row->coefficient(loop) == 0 && col->coefficient(loop) == 0)) parallel_[level] = false;
      }
      // A tensor the loop writes and the kernel reads back (an HBM scratch tensor, an output read again): a read
      // may need what another iteration wrote, which a megacore's other TensorCore may run.
      for (Operation *op : dmas_)
        if (!dmaOf(op)->store && storedHere.contains(dmaOf(op)->tensor)) parallel_[level] = false;
    }
  }

  // --- the attributes --------------------------------------------------------------------------------------

  void write() {
    MLIRContext *ctx = fn_.getContext();
    Builder b(ctx);
    fn_.walk([&](scf::ForOp loop) {
      const Form f = formOf(loop);
      loop->setAttr(tile::kPlanLoopAttr,
                    b.getStringAttr(f == Form::Grid ? "grid" : f == Form::Unrolled ? "unrolled" : "loop"));
      if (f != Form::Grid) return;
      const int level = gridLevel(loop);
      loop->setAttr(tile::kPlanGridDimAttr, b.getI64IntegerAttr(level));
      if (parallel_[level]) loop->setAttr(tile::kPlanParallelAttr, b.getUnitAttr());
    });
    for (const auto &[op, block] : blockOf_) op->setAttr(tile::kPlanBlockAttr, b.getI64IntegerAttr(block));
    for (Operation *op : prefetch_) op->setAttr(tile::kPlanPrefetchAttr, b.getUnitAttr());
    for (const auto &[op, storage] : storage_)
      op->setAttr(tile::kPlanStorageAttr, b.getStringAttr(storage == Storage::Value   ? "value"
                                                          : storage == Storage::Block ? "block"
                                                                                      : "scratch"));
    llvm::SmallVector<Attribute> blocks;
    const auto dims = static_cast<unsigned>(chain_.size());
    for (const BlockPlan &g : blocks_) {
      llvm::SmallVector<AffineExpr, 2> index;
      for (int dim = 0; dim < 2; ++dim) {
        AffineExpr e = getAffineConstantExpr(g.origin[dim], ctx);
        for (unsigned level = 0; level < dims; ++level)
          if (int64_t c = g.coef[dim][level]; c != 0) e = e + getAffineDimExpr(level, ctx) * (c / g.shape[dim]);
        index.push_back(e);
      }
      llvm::SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("tensor", b.getI64IntegerAttr(g.tensor)),
          b.getNamedAttr("shape", b.getDenseI64ArrayAttr({g.shape[0], g.shape[1]})),
          b.getNamedAttr("index", AffineMapAttr::get(AffineMap::get(dims, 0, index, ctx)))};
      if (g.output) fields.push_back(b.getNamedAttr("output", b.getUnitAttr()));
      blocks.push_back(b.getDictionaryAttr(fields));
    }
    if (!blocks.empty()) fn_->setAttr(tile::kPlanBlocksAttr, b.getArrayAttr(blocks));
  }

  func::FuncOp fn_;
  const isa::Target &target_;
  const bool grid_;

  std::vector<Access> accesses_; ///< in program order (pre-order)
  llvm::DenseMap<Operation *, llvm::SmallVector<size_t>> accessesOf_;
  std::vector<Operation *> dmas_;
  std::vector<scf::ForOp> chain_; ///< the grid loops, outermost first
  std::map<Operation *, int> level_;
  std::map<Operation *, Form> form_;
  std::vector<BlockPlan> blocks_;
  std::map<Operation *, int64_t> blockOf_;
  std::set<Operation *> prefetch_;
  std::map<Operation *, Storage> storage_;
  std::vector<bool> parallel_;
};

struct PlanPallasPass : PassWrapper<PlanPallasPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlanPallasPass)
  PlanPallasPass() = default;
  PlanPallasPass(const PlanPallasPass &other) : PassWrapper(other) {}
  explicit PlanPallasPass(bool grid) { grid_ = grid; }
  StringRef getArgument() const override { return "tpu-plan-pallas"; }
  StringRef getDescription() const override {
    return "How a placed TPU kernel becomes a Pallas kernel with its loops kept: grid, blocks, loop forms, "
           "prefetches, values (tile::kPlan* attributes)";
  }
  Option<bool> grid_{*this, "grid", llvm::cl::desc("plan a launch grid where the loops allow (else one step)"),
                     llvm::cl::init(true)};

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    if (failed(requireFamily(getOperation(), *target, tpuFamily(), getArgument()))) return signalPassFailure();
    for (auto fn : getOperation().getOps<func::FuncOp>()) Planner(fn, *target, grid_).run();
  }
};

} // namespace

std::unique_ptr<Pass> createPlanPallasPass(bool grid) { return std::make_unique<PlanPallasPass>(grid); }

} // namespace tessera::compiler
