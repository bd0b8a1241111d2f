//===- PallasGrid.cpp - a TPU kernel whose loops are a Pallas grid, as pallas_call with BlockSpecs ---------===//
//
// The grid style, from the kernel's own loops (its traced graph), for kernels shaped like Pallas kernels:
//  - the kernel is one loop nest; the loops from the top down to the first body that computes are the grid's
//    parallel dimensions (bodies above may only load tiles);
//  - that body is one grid step. It may hold one loop that moves tiles: the reduction loop, which becomes the last
//    grid dimension ("arbitrary"), with what comes before it run at its first step (pl.when) and what comes after
//    it at its last; its other loops only compute (Python loops, unrolled as Pallas traces them);
//  - every load and store is a window whose offsets are multiples of its size in the grid's variables: a
//    BlockSpec. The windows a step reads of one tensor at one loop level with the same strides are one block
//    (their bounding box), those it writes of an output must tile one block exactly; each output has one block.
// Pallas then double-buffers the blocks as the simulator's TPU model does (Pipeline: two rotating copies; a
// block whose index does not change between steps is not copied again). A tile only a load writes is read from its
// block directly; an f32 tile one part of the step (the step, its first or last reduction step, the preamble) writes
// whole before it reads it, with no views, is a value (a Python variable, which Mosaic keeps in vregs or spills);
// the others (accumulators across steps, what the preamble leaves for the steps, slices) are VMEM scratch.
// Kernels of other shapes have the manual style.
// Test: compiler/test/Backends/pallas-grid.test (golden text), tests/backends.cmake (interpret mode, TPU export).
//
//===------------------------------------------------------------------------------------------------------===//

#include "PallasGrid.h"

#include "../PythonSource.h"
#include "Jnp.h"
#include "tessera/isa/Target.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <climits>
#include <functional>
#include <map>
#include <set>

namespace tessera::backends {

namespace {

using tsr::graph::Alloc;
using tsr::graph::Block;
using tsr::graph::IndexExpr;
using tsr::graph::KernelGraph;
using tsr::graph::Loop;
using tsr::graph::Op;
using tsr::graph::OpKind;
using tsr::graph::Stmt;

/// An affine index with one coefficient per loop id (terms merged).
struct Affine {
  std::map<int, int64_t> coef;
  int64_t constant = 0;
};

Affine affineOf(const IndexExpr &e) {
  Affine a;
  a.constant = e.constant;
  for (auto [loop, c] : e.terms) a.coef[loop] += c;
  std::erase_if(a.coef, [](const auto &kv) { return kv.second == 0; });
  return a;
}

/// Why a kernel is not a grid: thrown inside the planner, caught by planGrid.
struct NotAGrid {
  std::string why;
};

bool movesTiles(const Block &b);

bool movesTiles(const Stmt &s) {
  if (const Op *op = std::get_if<Op>(&s)) return op->kind == OpKind::Load || op->kind == OpKind::Store;
  if (const Loop *loop = std::get_if<Loop>(&s)) return movesTiles(loop->body);
  return false;
}

bool movesTiles(const Block &b) {
  return std::any_of(b.stmts.begin(), b.stmts.end(), [](const Stmt &s) { return movesTiles(s); });
}

/// Where a statement runs in the grid step.
enum class Phase { Preamble, Outer, Step, Prologue, Reduction, Epilogue };

/// One BlockSpec: the windows one loop level reads of a tensor (or writes of an output) with the same strides.
struct BlockGroup {
  int tensor = -1;
  bool output = false;
  Phase phase = Phase::Step;
  std::array<std::map<int, int64_t>, 2> coef; ///< per dimension: element stride per loop id
  std::array<int64_t, 2> origin{};            ///< the block's first element at all loop variables 0
  std::array<int64_t, 2> shape{};             ///< the block
  std::vector<const Op *> sites;
  std::string ref; ///< the kernel parameter holding the block
};

/// The plan of a grid kernel.
struct GridPlan {
  std::vector<const Loop *> parallel; ///< outermost first
  const Loop *reduction = nullptr;
  const Block *step = nullptr;
  size_t reductionIndex = 0;      ///< position of the reduction loop in step->stmts
  std::vector<BlockGroup> groups; ///< inputs first, then outputs (one per output tensor)
  std::map<const Op *, size_t> groupOf;
  std::set<int> aliased; ///< buffers only a load writes: read from their block
  std::map<int, const Op *> aliasLoad;
  std::vector<int> scratch; ///< buffers that are VMEM scratch, in order of allocation
  std::set<int> values;     ///< buffers that are values: written whole before read, within one part of the step
  bool preamble = false;    ///< the kernel computes before its loops: at the first step, grid sequential
  size_t preambleEnd = 0;   ///< the kernel's statements before its loop nest
};

class Planner {
public:
  /// `target`'s vreg (sublanes x lanes) is the tiling Mosaic asks a block's last two dimensions to divide by.
  Planner(const KernelGraph &g, const isa::Target &target)
      : g_(g), tiling_{static_cast<int64_t>(target.tpu.sublanes), static_cast<int64_t>(target.tpu.lanes)} {}

  GridPlan plan() {
    // What comes before the kernel's loop nest (loads, fills, a broadcast of a weight) is its preamble: run at the
    // first grid step into scratch that lasts the whole grid.
    const Loop *loop = nullptr;
    for (const Stmt &s : g_.body.stmts) {
      if (loop) throw NotAGrid{"the kernel goes on after its loop nest"};
      if (const Loop *l = std::get_if<Loop>(&s)) {
        loop = l;
        continue;
      }
      if (const Op *op = std::get_if<Op>(&s); op && op->kind != OpKind::Load) plan_.preamble = true;
      visit(s, Phase::Preamble);
    }
    if (!loop) throw NotAGrid{"the kernel has no loop"};
    plan_.preambleEnd =
        static_cast<size_t>(std::find_if(g_.body.stmts.begin(), g_.body.stmts.end(),
                                         [](const Stmt &s) { return std::holds_alternative<Loop>(s); }) -
                            g_.body.stmts.begin());
    while (true) {
      plan_.parallel.push_back(loop);
      gridLoops_.insert(loop->id);
      const Loop *inner = onlyLoadsAround(loop->body);
      if (!inner) break;
      for (const Stmt &s : loop->body.stmts)
        if (!std::holds_alternative<Loop>(s)) visit(s, Phase::Outer);
      loop = inner;
    }
    plan_.step = &loop->body;
    std::vector<size_t> moving;
    for (size_t i = 0; i < plan_.step->stmts.size(); ++i)
      if (std::holds_alternative<Loop>(plan_.step->stmts[i]) && movesTiles(plan_.step->stmts[i])) moving.push_back(i);
    if (moving.size() > 1) throw NotAGrid{"a grid step holds more than one loop that moves tiles"};
    if (moving.size() == 1) {
      plan_.reductionIndex = moving[0];
      plan_.reduction = &std::get<Loop>(plan_.step->stmts[moving[0]]);
      gridLoops_.insert(plan_.reduction->id);
      for (const Stmt &s : plan_.reduction->body.stmts)
        if (std::holds_alternative<Loop>(s) && movesTiles(s))
          throw NotAGrid{"the reduction loop holds a loop that moves tiles"};
    }
    for (size_t i = 0; i < plan_.step->stmts.size(); ++i) {
      const Phase phase = !plan_.reduction            ? Phase::Step
                          : i < plan_.reductionIndex  ? Phase::Prologue
                          : i == plan_.reductionIndex ? Phase::Reduction
                                                      : Phase::Epilogue;
      if (phase == Phase::Reduction)
        for (const Stmt &s : plan_.reduction->body.stmts) visit(s, phase);
      else
        visit(plan_.step->stmts[i], phase);
    }
    finishGroups();
    findAliases();
    for (const Op *load : outerLoads_) // its block is the tile; a step that wrote it would change the next step's
      if (!plan_.aliased.count(load->dst)) throw NotAGrid{"a tile loaded above the grid step is written in it"};
    return std::move(plan_);
  }

private:
  /// The loop of `body` when everything else in it is an alloc or a load: a grid level above the step.
  static const Loop *onlyLoadsAround(const Block &body) {
    const Loop *inner = nullptr;
    for (const Stmt &s : body.stmts) {
      if (std::holds_alternative<Alloc>(s)) continue;
      if (const Op *op = std::get_if<Op>(&s)) {
        if (op->kind != OpKind::Load) return nullptr;
        continue;
      }
      if (inner) return nullptr;
      inner = &std::get<Loop>(s);
    }
    return inner;
  }

  void visit(const Stmt &s, Phase phase) {
    if (const Alloc *a = std::get_if<Alloc>(&s)) {
      allocated_.push_back(a->buffer);
      return;
    }
    if (const Loop *loop = std::get_if<Loop>(&s)) { // a loop that only computes
      for (const Stmt &inner : loop->body.stmts) visit(inner, phase);
      return;
    }
    const Op &op = std::get<Op>(s);
    ordered_.push_back({&op, phase});
    switch (op.kind) {
    case OpKind::Load:
    case OpKind::Store:
      addSite(op, phase);
      if (phase == Phase::Outer) outerLoads_.push_back(&op);
      return;
    case OpKind::Matmul:
    case OpKind::Binary:
    case OpKind::Activation:
    case OpKind::Reduce:
    case OpKind::Copy:
    case OpKind::Memset:
    case OpKind::Transpose:
    case OpKind::Print: return;
    case OpKind::Instruction:
    case OpKind::Wait:
    case OpKind::Signal: throw NotAGrid{"it uses tsr::isa instructions (NeuronCore only)"};
    }
    throw NotAGrid{"it uses an op the grid style does not write"}; // a newer op kind: the manual style has it
  }

  /// A load or store joins the block of its tensor, loop level and strides.
  void addSite(const Op &op, Phase phase) {
    const bool store = op.kind == OpKind::Store;
    if (store && phase != Phase::Step && phase != Phase::Epilogue)
      throw NotAGrid{"a tile is stored before or inside the reduction loop"};
    if (op.hbm.offsets.size() != 2) throw NotAGrid{"a window is not 2-D"};
    if (op.hbm.strided()) throw NotAGrid{"a window is strided (a BlockSpec block is contiguous)"};
    std::array<Affine, 2> index = {affineOf(op.hbm.offsets[0]), affineOf(op.hbm.offsets[1])};
    for (const Affine &a : index)
      for (auto [loop, c] : a.coef)
        if (!gridLoops_.count(loop)) throw NotAGrid{"a window moves with a loop that is not a grid dimension"};
    for (BlockGroup &g : groups_)
      if (g.tensor == op.hbm.tensor && g.output == store && g.phase == phase && g.coef[0] == index[0].coef &&
          g.coef[1] == index[1].coef) {
        g.sites.push_back(&op);
        return;
      }
    BlockGroup g;
    g.tensor = op.hbm.tensor;
    g.output = store;
    g.phase = phase;
    g.coef = {index[0].coef, index[1].coef};
    g.sites.push_back(&op);
    groups_.push_back(std::move(g));
  }

  /// Each group's block (the bounding box of its windows), checked to be a BlockSpec.
  void finishGroups() {
    std::set<int> outputs;
    for (BlockGroup &g : groups_) {
      const auto &shape = g_.tensors[g.tensor].shape;
      const std::string &name = g_.tensors[g.tensor].name;
      int64_t area = 0;
      for (int d = 0; d < 2; ++d) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const Op *site : g.sites) {
          const int64_t c = affineOf(site->hbm.offsets[d]).constant;
          lo = std::min(lo, c);
          hi = std::max(hi, c + site->hbm.sizes[d]);
        }
        g.origin[d] = lo;
        g.shape[d] = hi - lo;
        if (g.origin[d] % g.shape[d] != 0)
          throw NotAGrid{
              fmt::format("a block of '{}' starts at element {} of dimension {}, not a multiple of its size {}", name,
                          g.origin[d], d, g.shape[d])};
        for (auto [loop, c] : g.coef[d])
          if (c % g.shape[d] != 0)
            throw NotAGrid{fmt::format("a block of '{}' moves by {} elements along dimension {}, not a multiple of its "
                                       "size {}",
                                       name, c, d, g.shape[d])};
        // Mosaic's block rule: the last two dimensions divisible by the vreg's (sublanes, lanes), or whole.
        const int64_t tiling = tiling_[d];
        if (g.shape[d] % tiling != 0 && g.shape[d] != shape[d])
          throw NotAGrid{fmt::format("a block of '{}' is {} elements along dimension {}: neither a multiple of {} nor "
                                     "the whole dimension",
                                     name, g.shape[d], d, tiling)};
      }
      for (const Op *site : g.sites) area += site->hbm.sizes[0] * site->hbm.sizes[1];
      if (!g.output) continue;
      if (!outputs.insert(g.tensor).second)
        throw NotAGrid{fmt::format("output '{}' is written through more than one block", name)};
      if (area != g.shape[0] * g.shape[1]) // the windows must tile the block, or its rest would be written too
        throw NotAGrid{fmt::format("the windows a step writes of '{}' do not cover its block", name)};
      for (const Loop *loop : plan_.parallel)
        if (!g.coef[0].count(loop->id) && !g.coef[1].count(loop->id))
          throw NotAGrid{fmt::format("every step of one grid dimension writes the same block of '{}'", name)};
    }
    for (size_t t = 0; t < g_.tensors.size(); ++t)
      if (g_.tensors[t].isOutput && !outputs.count(static_cast<int>(t)))
        throw NotAGrid{fmt::format("output '{}' is never stored in a grid step", g_.tensors[t].name)};
    // Inputs first, then outputs: the order of pallas_call's operands.
    std::stable_partition(groups_.begin(), groups_.end(), [](const BlockGroup &g) { return !g.output; });
    for (size_t i = 0; i < groups_.size(); ++i)
      for (const Op *site : groups_[i].sites) plan_.groupOf[site] = i;
    plan_.groups = std::move(groups_);
  }

  /// Buffers that only a load writes are read from the load's block; every other buffer is VMEM scratch.
  void findAliases() {
    std::map<int, std::vector<const Op *>> writers;
    std::function<void(const Block &)> scan = [&](const Block &b) {
      for (const Stmt &s : b.stmts) {
        if (const Loop *loop = std::get_if<Loop>(&s)) scan(loop->body);
        const Op *op = std::get_if<Op>(&s);
        if (!op) continue;
        for (int buffer : {op->dst, op->dst2})
          if (buffer >= 0) writers[root(buffer)].push_back(op);
      }
    };
    scan(g_.body);
    for (int buffer : allocated_) {
      if (g_.buffers[buffer].viewOf >= 0) continue;
      auto it = writers.find(buffer);
      if (it != writers.end() && it->second.size() == 1 && it->second[0]->kind == OpKind::Load &&
          it->second[0]->dst == buffer) {
        plan_.aliased.insert(buffer);
        plan_.aliasLoad[buffer] = it->second[0];
        continue;
      }
      if (isValue(buffer)) {
        plan_.values.insert(buffer);
        continue;
      }
      plan_.scratch.push_back(buffer);
    }
  }

  int root(int buffer) const {
    const int of = g_.buffers[buffer].viewOf;
    return of >= 0 ? of : buffer;
  }

  /// Whether `buffer` can be a value: it has no views, every op that touches it runs in one part of the step (one
  /// Python scope of the kernel), and the first of them writes it whole without reading it.
  bool isValue(int buffer) const {
    // A narrower tile stays scratch: a store into a ref of its dtype rounds on every backend, where a value's
    // conversion there and back is a compiler's to elide (XLA's CPU backend does, as excess precision, unless
    // run.py's exact_cpu_arithmetic forbids it). f16 tiles are f32 in the kernel, rounded by _round_to_f16.
    if (kernelDtype(g_.buffers[buffer].dtype) != isa::DType::F32) return false;
    for (const tsr::graph::Buffer &b : g_.buffers)
      if (b.viewOf == buffer) return false;
    bool first = true;
    Phase scope = Phase::Step;
    for (const auto &[op, phase] : ordered_) {
      const bool reads = std::find(op->srcs.begin(), op->srcs.end(), buffer) != op->srcs.end() ||
                         (op->dst == buffer && (op->accumulate || op->kind == OpKind::FillWhere ||
                                                op->kind == OpKind::Scan));
      const bool writes = op->dst == buffer || op->dst2 == buffer;
      if (!reads && !writes) continue;
      if (first && reads) return false; // its value comes from an earlier step, or is partly kept
      if (!first && phase != scope) return false;
      first = false;
      scope = phase;
    }
    return !first;
  }

  const KernelGraph &g_;
  const std::array<int64_t, 2> tiling_;
  GridPlan plan_;
  std::set<int> gridLoops_;
  std::vector<BlockGroup> groups_;
  std::vector<int> allocated_;
  std::vector<const Op *> outerLoads_;
  std::vector<std::pair<const Op *, Phase>> ordered_; ///< every op the plan visited, in program order
};

class GridEmitter {
public:
  GridEmitter(const KernelSource &k, GridPlan plan) : k_(k), g_(*k.graph), plan_(std::move(plan)) {}

  std::string emit() {
    name();
    header();
    kernel();
    wrapper();
    return out_.text();
  }

private:
  void name() {
    for (size_t i = 0; i < plan_.parallel.size(); ++i)
      loopNames_[plan_.parallel[i]->id] = names_.make(fmt::format("i{}", i));
    if (plan_.reduction) loopNames_[plan_.reduction->id] = names_.make(fmt::format("i{}", plan_.parallel.size()));
    for (const tsr::graph::TensorArg &t : g_.tensors) tensorNames_.push_back(names_.make(t.name));
    std::map<int, int> uses;
    for (BlockGroup &g : plan_.groups) {
      const int n = uses[g.tensor]++;
      g.ref = names_.make(fmt::format("{}_block{}", g_.tensors[g.tensor].name, n == 0 ? "" : std::to_string(n)));
    }
    for (int b : plan_.scratch) bufferNames_[b] = names_.make(g_.buffers[b].name);
    for (int b : plan_.values) bufferNames_[b] = names_.make(g_.buffers[b].name);
    functionName_ = names_.make(k_.kernel);
    kernelName_ = names_.make("_" + k_.kernel + "_kernel");
  }

  void header() {
    moduleDocstring(out_, k_, "kernel",
                    {"Pallas TPU, grid style: the kernel's loops are the grid, each load and store a BlockSpec that "
                     "Pallas",
                     "double-buffers (as the simulator's TPU model does), intermediates values, tiles that last VMEM "
                     "scratch."});
    pallasPreamble(out_, k_);
  }

  /// An index in Python: loop variables by name (grid ones are pl.program_id values).
  std::string index(const IndexExpr &e) {
    const Affine a = affineOf(e);
    std::string text;
    for (auto [loop, c] : a.coef) {
      const std::string var = loopName(loop);
      const std::string term = c == 1 ? var : fmt::format("{} * {}", c, var);
      text += text.empty() ? term : " + " + term;
    }
    if (text.empty()) return std::to_string(a.constant);
    if (a.constant != 0) text += fmt::format(" + {}", a.constant);
    return text;
  }
  static bool constant(const IndexExpr &e) { return affineOf(e).coef.empty(); }

  std::string loopName(int id) {
    auto it = loopNames_.find(id);
    if (it != loopNames_.end()) return it->second;
    return loopNames_[id] = names_.make(fmt::format("j{}", id));
  }

  /// "lo:hi" or pl.ds(start, size) when the start moves with a grid variable.
  std::string slice(const IndexExpr &start, int64_t size) {
    if (constant(start)) {
      const int64_t s = affineOf(start).constant;
      return fmt::format("{}:{}", s, s + size);
    }
    if (usesGridVariable(start)) return fmt::format("pl.ds({}, {})", index(start), size);
    return fmt::format("{}:{} + {}", index(start), index(start), size);
  }
  bool usesGridVariable(const IndexExpr &e) {
    for (auto [loop, c] : affineOf(e).coef)
      if (loop == (plan_.reduction ? plan_.reduction->id : -1) ||
          std::any_of(plan_.parallel.begin(), plan_.parallel.end(), [&](const Loop *l) { return l->id == loop; }))
        return true;
    return false;
  }

  /// A buffer's values as a ref slice: its block (when only a load writes it) or its scratch, through its view.
  std::string ref(int buffer) {
    if (plan_.values.count(buffer)) return bufferNames_.at(buffer);
    const tsr::graph::Buffer &b = g_.buffers[buffer];
    const int rootId = b.viewOf >= 0 ? b.viewOf : buffer;
    std::string base;
    int64_t row = 0, col = 0;
    std::string colStart;
    if (plan_.aliased.count(rootId)) {
      const Op *load = plan_.aliasLoad.at(rootId);
      const BlockGroup &g = plan_.groups[plan_.groupOf.at(load)];
      base = g.ref;
      row = affineOf(load->hbm.offsets[0]).constant - g.origin[0];
      col = affineOf(load->hbm.offsets[1]).constant - g.origin[1];
    } else {
      base = bufferNames_.at(rootId);
    }
    const tsr::graph::Buffer &root = g_.buffers[rootId];
    if (b.viewOf < 0 && !plan_.aliased.count(rootId)) return base + "[...]";
    IndexExpr first = b.viewOf >= 0 ? b.viewOffset : IndexExpr{};
    first.constant += col;
    const bool whole = b.viewOf < 0 && row == 0 && col == 0 && plan_.aliased.count(rootId) &&
                       plan_.groups[plan_.groupOf.at(plan_.aliasLoad.at(rootId))].shape[0] == root.shape[0] &&
                       plan_.groups[plan_.groupOf.at(plan_.aliasLoad.at(rootId))].shape[1] == root.shape[1];
    if (whole) return base + "[...]";
    return fmt::format("{}[{}:{}, {}]", base, row, row + b.shape[0], slice(first, b.shape[1]));
  }

  std::string read(int buffer, bool keepDtype = false) {
    std::string v = ref(buffer);
    if (!keepDtype && kernelDtype(g_.buffers[buffer].dtype) != isa::DType::F32) v += ".astype(jnp.float32)";
    return v;
  }

  void assign(int buffer, const std::string &value) {
    out_.line(fmt::format("{} = {}", ref(buffer), convert(value, g_.buffers[buffer].dtype)));
  }

  void op(const Op &o) {
    if (o.kind == OpKind::Load && plan_.aliased.count(o.dst)) return; // read from its block where used
    const std::string place = placeOf(o.loc);
    if (!place.empty() && place != lastPlace_) out_.line("# " + place);
    lastPlace_ = place;
    switch (o.kind) {
    case OpKind::Load: {
      const BlockGroup &g = plan_.groups[plan_.groupOf.at(&o)];
      const int64_t r = affineOf(o.hbm.offsets[0]).constant - g.origin[0];
      const int64_t c = affineOf(o.hbm.offsets[1]).constant - g.origin[1];
      out_.line(fmt::format("{} = {}[{}:{}, {}:{}]", ref(o.dst), g.ref, r, r + o.hbm.sizes[0], c, c + o.hbm.sizes[1]));
      return;
    }
    case OpKind::Store: {
      const BlockGroup &g = plan_.groups[plan_.groupOf.at(&o)];
      const int64_t r = affineOf(o.hbm.offsets[0]).constant - g.origin[0];
      const int64_t c = affineOf(o.hbm.offsets[1]).constant - g.origin[1];
      const bool whole = r == 0 && c == 0 && o.hbm.sizes[0] == g.shape[0] && o.hbm.sizes[1] == g.shape[1];
      out_.line(fmt::format("{}[{}] = {}", g.ref,
                            whole ? "..." : fmt::format("{}:{}, {}:{}", r, r + o.hbm.sizes[0], c, c + o.hbm.sizes[1]),
                            ref(o.srcs[0])));
      return;
    }
    case OpKind::Matmul: {
      const std::string product =
          fmt::format("jax.lax.dot_general({}, {}, (((0,), (0,)), ((), ())), preferred_element_type=jnp.float32)",
                      read(o.srcs[0], true), read(o.srcs[1], true));
      assign(o.dst, o.accumulate ? fmt::format("{} + {}", read(o.dst), product) : product);
      return;
    }
    case OpKind::Binary: assign(o.dst, binary(o.alu, read(o.srcs[0]), read(o.srcs[1]))); return;
    case OpKind::Activation: { // func(x * scale + bias), and the row sums of those FP32 values before rounding
      std::string x = read(o.srcs[0]);
      if (o.value != 1.0f) x = fmt::format("{} * {}", x, pythonFloat(o.value));
      if (o.srcs.size() > 1) x = fmt::format("{} + {}", x, read(o.srcs[1])); // the [P, 1] bias, broadcast
      std::string y = unary(o.func, o.srcs.size() > 1 || o.value != 1.0f ? "(" + x + ")" : x);
      if (o.dst2 >= 0) {
        const std::string activated = names_.make("activated");
        out_.line(fmt::format("{} = {}", activated, y));
        assign(o.dst2, *reduction(isa::AluOp::Add, activated));
        y = activated;
      }
      assign(o.dst, y);
      return;
    }
    case OpKind::Reduce: {
      std::optional<std::string> r = reduction(o.alu, read(o.srcs[0]));
      if (!r) throw Error(fmt::format("Pallas: a {} reduction has no jnp equivalent", isa::name(o.alu)), o.loc);
      assign(o.dst, *r);
      return;
    }
    case OpKind::Copy: assign(o.dst, read(o.srcs[0])); return;
    case OpKind::Transpose: assign(o.dst, fmt::format("jnp.transpose({})", read(o.srcs[0]))); return;
    case OpKind::Memset: {
      const auto &s = g_.buffers[o.dst].shape;
      assign(o.dst, fmt::format("jnp.full(({}, {}), {}, jnp.float32)", s[0], s[1], pythonFloat(o.value)));
      return;
    }
    case OpKind::Print:
      out_.line(fmt::format("# device_print \"{}\" is not emitted: Pallas TPU prints scalars only", o.text));
      return;
    default: throw Error("Pallas: a tsr::isa instruction is NeuronCore only", o.loc);
    }
  }

  void statement(const Stmt &s) {
    if (const Op *o = std::get_if<Op>(&s)) return op(*o);
    if (const Loop *loop = std::get_if<Loop>(&s)) {
      out_.line(fmt::format("for {} in range({}):", loopName(loop->id), loop->tripCount));
      out_.indent();
      const size_t before = out_.text().size();
      for (const Stmt &inner : loop->body.stmts) statement(inner);
      if (out_.text().size() == before) out_.line("pass");
      out_.dedent();
      lastPlace_.clear();
    }
  }

  /// `pl.when(cond)` around `stmts` of the step.
  void when(const std::string &condition, const std::string &name, size_t first, size_t last) {
    out_.line(fmt::format("@pl.when({})", condition));
    out_.line(fmt::format("def {}():", names_.make(name)));
    out_.indent();
    const size_t before = out_.text().size();
    for (size_t i = first; i < last; ++i) statement(plan_.step->stmts[i]);
    if (out_.text().size() == before) out_.line("pass");
    out_.dedent();
    lastPlace_.clear();
  }

  void kernel() {
    std::vector<std::string> params;
    for (const BlockGroup &g : plan_.groups) params.push_back(g.ref);
    for (int b : plan_.scratch) params.push_back(bufferNames_.at(b));
    out_.line(fmt::format("def {}({}):", kernelName_, fmt::join(params, ", ")));
    out_.indent();
    for (size_t i = 0; i < plan_.parallel.size(); ++i)
      out_.line(fmt::format("{} = pl.program_id({})", loopNames_.at(plan_.parallel[i]->id), i));
    if (plan_.reduction)
      out_.line(fmt::format("{} = pl.program_id({})", loopNames_.at(plan_.reduction->id), plan_.parallel.size()));
    if (plan_.preamble) { // the kernel's own statements before its loops, once, into scratch that lasts
      std::vector<std::string> first;
      for (const auto &[id, name] : loopNames_) first.push_back(fmt::format("({} == 0)", name));
      out_.line(fmt::format("@pl.when({})", fmt::join(first, " & ")));
      out_.line(fmt::format("def {}():", names_.make("_preamble")));
      out_.indent();
      for (size_t i = 0; i < plan_.preambleEnd; ++i) statement(g_.body.stmts[i]);
      out_.dedent();
      lastPlace_.clear();
    }
    if (!plan_.reduction) {
      for (const Stmt &s : plan_.step->stmts) statement(s);
    } else {
      const std::string r = loopNames_.at(plan_.reduction->id);
      when(fmt::format("{} == 0", r), "_first_step", 0, plan_.reductionIndex);
      for (const Stmt &s : plan_.reduction->body.stmts) statement(s);
      when(fmt::format("{} == {}", r, plan_.reduction->tripCount - 1), "_last_step", plan_.reductionIndex + 1,
           plan_.step->stmts.size());
    }
    out_.dedent();
    out_.line();
    out_.line();
  }

  /// A block's index_map: the block index along each dimension from the grid's variables.
  std::string indexMap(const BlockGroup &g) {
    std::vector<std::string> vars;
    std::map<int, std::string> positional;
    for (size_t i = 0; i < plan_.parallel.size(); ++i) positional[plan_.parallel[i]->id] = fmt::format("i{}", i);
    if (plan_.reduction) positional[plan_.reduction->id] = fmt::format("i{}", plan_.parallel.size());
    for (size_t i = 0; i < positional.size(); ++i) vars.push_back(fmt::format("i{}", i));
    std::vector<std::string> dims;
    for (int d = 0; d < 2; ++d) {
      std::string text;
      for (auto [loop, c] : g.coef[d]) {
        const int64_t blocks = c / g.shape[d];
        const std::string term =
            blocks == 1 ? positional.at(loop) : fmt::format("{} * {}", blocks, positional.at(loop));
        text += text.empty() ? term : " + " + term;
      }
      const int64_t origin = g.origin[d] / g.shape[d];
      if (text.empty())
        text = std::to_string(origin);
      else if (origin != 0)
        text += fmt::format(" + {}", origin);
      dims.push_back(text);
    }
    return fmt::format("lambda {}: ({})", fmt::join(vars, ", "), fmt::join(dims, ", "));
  }

  void wrapper() {
    std::vector<std::string> args, inSpecs, outSpecs, outShapes, grid, semantics;
    for (size_t t = 0; t < g_.tensors.size(); ++t)
      if (!g_.tensors[t].isOutput) args.push_back(tensorNames_[t]);
    std::vector<std::string> operands;
    std::vector<isa::DType> outDtypes;
    for (const BlockGroup &g : plan_.groups) {
      const std::string spec = fmt::format("pl.BlockSpec(({}, {}), {})", g.shape[0], g.shape[1], indexMap(g));
      const tsr::graph::TensorArg &t = g_.tensors[g.tensor];
      if (g.output) {
        outSpecs.push_back(spec);
        outShapes.push_back(
            fmt::format("jax.ShapeDtypeStruct({}, {})", pythonShape(t.shape), jnpDtype(kernelDtype(t.dtype))));
        outDtypes.push_back(t.dtype);
      } else {
        inSpecs.push_back(spec);
        operands.push_back(kernelOperand(tensorNames_[g.tensor], t.dtype));
      }
    }
    for (const Loop *l : plan_.parallel) { // a preamble at the first step needs the steps in order: one core
      grid.push_back(std::to_string(l->tripCount));
      semantics.push_back(plan_.preamble ? "pltpu.ARBITRARY" : "pltpu.PARALLEL");
    }
    if (plan_.reduction) {
      grid.push_back(std::to_string(plan_.reduction->tripCount));
      semantics.push_back("pltpu.ARBITRARY");
    }
    auto many = [](const std::vector<std::string> &items) {
      return items.size() == 1 ? items[0] : fmt::format("({})", fmt::join(items, ", "));
    };
    out_.line(fmt::format("def {}({}, *, interpret=False):", functionName_, fmt::join(args, ", ")));
    out_.indent();
    out_.line("\"\"\"interpret: False on a TPU; pltpu.InterpretParams(...) to run on a CPU.\"\"\"");
    const bool convertOutputs = convertsOutputs(outDtypes);
    out_.line(convertOutputs ? "result = pl.pallas_call(" : "return pl.pallas_call(");
    out_.indent();
    out_.line(kernelName_ + ",");
    out_.line(fmt::format("grid=({}{}),", fmt::join(grid, ", "), grid.size() == 1 ? "," : ""));
    out_.line("in_specs=(");
    out_.indent();
    for (const std::string &s : inSpecs) out_.line(s + ",");
    out_.dedent();
    out_.line("),");
    out_.line(fmt::format("out_specs={},", many(outSpecs)));
    out_.line(fmt::format("out_shape={},", many(outShapes)));
    // Mosaic's VMEM: the scratch buffers, and two copies of each block (Pallas double-buffers them).
    uint64_t vmemNeed = 0;
    for (const BlockGroup &g : plan_.groups)
      vmemNeed += 2 * mosaicVmemBytes({g.shape[0], g.shape[1]}, kernelDtype(g_.tensors[g.tensor].dtype));
    for (int b : plan_.scratch) vmemNeed += mosaicVmemBytes(g_.buffers[b].shape, kernelDtype(g_.buffers[b].dtype));
    const std::string vmemLimit = vmemLimitArgument(k_, vmemNeed);
    if (!plan_.scratch.empty()) {
      out_.line("scratch_shapes=(");
      out_.indent();
      for (int b : plan_.scratch) {
        const tsr::graph::Buffer &buffer = g_.buffers[b];
        const std::string place = placeOf(buffer.loc);
        out_.line(fmt::format("pltpu.VMEM(({}, {}), {}),  # {}{}", buffer.shape[0], buffer.shape[1],
                              jnpDtype(kernelDtype(buffer.dtype)), bufferNames_.at(b),
                              place.empty() ? "" : ", " + place));
      }
      out_.dedent();
      out_.line("),");
    }
    if (!vmemLimit.empty()) out_.line(vmemLimitComment(k_, vmemNeed));
    out_.line(fmt::format("compiler_params=pltpu.CompilerParams(dimension_semantics=({}{}){}),",
                          fmt::join(semantics, ", "), semantics.size() == 1 ? "," : "",
                          vmemLimit.empty() ? "" : ", " + vmemLimit));
    if (const std::string cost = costEstimateArgument(k_); !cost.empty()) out_.line(cost + ",");
    out_.line("interpret=interpret,");
    out_.dedent();
    out_.line(fmt::format(")({})", fmt::join(operands, ", ")));
    if (convertOutputs) returnOutputs(out_, outDtypes);
    out_.dedent();
  }

  const KernelSource &k_;
  const KernelGraph &g_;
  GridPlan plan_;
  PythonWriter out_;
  Identifiers names_{
      {"jax", "jnp", "pl", "pltpu", "KERNEL", "TARGET", "INPUTS", "OUTPUTS", "interpret", "result", "_round_to_f16"}};
  std::map<int, std::string> loopNames_, bufferNames_;
  std::vector<std::string> tensorNames_;
  std::string functionName_, kernelName_, lastPlace_;
};

} // namespace

std::optional<std::string> emitPallasGrid(const KernelSource &kernel, std::string &whyNot) {
  if (!kernel.graph || !kernel.target) {
    whyNot = "the kernel's graph and target were not given";
    return std::nullopt;
  }
  try {
    GridPlan plan = Planner(*kernel.graph, *kernel.target).plan();
    return GridEmitter(kernel, std::move(plan)).emit();
  } catch (const NotAGrid &e) {
    whyNot = e.why;
    return std::nullopt;
  }
}

} // namespace tessera::backends
