//===- PallasKernel.cpp - a compiled TPU kernel as a Pallas TPU kernel, its loops kept ---------------------===//
//
// The module follows the plan tpu-plan-pallas made on the compiled kernel's tile function (compiler::TileProgram):
//  - grid loops are pallas_call's grid (pl.program_id). What a grid loop's body holds before the next grid loop
//    runs under pl.when at the first step of the dimensions inside it, what it holds after, at their last; what the
//    kernel holds before (after) its outermost grid loop, at the very first (last) step;
//  - the other loops are pl.loop (the iteration a traced value) or Python loops (unrolled as Pallas traces the
//    kernel, where an offset must be static); a loop of one iteration is its body, its index 0;
//  - a tensor whose windows are blocks is passed through BlockSpecs (an input once per block shape), which Pallas
//    double-buffers; every other tensor stays in HBM (memory_space=pl.ANY), and each of its loads and stores is an
//    async copy with a DMA semaphore of its own (a `copy_*` function of the loop indices makes its descriptor). A
//    copy starts where the kernel has it (a prefetched load one iteration of its pl.loop ahead, into the tile's next
//    rotating copy) and is waited on just before a statement touches its tile or copies the same tensor again, or
//    at the end of the body that started it; a store from a tile with two copies in a pl.loop is waited on at the
//    end of the next iteration, so that it overlaps one iteration's compute;
//  - a tile is a value (a Python variable), the block one load fills (read from the block's ref), or VMEM scratch
//    ((copies, rows, cols) where a pl.loop rotates it).
// Each statement computes in FP32 what its tile op's definition computes, and rounds into its destination.
// Test: compiler/test/Backends/pallas.test, pallas-grid.test (golden text); tests/backends.cmake (interpret mode
// against the simulator, the real TPU compiler).
//
//===------------------------------------------------------------------------------------------------------===//

#include "PallasKernel.h"

#include "../PythonSource.h"
#include "Jnp.h"
#include "tessera/isa/Target.h"
#include "tessera/isa/MatrixShape.h"
#include "tessera/isa/RowRelayout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <variant>

namespace tessera::backends {

namespace {

using compiler::LoopForm;
using compiler::LoopIndex;
using compiler::TileLoop;
using compiler::TileOpKind;
using compiler::TileOpNode;
using compiler::TileOperand;
using compiler::TileProgram;
using compiler::TileStatement;
using compiler::TileStorage;

/// Loop variables written as something else: `j + 1` for the next iteration's copy.
using Substitution = std::map<int32_t, std::string>;

/// `l <cmp> r` as a boolean array, for a comparison `cmp`.
std::string comparison(isa::AluOp cmp, const std::string &l, const std::string &r, const SourceLoc &loc) {
  switch (cmp) {
  case isa::AluOp::IsEqual: return fmt::format("{} == {}", l, r);
  case isa::AluOp::NotEqual: return fmt::format("{} != {}", l, r);
  case isa::AluOp::IsGt: return fmt::format("{} > {}", l, r);
  case isa::AluOp::IsGe: return fmt::format("{} >= {}", l, r);
  case isa::AluOp::IsLt: return fmt::format("{} < {}", l, r);
  case isa::AluOp::IsLe: return fmt::format("{} <= {}", l, r);
  default: throw Error(fmt::format("Pallas: a fill by position compares with {}", isa::name(cmp)), loc);
  }
}

/// What a statement does to tiles and tensors (its loops' bodies included).
struct Effects {
  std::set<int32_t> touched, written; ///< tiles
  std::set<int32_t> loaded, stored;   ///< tensors, through copies of their own
  void add(const Effects &o) {
    touched.insert(o.touched.begin(), o.touched.end());
    written.insert(o.written.begin(), o.written.end());
    loaded.insert(o.loaded.begin(), o.loaded.end());
    stored.insert(o.stored.begin(), o.stored.end());
  }
};

/// A copy started and not yet waited on.
struct Pending {
  bool store = false;
  int32_t tile = -1, tensor = -1;
  std::string wait;  ///< the statement that waits for it
  std::string after; ///< what must follow the wait (a strided load's read out of its staging buffer), or ""
};

/// One Python body being written: the copies it started and has not waited on.
struct Body {
  std::vector<Pending> pending;
};

class PallasKernelWriter {
public:
  PallasKernelWriter(const KernelSource &k, std::string_view style)
      : k_(k), p_(*k.program), prov_(*k.provenance), tp_(*k.tileProgram), style_(style) {}

  std::string emit() {
    analyse();
    name();
    header();
    kernel();
    wrapper();
    return out_.text();
  }

private:
  // --- the plan, read ----------------------------------------------------------------------------------------

  const compiler::TileAllocation &allocationOf(int32_t tile) const {
    return prov_.allocations.at(tp_.tiles.at(tile).allocation);
  }
  isa::DType dtypeOf(int32_t tile) const { return allocationOf(tile).dtype; }
  bool isDma(const TileOpNode &op) const { return op.kind == TileOpKind::Load || op.kind == TileOpKind::Store; }
  bool ownCopy(const TileOpNode &op) const { return isDma(op) && op.block < 0; }
  bool inlined(int32_t loop) const {
    return tp_.loops[loop].form == LoopForm::Unrolled && tp_.loops[loop].trips == 1;
  }
  bool traced(int32_t loop) const { return tp_.loops[loop].form != LoopForm::Unrolled; }
  /// The loop that iterates around loop `loop`'s body (-1: none): a loop of one iteration is its body.
  int32_t iterating(int32_t loop) const {
    while (loop >= 0 && inlined(loop)) loop = tp_.loops[loop].parent;
    return loop;
  }

  void analyse() {
    grid_ = tp_.gridLoops();
    manual_.assign(p_.tensors.size(), true);
    for (const compiler::GridBlock &b : tp_.blocks) manual_[b.tensor] = false;
    for (const TileOpNode &op : tp_.ops)
      if (ownCopy(op)) manual_[op.window.tensor] = true;
    // A tile of a pl.loop that a copy of its own fills or drains keeps its rotating copies (the next iteration's copy
    // overlaps this one's compute); every other tile has one.
    copies_.assign(tp_.tiles.size(), 1);
    for (const TileOpNode &op : tp_.ops) {
      if (!ownCopy(op)) continue;
      const int32_t t = op.kind == TileOpKind::Load ? op.dst->tile : op.srcs[0].tile;
      const int32_t loop = iterating(tp_.tiles[t].loop);
      if (loop >= 0 && tp_.loops[loop].form == LoopForm::Loop && tp_.tiles[t].storage == TileStorage::Scratch)
        copies_[t] = std::max<int64_t>(1, allocationOf(t).bufs);
    }
    std::set<int32_t> dmaWritten; // tiles a copy writes
    for (const TileOpNode &op : tp_.ops) {
      if (op.kind == TileOpKind::Load && op.dst) dmaWritten.insert(op.dst->tile);
      if (op.kind == TileOpKind::Load && ownCopy(op)) loadedByHand_.insert(op.window.tensor);
    }
    effects_.resize(tp_.ops.size());
    for (size_t i = 0; i < tp_.ops.size(); ++i) effects_[i] = effectsOf(tp_.ops[i]);
    loopEffects_.resize(tp_.loops.size());
    for (size_t l = tp_.loops.size(); l-- > 0;) // inner loops come after their parents
      for (const TileStatement &s : tp_.loops[l].body) loopEffects_[l].add(effects(s));
    // Which stores wait one iteration late, and the semaphores of the copies.
    for (size_t i = 0; i < tp_.ops.size(); ++i) {
      const TileOpNode &op = tp_.ops[i];
      if (!ownCopy(op)) continue;
      sites_[static_cast<int32_t>(i)] = siteCount_++;
      if (const compiler::TensorWindow &w = op.window; op.kind == TileOpKind::Load && (w.rowStep != 1 || w.colStep != 1)) {
        const Stage stage{"", (w.rows - 1) * w.rowStep + 1, (w.cols - 1) * w.colStep + 1, dtypeOf(op.dst->tile)};
        auto same = std::find(stages_.begin(), stages_.end(), stage);
        stageOf_[static_cast<int32_t>(i)] = static_cast<size_t>(same - stages_.begin());
        if (same == stages_.end()) stages_.push_back(stage);
      }
      const int32_t tile = op.kind == TileOpKind::Load ? op.dst->tile : op.srcs[0].tile;
      slots_ = std::max(slots_, copies_[tile]);
      if (op.kind != TileOpKind::Store) continue;
      if (waitsLate(static_cast<int32_t>(i), tile, dmaWritten)) lateStores_.insert(static_cast<int32_t>(i));
    }
  }

  /// Whether store `op` from `tile` may be waited on at the end of the next iteration of its pl.loop: the loop's
  /// body allocates the tile with two or more copies, no copy writes the tile, nothing after the store in the body
  /// writes it, and the kernel does not copy from the tensor it stores to.
  bool waitsLate(int32_t op, int32_t tile, const std::set<int32_t> &dmaWritten) {
    const int32_t loop = iterating(parentOf(op));
    if (loop < 0 || tp_.loops[loop].form != LoopForm::Loop || iterating(tp_.tiles[tile].loop) != loop ||
        copies_[tile] < 2 || dmaWritten.count(tile) || loadedByHand_.count(tp_.ops[op].window.tensor))
      return false;
    // Nothing after it in the loop's body (its bodies of one iteration included) writes the tile.
    bool after = false, written = false;
    std::function<void(const std::vector<TileStatement> &)> scan = [&](const std::vector<TileStatement> &body) {
      for (const TileStatement &s : body) {
        if (s.isLoop && inlined(s.index)) {
          scan(tp_.loops[s.index].body);
          continue;
        }
        if (after && effects(s).written.count(tile)) written = true;
        if (!s.isLoop && s.index == op) after = true;
      }
    };
    scan(tp_.loops[loop].body);
    return !written;
  }

  Effects effectsOf(const TileOpNode &op) const {
    Effects e;
    for (const TileOperand &s : op.srcs) e.touched.insert(s.tile);
    for (const std::optional<TileOperand> &d : {op.dst, op.dst2})
      if (d) {
        e.touched.insert(d->tile);
        e.written.insert(d->tile);
      }
    if (ownCopy(op)) (op.kind == TileOpKind::Load ? e.loaded : e.stored).insert(op.window.tensor);
    return e;
  }
  const Effects &effects(const TileStatement &s) const {
    return s.isLoop ? loopEffects_[s.index] : effects_[s.index];
  }

  /// The loop whose body holds op `op` directly (-1: the kernel's body).
  int32_t parentOf(int32_t op) {
    if (parent_.empty()) {
      parent_.assign(tp_.ops.size(), -1);
      for (size_t l = 0; l < tp_.loops.size(); ++l)
        for (const TileStatement &s : tp_.loops[l].body)
          if (!s.isLoop) parent_[s.index] = static_cast<int32_t>(l);
    }
    return parent_[op];
  }

  // --- names -----------------------------------------------------------------------------------------------

  void name() {
    for (size_t d = 0; d < grid_.size(); ++d) loopNames_[grid_[d]] = names_.make(fmt::format("i{}", d));
    int next = 0;
    for (size_t l = 0; l < tp_.loops.size(); ++l)
      if (!loopNames_.count(static_cast<int32_t>(l)))
        loopNames_[static_cast<int32_t>(l)] = names_.make(fmt::format("j{}", next++));
    for (size_t t = 0; t < p_.tensors.size(); ++t) tensorNames_.push_back(names_.make(p_.tensors[t].name));
    std::map<int32_t, int> uses;
    for (const compiler::GridBlock &b : tp_.blocks) {
      const int n = uses[b.tensor]++;
      blockNames_.push_back(names_.make(
          fmt::format("{}_block{}", p_.tensors[b.tensor].name, n == 0 ? "" : std::to_string(n))));
    }
    for (size_t t = 0; t < tp_.tiles.size(); ++t) tileNames_.push_back(names_.make(allocationOf(t).name));
    for (const auto &[op, site] : sites_) {
      const TileOpNode &o = tp_.ops[op];
      copyNames_[op] = names_.make(fmt::format("{}_{}", o.kind == TileOpKind::Load ? "load" : "store",
                                               p_.tensors[o.window.tensor].name));
    }
    for (size_t i = 0; i < stages_.size(); ++i) stages_[i].name = names_.make(fmt::format("stage{}", i));
    semaphores_ = names_.make("dma_semaphores");
    functionName_ = names_.make(k_.kernel);
    kernelName_ = names_.make("_" + k_.kernel + "_kernel");
  }

  // --- indices ---------------------------------------------------------------------------------------------

  /// `e` with what the kernel knows when traced folded in: a one-iteration loop's index is 0, and a floor of a
  /// constant is a constant.
  LoopIndex settled(const LoopIndex &e) const {
    LoopIndex r = e.without([&](int32_t loop) { return inlined(loop); });
    r.floors.clear();
    for (LoopIndex::Floor f : e.floors) {
      std::erase_if(f.terms, [&](const auto &t) { return inlined(t.first); });
      if (!f.terms.empty()) {
        r.floors.push_back(std::move(f));
        continue;
      }
      const int64_t q = f.constant / f.divisor - (f.constant % f.divisor != 0 && f.constant < 0 ? 1 : 0);
      r.constant += f.coefficient * q;
    }
    return r;
  }

  /// `e` in Python: loop variables by name (or as `subst` writes them), a one-iteration loop's as 0.
  std::string index(const LoopIndex &e, const Substitution &subst = {}) const {
    const LoopIndex r = settled(e);
    std::string text;
    auto add = [&](int64_t c, std::string var) {
      if (var.find(' ') != std::string::npos && c != 1 && var.front() != '(') var = "(" + var + ")";
      const int64_t magnitude = std::abs(c);
      const std::string term = magnitude == 1 ? var : fmt::format("{} * {}", magnitude, var);
      if (text.empty())
        text = c < 0 ? "-" + term : term;
      else
        text += (c < 0 ? " - " : " + ") + term;
    };
    for (const auto &[loop, c] : r.terms) {
      auto s = subst.find(loop);
      add(c, s != subst.end() ? s->second : loopNames_.at(loop));
    }
    for (const LoopIndex::Floor &f : r.floors) { // Python's // floors, as the compiler's floordivsi does
      const LoopIndex numerator{f.terms, f.constant, {}};
      // A traced numerator that is never negative: jax.lax.div, which truncates (the same there) and which Mosaic
      // lowers to one division, where jnp's // corrects the sign of negative quotients (lowered with a sign rule
      // that needs a TPU to ask which generation it is on, so that a deviceless compile fails).
      if (isTraced(numerator) && leastValue(numerator) >= 0)
        add(f.coefficient, fmt::format("jax.lax.div({}, {})", index(numerator, subst), f.divisor));
      else
        add(f.coefficient, fmt::format("(({}) // {})", index(numerator, subst), f.divisor));
    }
    if (text.empty()) return std::to_string(r.constant);
    if (r.constant > 0) text += fmt::format(" + {}", r.constant);
    if (r.constant < 0) text += fmt::format(" - {}", -r.constant);
    return text;
  }

  /// The least value an affine `e` takes over its loops' iterations.
  int64_t leastValue(const LoopIndex &e) const {
    int64_t least = e.constant;
    for (const auto &[loop, c] : e.terms) least += std::min<int64_t>(0, c * (tp_.loops[loop].trips - 1));
    return least;
  }

  /// Whether `e` varies within the kernel at all (a term of a loop that is not one iteration).
  bool varies(const LoopIndex &e) const { return !settled(e).isConstant(); }
  bool isZero(const LoopIndex &e) const { return !varies(e) && settled(e).constant == 0; }
  /// Whether `e` is a traced value (a grid or pl.loop index in it), not a Python int.
  bool isTraced(const LoopIndex &e) const {
    const LoopIndex r = settled(e);
    auto tracedTerm = [&](const auto &t) { return traced(t.first); };
    return std::any_of(r.terms.begin(), r.terms.end(), tracedTerm) ||
           std::any_of(r.floors.begin(), r.floors.end(), [&](const LoopIndex::Floor &f) {
             return std::any_of(f.terms.begin(), f.terms.end(), tracedTerm);
           });
  }
  /// The largest power of two (up to 1024) that divides every term and the constant of `e`.
  int64_t alignment(const LoopIndex &e) const {
    const LoopIndex r = settled(e);
    int64_t g = std::abs(r.constant);
    for (const auto &[loop, c] : r.terms) g = std::gcd(g, std::abs(c));
    for (const LoopIndex::Floor &f : r.floors) g = std::gcd(g, std::abs(f.coefficient));
    int64_t a = 1;
    while (a < 1024 && (g == 0 || g % (a * 2) == 0)) a *= 2;
    return a;
  }

  /// `lo:hi`, or pl.ds(start, size) where the start moves (with pl.multiple_of where it is traced, which Mosaic needs
  /// to prove an offset aligned).
  std::string slice(const LoopIndex &start, int64_t size, const Substitution &subst = {}) const {
    if (!varies(start)) {
      const int64_t first = settled(start).constant;
      return fmt::format("{}:{}", first, first + size);
    }
    std::string s = index(start, subst);
    if (const int64_t a = alignment(start); isTraced(start) && a > 1) s = fmt::format("pl.multiple_of({}, {})", s, a);
    return fmt::format("pl.ds({}, {})", s, size);
  }

  // --- tile operands ---------------------------------------------------------------------------------------

  /// The copy of `tile` in use, for a tile a pl.loop rotates: "j1 % 2" (as `subst` writes the loop's index).
  std::string copyIndex(int32_t tile, const Substitution &subst = {}) const {
    const int32_t loop = iterating(tp_.tiles[tile].loop);
    auto s = subst.find(loop);
    if (s == subst.end()) return fmt::format("{} % {}", loopNames_.at(loop), copies_[tile]);
    if (std::all_of(s->second.begin(), s->second.end(), [](char c) { return std::isdigit(c); }))
      return std::to_string(std::stoll(s->second) % copies_[tile]);
    return fmt::format("({}) % {}", s->second, copies_[tile]);
  }

  /// The block a Block tile is read from, and where in it the tile starts.
  struct InBlock {
    std::string ref;
    LoopIndex row, col;
  };
  InBlock inBlock(const compiler::TensorWindow &w, int32_t block) const {
    const compiler::GridBlock &b = tp_.blocks[block];
    auto isGrid = [&](int32_t loop) { return tp_.loops[loop].form == LoopForm::Grid; };
    InBlock r{blockNames_[block], w.row.without(isGrid), w.col.without(isGrid)};
    r.row.constant -= b.index[0].constant * b.shape[0];
    r.col.constant -= b.index[1].constant * b.shape[1];
    return r;
  }

  /// `base` and the index of operand `o` (rows, columns, and the copy of a rotated tile): `name[idx]` reads it,
  /// `name.at[idx]` is its ref for a copy. An empty index: the whole of a value.
  std::pair<std::string, std::string> refOf(const TileOperand &o, const Substitution &subst = {},
                                            const std::string &slot = {}) const {
    const compiler::TileBuffer &t = tp_.tiles[o.tile];
    const compiler::TileAllocation &a = allocationOf(o.tile);
    const bool allRows = o.row == 0 && o.rows == a.rows, allCols = isZero(o.col) && o.cols == a.cols;
    const bool whole = allRows && allCols;
    const std::string rows = allRows ? ":" : fmt::format("{}:{}", o.row, o.row + o.rows);
    const std::string cols = allCols ? ":" : slice(o.col, o.cols, subst);
    if (t.storage == TileStorage::Value)
      return {tileNames_[o.tile], whole ? "" : fmt::format("{}, {}", rows, cols)};
    if (t.storage == TileStorage::Block) {
      const TileOpNode &copy = tp_.ops[t.blockOp];
      const InBlock b = inBlock(copy.window, copy.block);
      const compiler::GridBlock &block = tp_.blocks[copy.block];
      if (isZero(b.row) && isZero(b.col) && whole &&
          block.shape[0] == a.rows && block.shape[1] == a.cols)
        return {b.ref, "..."};
      return {b.ref, fmt::format("{}, {}", slice(b.row + LoopIndex{{}, o.row}, o.rows, subst),
                                 slice(b.col + o.col, o.cols, subst))};
    }
    if (copies_[o.tile] > 1) {
      const std::string copy = slot.empty() ? copyIndex(o.tile, subst) : slot;
      return {tileNames_[o.tile], whole ? copy : fmt::format("{}, {}, {}", copy, rows, cols)};
    }
    return {tileNames_[o.tile], whole ? "..." : fmt::format("{}, {}", rows, cols)};
  }

  /// The operand's values, in FP32 unless `keepDtype`; an access pattern's in its order (relayout below).
  std::string read(const TileOperand &o, bool keepDtype = false) const {
    if (!o.pattern.empty()) {
      const isa::RowRelayout r = relayoutOf(o);
      const std::string window = read(windowOf(o, r), keepDtype);
      return r.isWindow() ? window : window + walkInOrder(o, r);
    }
    auto [base, idx] = refOf(o);
    std::string v = idx.empty() ? base : fmt::format("{}[{}]", base, idx);
    if (!keepDtype && kernelDtype(dtypeOf(o.tile)) != isa::DType::F32) v += ".astype(jnp.float32)";
    return v;
  }

  /// `o = value` (FP32), rounded into o's dtype; into an access pattern, the value put back in the row's order.
  void assign(const TileOperand &o, const std::string &value) {
    if (!o.pattern.empty()) {
      const isa::RowRelayout r = relayoutOf(o);
      if (!r.isPermutation()) // tile-legalize-for-tpu refuses these at the kernel's line
        throw Error("Pallas: a copy into an access pattern that does not walk a whole window of its row", here_);
      assign(windowOf(o, r), r.isWindow() ? value : postfixOperand(value) + putBackInRowOrder(o, r));
      return;
    }
    auto [base, idx] = refOf(o);
    if (idx.empty()) {
      out_.line(fmt::format("{} = {}", base, value));
      return;
    }
    out_.line(fmt::format("{}[{}] = {}", base, idx, convert(value, dtypeOf(o.tile))));
  }

  // --- access patterns: a relayout of a window of the row (isa/RowRelayout.h) ------------------------------

  /// The relayout of access-pattern operand `o`; tile-legalize-for-tpu has refused a pattern without one.
  isa::RowRelayout relayoutOf(const TileOperand &o) const {
    if (!o.col.isAffine()) throw Error("Pallas: an access pattern's offset is not affine in its loops", here_);
    isa::MovingOffset offset{o.col.constant, {}};
    for (const auto &[loop, c] : o.col.terms) offset.terms.push_back({c, tp_.loops[loop].trips});
    auto r = isa::rowRelayout(o.pattern, offset, allocationOf(o.tile).cols);
    if (auto *no = std::get_if<isa::RelayoutRefusal>(&r)) throw Error("Pallas: an access pattern " + no->why, here_);
    return std::get<isa::RowRelayout>(std::move(r));
  }

  /// `moves` of a relayout (terms of o.col's loops) plus `constant`, as an index.
  static LoopIndex movedBy(const TileOperand &o, const std::vector<std::pair<std::size_t, int64_t>> &moves,
                           int64_t constant) {
    LoopIndex e{{}, constant, {}};
    for (const auto &[term, multiplier] : moves) e.terms.push_back({o.col.terms[term].first, multiplier});
    return e;
  }

  /// The window of `o`'s rows that its pattern walks, as a plain operand.
  static TileOperand windowOf(const TileOperand &o, const isa::RowRelayout &r) {
    TileOperand w = o;
    w.pattern.clear();
    w.col = movedBy(o, r.startMoves, r.start);
    w.cols = r.span();
    return w;
  }

  /// A box index of the relayout (a Python int, or an int expression of unrolled loops).
  std::string boxIndex(const TileOperand &o, const isa::RowRelayout::Dim &d, int64_t offset) const {
    const LoopIndex e = movedBy(o, d.moves, d.first + offset);
    if (isTraced(e))
      throw Error("Pallas: an access pattern's offset moves with a loop Pallas traces; its walk there needs a "
                  "static index", here_);
    return index(e);
  }

  /// The suffix that makes a [rows, span] window the pattern's [rows, cols] values: reshaped into the box, indexed,
  /// transposed into the pattern's order (as Mosaic compiles it: docs/dsl.md, "Access patterns").
  std::string walkInOrder(const TileOperand &o, const isa::RowRelayout &r) const {
    std::vector<std::string> sizes{std::to_string(o.rows)}, indices{":"};
    std::vector<int64_t> axisOf(r.box.size(), -1); // the axis of each walked box dimension after the index
    int64_t axes = 1;
    for (std::size_t b = 0; b < r.box.size(); ++b) {
      const isa::RowRelayout::Dim &d = r.box[b];
      sizes.push_back(std::to_string(d.size));
      if (d.count == 0) {
        indices.push_back(boxIndex(o, d, 0));
        continue;
      }
      axisOf[b] = axes++;
      const bool all = d.first == 0 && d.count == d.size && d.moves.empty();
      indices.push_back(all ? ":" : fmt::format("{}:{}", boxIndex(o, d, 0), boxIndex(o, d, d.count)));
    }
    std::string v = fmt::format(".reshape({})", fmt::join(sizes, ", "));
    if (std::any_of(indices.begin(), indices.end(), [](const std::string &i) { return i != ":"; }))
      v += fmt::format("[{}]", fmt::join(indices, ", "));
    std::vector<int64_t> order{0};
    for (std::size_t b : r.walk) order.push_back(axisOf[b]);
    if (!std::is_sorted(order.begin(), order.end())) v += fmt::format(".transpose({})", fmt::join(order, ", "));
    if (r.walk.size() > 1) v += fmt::format(".reshape({}, {})", o.rows, o.cols);
    return v;
  }

  /// The suffix that puts a pattern's [rows, cols] values (a permutation of its window) back in the row's order.
  std::string putBackInRowOrder(const TileOperand &o, const isa::RowRelayout &r) const {
    std::vector<int64_t> counts{o.rows}, order(r.box.size() + 1, 0);
    for (std::size_t d = 0; d < r.walk.size(); ++d) {
      counts.push_back(r.box[r.walk[d]].count);
      order[r.walk[d] + 1] = static_cast<int64_t>(d + 1);
    }
    return fmt::format(".reshape({}).transpose({}).reshape({}, {})", fmt::join(counts, ", "),
                       fmt::join(order, ", "), o.rows, r.span());
  }

  // --- copies of their own ---------------------------------------------------------------------------------

  /// The loops a copy's descriptor moves with (its windows and tile offsets), in loop order.
  std::vector<int32_t> copyLoops(const TileOpNode &op) const {
    std::set<int32_t> loops;
    const TileOperand &tile = op.kind == TileOpKind::Load ? *op.dst : op.srcs[0];
    for (const LoopIndex *e : {&op.window.row, &op.window.col, &tile.col}) {
      for (const auto &[loop, c] : e->terms)
        if (!inlined(loop)) loops.insert(loop);
      for (const LoopIndex::Floor &f : e->floors)
        for (const auto &[loop, c] : f.terms)
          if (!inlined(loop)) loops.insert(loop);
    }
    return {loops.begin(), loops.end()};
  }

  /// `copy_x(j0, j1 + 1, slot)`: the descriptor of copy `op` at the iteration `subst` says.
  std::string copyCall(int32_t op, const Substitution &subst = {}) const {
    const TileOpNode &o = tp_.ops[op];
    std::vector<std::string> args;
    for (int32_t loop : copyLoops(o)) {
      auto s = subst.find(loop);
      args.push_back(s != subst.end() ? s->second : loopNames_.at(loop));
    }
    const int32_t tile = o.kind == TileOpKind::Load ? o.dst->tile : o.srcs[0].tile;
    if (copies_[tile] > 1) args.push_back(copyIndex(tile, subst));
    return fmt::format("{}({})", copyNames_.at(op), fmt::join(args, ", "));
  }

  /// The function that makes copy `op`'s descriptor, from its loops' indices (and the tile's copy).
  void copyFunction(int32_t op) {
    const TileOpNode &o = tp_.ops[op];
    std::vector<std::string> params;
    for (int32_t loop : copyLoops(o)) params.push_back(loopNames_.at(loop));
    const TileOperand &tile = o.kind == TileOpKind::Load ? *o.dst : o.srcs[0];
    const bool rotated = copies_[tile.tile] > 1;
    if (rotated) params.push_back("slot");
    const compiler::TensorWindow &w = o.window;
    const bool strided = w.rowStep != 1 || w.colStep != 1;
    if (strided && o.kind == TileOpKind::Store)
      throw Error("Pallas: a strided window of an HBM tensor is written: Mosaic copies only whole windows, and "
                  "writing the window around it would overwrite the elements between",
                  o.loc, "store whole (unstrided) windows of the output");
    const int64_t rowSpan = (w.rows - 1) * w.rowStep + 1, colSpan = (w.cols - 1) * w.colStep + 1;
    const std::string hbm =
        fmt::format("{}.at[{}, {}]", tensorNames_[w.tensor], slice(w.row, rowSpan), slice(w.col, colSpan));
    auto [base, idx] = refOf(tile, {}, rotated ? "slot" : "");
    std::string vmem = idx.empty() ? base : fmt::format("{}.at[{}]", base, idx);
    if (strided) vmem = stages_[stageOf_.at(op)].name + ".at[...]"; // the window around it, read after the wait
    const std::string sem = fmt::format("{}.at[{}, {}]", semaphores_, sites_.at(op), rotated ? "slot" : "0");
    const std::string place = placeOf(o.loc);
    out_.line(fmt::format("def {}({}):{}", copyNames_.at(op), fmt::join(params, ", "),
                          place.empty() ? "" : "  # " + place));
    out_.indent();
    out_.line(fmt::format("return pltpu.make_async_copy({}, {}, {})", o.kind == TileOpKind::Load ? hbm : vmem,
                          o.kind == TileOpKind::Load ? vmem : hbm, sem));
    out_.dedent();
  }

  /// After a strided load's copy of the window around it: its elements, every rowStep-th row and colStep-th
  /// column, from the staging buffer into the tile ("" for a load that is not strided). A step of 0 (a broadcast)
  /// reads the one row or column the copy brought and jnp.broadcast_to repeats it, as a Pallas author writes it.
  std::string stagedRead(int32_t op) const {
    auto stage = stageOf_.find(op);
    if (stage == stageOf_.end()) return "";
    const TileOpNode &o = tp_.ops[op];
    const compiler::TensorWindow &w = o.window;
    auto [base, idx] = refOf(*o.dst);
    auto along = [](int64_t n, int64_t step) {
      if (step == 0) return std::string("0:1");
      return step == 1 ? fmt::format("0:{}", n) : fmt::format("pl.ds(0, {}, {})", n, step);
    };
    std::string value =
        fmt::format("{}[{}, {}]", stages_[stage->second].name, along(w.rows, w.rowStep), along(w.cols, w.colStep));
    if (w.rowStep == 0 || w.colStep == 0) value = fmt::format("jnp.broadcast_to({}, ({}, {}))", value, w.rows, w.cols);
    return fmt::format("{}[{}] = {}", base, idx, value);
  }

  /// Waits for the copies statement `s` must not overtake: loads into tiles it touches, stores from tiles it
  /// writes, and stores to a tensor it copies from (or, for a tensor the kernel also loads, copies to).
  void waitBefore(const Effects &e, Body &body) {
    auto needs = [&](const Pending &p) {
      if (!p.store) return e.touched.count(p.tile) != 0;
      return e.written.count(p.tile) || e.loaded.count(p.tensor) ||
             (loadedByHand_.count(p.tensor) && e.stored.count(p.tensor));
    };
    std::vector<Pending> kept;
    for (Pending &p : body.pending) {
      if (needs(p))
        waitFor(p);
      else
        kept.push_back(std::move(p));
    }
    body.pending = std::move(kept);
  }

  void drain(Body &body) {
    for (const Pending &p : body.pending) waitFor(p);
    body.pending.clear();
  }

  void waitFor(const Pending &p) {
    out_.line(p.wait);
    if (!p.after.empty()) out_.line(p.after);
  }

  // --- statements ------------------------------------------------------------------------------------------

  /// Where in `list` each of its loads of their own may start: before the first statement after which nothing
  /// before the load touches its tile or stores to its tensor (as the simulated DMA queues start a copy as soon as
  /// what it waits for is done). Prefetched loads start an iteration ahead instead.
  std::map<size_t, std::vector<int32_t>> earliestStarts(const std::vector<TileStatement> &list) const {
    std::map<size_t, std::vector<int32_t>> starts;
    for (size_t i = 0; i < list.size(); ++i) {
      const TileStatement &s = list[i];
      if (s.isLoop || !ownCopy(tp_.ops[s.index]) || tp_.ops[s.index].kind != TileOpKind::Load ||
          tp_.ops[s.index].prefetch || stageOf_.count(s.index))
        continue;
      const TileOpNode &load = tp_.ops[s.index];
      size_t at = i;
      while (at > 0) {
        const Effects &e = effects(list[at - 1]);
        if (e.touched.count(load.dst->tile) || e.stored.count(load.window.tensor)) break;
        --at;
      }
      starts[at].push_back(s.index);
    }
    return starts;
  }

  /// `list` with the bodies of its loops of one iteration in their place (one Python body, their index 0).
  std::vector<TileStatement> flattened(const std::vector<TileStatement> &list) const {
    std::vector<TileStatement> flat;
    for (const TileStatement &s : list) {
      if (!s.isLoop || !inlined(s.index)) {
        flat.push_back(s);
        continue;
      }
      std::vector<TileStatement> inner = flattened(tp_.loops[s.index].body);
      flat.insert(flat.end(), inner.begin(), inner.end());
    }
    return flat;
  }

  void statements(const std::vector<TileStatement> &body0, Body &body) {
    const std::vector<TileStatement> list = flattened(body0);
    const std::map<size_t, std::vector<int32_t>> starts = earliestStarts(list);
    std::set<int32_t> started;
    for (size_t i = 0; i < list.size(); ++i) {
      const TileStatement &s = list[i];
      if (auto it = starts.find(i); it != starts.end())
        for (int32_t load : it->second) {
          waitBefore(effects_[load], body);
          startLoad(load, body);
          started.insert(load);
        }
      if (silent(s) || (!s.isLoop && started.count(s.index))) continue;
      waitBefore(effects(s), body);
      if (s.isLoop)
        loop(s.index, body);
      else
        op(s.index, body);
    }
  }

  /// Starts load `at`, a copy of its own, and leaves it pending; a strided load (whose staging buffer other loads
  /// share) is waited on and read out at once.
  void startLoad(int32_t at, Body &body) {
    const TileOpNode &o = tp_.ops[at];
    comment(o.loc);
    out_.line(copyCall(at) + ".start()");
    const Pending p{false, o.dst->tile, o.window.tensor, copyCall(at) + ".wait()", stagedRead(at)};
    if (stageOf_.count(at))
      waitFor(p);
    else
      body.pending.push_back(p);
  }

  void comment(const SourceLoc &loc) {
    const std::string place = placeOf(loc);
    if (!place.empty() && place != lastPlace_) out_.line("# " + place);
    lastPlace_ = place;
  }

  /// A new Python body (a function or a Python loop's), written by `write`, which waits for what it started.
  template <class F> void scope(F write) {
    out_.indent();
    const size_t before = out_.text().size();
    Body inner;
    write(inner);
    drain(inner);
    if (out_.text().size() == before) out_.line("pass");
    out_.dedent();
    lastPlace_.clear();
  }

  void loop(int32_t index, Body &body) {
    const TileLoop &l = tp_.loops[index];
    const std::string &var = loopNames_.at(index);
    if (l.form == LoopForm::Unrolled) {
      out_.line(fmt::format("for {} in range({}):", var, l.trips));
      scope([&](Body &inner) { statements(l.body, inner); });
      return;
    }
    std::vector<int32_t> prefetched, late; // in the body, its loops of one iteration included
    std::function<void(const std::vector<TileStatement> &)> scan = [&](const std::vector<TileStatement> &body) {
      for (const TileStatement &s : body) {
        if (s.isLoop) {
          if (inlined(s.index)) scan(tp_.loops[s.index].body);
          continue;
        }
        if (tp_.ops[s.index].prefetch && ownCopy(tp_.ops[s.index])) prefetched.push_back(s.index);
        if (lateStores_.count(s.index)) late.push_back(s.index);
      }
    };
    scan(l.body);
    for (int32_t op : prefetched) out_.line(copyCall(op, {{index, "0"}}) + ".start()");
    out_.line(fmt::format("@pl.loop(0, {})", l.trips));
    out_.line(fmt::format("def _({}):", var));
    scope([&](Body &inner) {
      if (!prefetched.empty()) {
        out_.line(fmt::format("@pl.when({} + 1 < {})", var, l.trips));
        out_.line("def _():");
        out_.indent();
        for (int32_t op : prefetched) out_.line(copyCall(op, {{index, var + " + 1"}}) + ".start()");
        out_.dedent();
      }
      for (int32_t op : prefetched)
        inner.pending.push_back({false, tp_.ops[op].dst->tile, tp_.ops[op].window.tensor, copyCall(op) + ".wait()", ""});
      statements(l.body, inner);
      if (!late.empty()) { // the stores of the iteration before, whose tiles the next iteration writes
        out_.line(fmt::format("@pl.when({} > 0)", var));
        out_.line("def _():");
        out_.indent();
        for (int32_t op : late) out_.line(copyCall(op, {{index, var + " - 1"}}) + ".wait()");
        out_.dedent();
      }
    });
    for (int32_t op : late) out_.line(copyCall(op, {{index, std::to_string(l.trips - 1)}}) + ".wait()");
  }

  /// Whether statement `s` writes nothing: loads and stores that only name a block (their tile is read or computed
  /// there), prefetched loads (started an iteration ahead), or a loop of only such.
  bool silent(const TileStatement &s) const {
    if (s.isLoop)
      return std::all_of(tp_.loops[s.index].body.begin(), tp_.loops[s.index].body.end(),
                         [&](const TileStatement &inner) { return silent(inner); });
    const TileOpNode &o = tp_.ops[s.index];
    auto livesInItsBlock = [&](int32_t tile) {
      return tp_.tiles[tile].storage == TileStorage::Block && tp_.tiles[tile].blockOp == s.index;
    };
    if (o.kind == TileOpKind::Store) return o.block >= 0 && livesInItsBlock(o.srcs[0].tile);
    return o.kind == TileOpKind::Load && ((o.block >= 0 && livesInItsBlock(o.dst->tile)) || (o.prefetch && o.block < 0));
  }

  void op(int32_t at, Body &body) {
    const TileOpNode &o = tp_.ops[at];
    here_ = o.loc;
    comment(o.loc);
    switch (o.kind) {
    case TileOpKind::Load:
      if (o.block >= 0) {
        const InBlock b = inBlock(o.window, o.block);
        auto [base, idx] = refOf(*o.dst);
        out_.line(fmt::format("{}[{}] = {}[{}, {}]", base, idx, b.ref, slice(b.row, o.window.rows),
                              slice(b.col, o.window.cols)));
        return;
      }
      startLoad(at, body);
      return;
    case TileOpKind::Store:
      if (o.block >= 0) {
        const InBlock b = inBlock(o.window, o.block);
        const compiler::GridBlock &block = tp_.blocks[o.block];
        const bool whole = isZero(b.row) && isZero(b.col) &&
                           o.window.rows == block.shape[0] && o.window.cols == block.shape[1];
        out_.line(fmt::format("{}[{}] = {}", b.ref,
                              whole ? "..." : fmt::format("{}, {}", slice(b.row, o.window.rows),
                                                          slice(b.col, o.window.cols)),
                              read(o.srcs[0], true)));
        return;
      }
      out_.line(copyCall(at) + ".start()");
      if (!lateStores_.count(at))
        body.pending.push_back({true, o.srcs[0].tile, o.window.tensor, copyCall(at) + ".wait()", ""});
      return;
    case TileOpKind::Matmul: {
      const std::string product =
          fmt::format("jax.lax.dot_general({}, {}, (((0,), (0,)), ((), ())), preferred_element_type=jnp.float32)",
                      read(o.srcs[0], true), read(o.srcs[1], true));
      assign(*o.dst, o.accumulate ? fmt::format("{} + {}", read(*o.dst), product) : product);
      return;
    }
    case TileOpKind::Binary: {
      std::string value = binary(o.alu, read(o.srcs[0]), read(o.srcs[1]));
      const int64_t rows = allocationOf(o.dst->tile).rows;
      if (o.srcs[0].cols == 1 && o.srcs[1].cols == 1 && o.dst->cols > 1) // two columns, broadcast into a tile
        value = fmt::format("jnp.broadcast_to({}, ({}, {}))", value, rows, o.dst->cols);
      assign(*o.dst, value);
      return;
    }
    case TileOpKind::BinaryScalar: { // a number in the kernel: a Python float, as a Pallas author writes it
      const std::string x = read(o.srcs[0]), c = pythonFloat(o.value);
      assign(*o.dst, o.reverse ? binary(o.alu, c, x) : binary(o.alu, x, c));
      return;
    }
    case TileOpKind::Activation: { // func(x * scale + bias), and the row sums of those FP32 values
      std::string x = read(o.srcs[0]);
      if (o.value != 1.0f) x = fmt::format("{} * {}", x, pythonFloat(o.value));
      if (o.srcs.size() > 1) x = fmt::format("{} + {}", x, read(o.srcs[1]));
      std::string y = unary(o.func, o.srcs.size() > 1 || o.value != 1.0f ? "(" + x + ")" : x);
      if (o.dst2) {
        const std::string activated = names_.make("activated");
        out_.line(fmt::format("{} = {}", activated, y));
        assign(*o.dst2, *reduction(isa::AluOp::Add, activated));
        y = activated;
      }
      assign(*o.dst, y);
      return;
    }
    case TileOpKind::Reduce: { // [P, G]: each of G groups of consecutive elements (an access pattern's last counts)
      std::optional<std::string> r = reduction(o.alu, read(o.srcs[0]), o.dst->cols, o.srcs[0].cols / o.dst->cols);
      if (!r) throw Error(fmt::format("Pallas: a {} reduction has no jnp equivalent", isa::name(o.alu)), o.loc);
      assign(*o.dst, *r);
      return;
    }
    case TileOpKind::Copy: assign(*o.dst, read(o.srcs[0])); return;
    case TileOpKind::Broadcast: // a [1, F] row or [P, 1] column repeated, as a Pallas author writes it
      assign(*o.dst, fmt::format("jnp.broadcast_to({}, ({}, {}))", read(o.srcs[0]), o.dst->rows, o.dst->cols));
      return;
    case TileOpKind::Memset:
      assign(*o.dst, fmt::format("jnp.full(({}, {}), {}, jnp.float32)", allocationOf(o.dst->tile).rows, o.dst->cols,
                                 pythonFloat(o.value)));
      return;
    case TileOpKind::FillWhere: {
      const std::string shape = fmt::format("({}, {})", allocationOf(o.dst->tile).rows, o.dst->cols);
      std::string position = index(o.offset);
      if (o.partition != 0)
        position += fmt::format(" + {} * jax.lax.broadcasted_iota(jnp.int32, {}, 0)", o.partition, shape);
      if (o.free != 0) position += fmt::format(" + {} * jax.lax.broadcasted_iota(jnp.int32, {}, 1)", o.free, shape);
      assign(*o.dst, fmt::format("jnp.where({}, {}, {})", comparison(o.alu, position, "0", o.loc),
                                 pythonFloat(o.value), read(*o.dst)));
      return;
    }
    case TileOpKind::Print:
      out_.line(fmt::format("# device_print \"{}\" is not emitted: Pallas TPU prints scalars only", o.text));
      return;
    }
  }

  // --- the grid --------------------------------------------------------------------------------------------

  /// pl.when's condition: every grid dimension after `level` at its first (last) step.
  std::string atEdge(int level, bool last) const {
    std::vector<std::string> terms;
    for (size_t d = static_cast<size_t>(level + 1); d < grid_.size(); ++d)
      terms.push_back(fmt::format("{} == {}", loopNames_.at(grid_[d]), last ? tp_.loops[grid_[d]].trips - 1 : 0));
    if (terms.size() == 1) return terms[0];
    for (std::string &t : terms) t = "(" + t + ")";
    return fmt::format("{}", fmt::join(terms, " & "));
  }

  void guarded(int level, bool last, const std::vector<TileStatement> &list) {
    if (std::all_of(list.begin(), list.end(), [&](const TileStatement &s) { return silent(s); })) return;
    out_.line(fmt::format("@pl.when({})", atEdge(level, last)));
    out_.line("def _():");
    scope([&](Body &inner) { statements(list, inner); });
  }

  /// The body of grid level `level` (-1: the kernel's): what runs before the next level at its first step, the
  /// next level, and what runs after it at its last; the innermost level's body is the step.
  void gridLevel(int level) {
    const std::vector<TileStatement> &list = tp_.bodyOf(level < 0 ? -1 : grid_[level]);
    if (level + 1 == static_cast<int>(grid_.size())) {
      Body step;
      statements(list, step);
      drain(step);
      return;
    }
    const int32_t next = grid_[level + 1];
    auto at = std::find_if(list.begin(), list.end(), [&](const TileStatement &s) { return s.isLoop && s.index == next; });
    guarded(level, false, {list.begin(), at});
    gridLevel(level + 1);
    guarded(level, true, {std::next(at), list.end()});
  }

  // --- the module ------------------------------------------------------------------------------------------

  void header() {
    if (style_ == "manual")
      moduleDocstring(out_, k_, "kernel",
                      {"Pallas TPU, manual style: one kernel invocation; the kernel's loops are pl.loop (or Python "
                       "loops where an",
                       "offset must be static), its tensors stay in HBM and every load and store is an async copy, "
                       "prefetched",
                       "one iteration ahead into a tile's next copy where the simulated program rotates it."});
    else
      moduleDocstring(out_, k_, "kernel",
                      {"Pallas TPU, grid style: the kernel's outer loops are the grid and its windows BlockSpecs "
                       "that Pallas",
                       "double-buffers (as the simulator's TPU model does); inner loops are pl.loop, intermediates "
                       "values,",
                       "tiles that last VMEM scratch, and a tensor whose windows are not blocks is copied by hand."});
    pallasPreamble(out_, k_, vmemBufferBytes());
  }

  std::vector<int32_t> scratchTiles() const {
    std::vector<int32_t> scratch;
    for (size_t t = 0; t < tp_.tiles.size(); ++t)
      if (tp_.tiles[t].storage == TileStorage::Scratch && used(static_cast<int32_t>(t)))
        scratch.push_back(static_cast<int32_t>(t));
    return scratch;
  }
  bool used(int32_t tile) const {
    return std::any_of(effects_.begin(), effects_.end(), [&](const Effects &e) { return e.touched.count(tile); });
  }

  /// pallas_call's operands in order: (tensor, block or -1 for the whole tensor in HBM), inputs then outputs, the
  /// kernel's HBM scratch tensors last among the outputs (they follow the signature's tensors).
  std::vector<std::pair<int32_t, int32_t>> operands() const {
    std::vector<std::pair<int32_t, int32_t>> list;
    for (bool output : {false, true})
      for (size_t t = 0; t < p_.tensors.size(); ++t) {
        if (p_.tensors[t].isInput() == output) continue;
        if (manual_[t]) {
          list.push_back({static_cast<int32_t>(t), -1});
          continue;
        }
        for (size_t b = 0; b < tp_.blocks.size(); ++b)
          if (tp_.blocks[b].tensor == static_cast<int32_t>(t)) list.push_back({static_cast<int32_t>(t), b});
      }
    return list;
  }

  void kernel() {
    std::vector<std::string> params;
    for (auto [tensor, block] : operands()) params.push_back(block < 0 ? tensorNames_[tensor] : blockNames_[block]);
    for (int32_t t : scratchTiles()) params.push_back(tileNames_[t]);
    for (const Stage &stage : stages_) params.push_back(stage.name);
    if (siteCount_ > 0) params.push_back(semaphores_);
    out_.line(fmt::format("def {}({}):", kernelName_, fmt::join(params, ", ")));
    out_.indent();
    for (size_t d = 0; d < grid_.size(); ++d)
      out_.line(fmt::format("{} = pl.program_id({})", loopNames_.at(grid_[d]), d));
    for (const auto &[op, site] : sites_) copyFunction(op);
    if (grid_.empty()) {
      Body body;
      statements(tp_.body, body);
      drain(body);
    } else {
      gridLevel(-1);
    }
    out_.dedent();
    out_.line();
    out_.line();
  }

  /// What the largest statement's relayouts take in Mosaic: the arrays its access-pattern operands and a grouped
  /// reduction's reshape materialise (isa/RowRelayout.h), in FP32, padded to (8, 128) tiles; Mosaic allocates them
  /// in the kernel's scoped VMEM (libtpu 0.0.50.1: `x.reshape(64, 512, 2)[:, :, 1]` of a [64, 1024] f32 block
  /// needs 16 MiB and compiles only with the limit raised).
  uint64_t relayoutBytes() const {
    const int64_t sublanes = k_.target->tpu.sublanes, lanes = k_.target->tpu.lanes;
    uint64_t largest = 0;
    for (const TileOpNode &o : tp_.ops) {
      if (o.kind == TileOpKind::Load || o.kind == TileOpKind::Store) continue;
      here_ = o.loc; // for relayoutOf's errors
      int64_t bytes = 0;
      auto add = [&](const TileOperand &operand) {
        if (!operand.pattern.empty()) bytes += relayoutOf(operand).vmemBytes(operand.rows, sublanes, lanes);
      };
      for (const TileOperand &src : o.srcs) add(src);
      if (o.dst) add(*o.dst);
      if (o.kind == TileOpKind::Reduce)
        for (const std::vector<int64_t> &array : isa::groupedReductionArrays(o.srcs[0].rows, o.srcs[0].cols, o.dst->cols))
          bytes += isa::paddedVregBytes(array, sublanes, lanes);
      largest = std::max(largest, static_cast<uint64_t>(bytes));
    }
    return largest;
  }

  /// What the kernel's VMEM buffers take in Mosaic: the scratch, and two copies of each block (Pallas
  /// double-buffers them), padded to (8, 128) tiles.
  uint64_t vmemBufferBytes() const {
    uint64_t bytes = 0;
    for (auto [tensor, block] : operands())
      if (block >= 0)
        bytes += 2 * mosaicVmemBytes({tp_.blocks[block].shape[0], tp_.blocks[block].shape[1]},
                                     kernelDtype(p_.tensors[tensor].dtype));
    for (int32_t t : scratchTiles()) {
      const compiler::TileAllocation &a = allocationOf(t);
      std::vector<int64_t> shape = {a.rows, a.cols};
      if (copies_[t] > 1) shape.insert(shape.begin(), copies_[t]);
      bytes += mosaicVmemBytes(shape, kernelDtype(a.dtype));
    }
    for (const Stage &stage : stages_) bytes += mosaicVmemBytes({stage.rows, stage.cols}, kernelDtype(stage.dtype));
    return bytes;
  }

  /// `e` as high * k + low with low in [0, k) for every iteration of its loops: each term whose coefficient k
  /// divides goes to high, the others stay in low; nullopt when low can leave [0, k) (or `e` has floors).
  std::optional<std::pair<LoopIndex, LoopIndex>> splitBy(const LoopIndex &e, int64_t k) const {
    if (!e.isAffine()) return std::nullopt;
    LoopIndex high, low;
    high.constant = e.constant >= 0 ? e.constant / k : -((-e.constant + k - 1) / k);
    low.constant = e.constant - high.constant * k;
    int64_t greatest = low.constant;
    for (const auto &[loop, c] : e.terms) {
      if (c % k == 0) {
        high.terms.push_back({loop, c / k});
        continue;
      }
      low.terms.push_back({loop, c});
      greatest += std::max<int64_t>(0, c * (tp_.loops[loop].trips - 1));
    }
    if (leastValue(low) < 0 || greatest >= k) return std::nullopt;
    return std::pair{high, low};
  }

  /// A grid block of an N-D tensor as a block of the tensor itself: its index along each leading dimension (a
  /// squeezed block dimension, None in the BlockSpec) and then its row and column blocks within the matrix those
  /// select; nullopt for a 2-D tensor or a block whose rows do not stay in one matrix for every grid step.
  std::optional<std::vector<LoopIndex>> blockIndexNd(const compiler::GridBlock &b) const {
    const std::vector<int64_t> &shape = p_.tensors[b.tensor].shape;
    if (shape.size() <= 2 || shape[shape.size() - 2] % b.shape[0] != 0) return std::nullopt;
    auto rows = splitBy(b.index[0], shape[shape.size() - 2] / b.shape[0]); // (matrix, row block within it)
    if (!rows) return std::nullopt;
    std::vector<LoopIndex> index{rows->second, b.index[1]};
    LoopIndex matrix = rows->first;
    for (size_t d = shape.size() - 2; d-- > 1;) { // the leading indices, innermost first; the outermost is the rest
      auto split = splitBy(matrix, shape[d]);
      if (!split) return std::nullopt;
      index.insert(index.begin(), split->second);
      matrix = split->first;
    }
    index.insert(index.begin(), matrix);
    return index;
  }

  /// A block's BlockSpec: of the tensor's matrix, or, for an N-D tensor whose block stays in one matrix
  /// (blockIndexNd), of the tensor itself with its leading block dimensions squeezed (None).
  std::string blockSpec(const compiler::GridBlock &b) const {
    const std::optional<std::vector<LoopIndex>> nd = blockIndexNd(b);
    if (!nd) return fmt::format("pl.BlockSpec(({}, {}), {})", b.shape[0], b.shape[1], indexMap(b));
    std::string leading;
    for (size_t d = 0; d + 2 < nd->size(); ++d) leading += "None, ";
    return fmt::format("pl.BlockSpec(({}{}, {}), {})", leading, b.shape[0], b.shape[1], indexMap(*nd));
  }

  /// A block's index_map: the block's index along each dimension from the grid's indices.
  std::string indexMap(const compiler::GridBlock &b) const { return indexMap({b.index[0], b.index[1]}); }
  /// An index_map of the block index `index` (one per dimension of the array the BlockSpec is of).
  std::string indexMap(const std::vector<LoopIndex> &index) const {
    std::vector<std::string> vars, dims;
    Substitution positional;
    for (size_t d = 0; d < grid_.size(); ++d) {
      vars.push_back(fmt::format("i{}", d));
      positional[grid_[d]] = vars.back();
    }
    for (const LoopIndex &e : index) dims.push_back(this->index(e, positional));
    return fmt::format("lambda {}: ({})", fmt::join(vars, ", "), fmt::join(dims, ", "));
  }

  void wrapper() {
    std::vector<std::string> inputs, operandNames, inSpecs, outSpecs, outShapes, grid, semantics;
    std::vector<isa::DType> outDtypes;
    // An N-D tensor goes to pallas_call as itself where it is moved in blocks that stay in one matrix of its
    // leading indices (BlockSpecs with those dimensions squeezed, None); else as its [rows, columns] matrix, the view
    // every block and copy of the kernel addresses (isa/MatrixShape.h): a row-major reshape of the leading
    // dimensions into the rows, which XLA makes a bitcast, the outputs reshaped back.
    std::vector<std::vector<int64_t>> outReshapes;
    auto matrixOf = [](const isa::TensorInfo &info) {
      const std::array<int64_t, 2> m = isa::matrixShape(info.shape);
      return std::vector<int64_t>{m[0], m[1]};
    };
    for (size_t t = 0; t < p_.tensors.size(); ++t)
      if (p_.tensors[t].isInput()) inputs.push_back(tensorNames_[t]);
    // The kernel's HBM scratch tensors (tsr::shared_hbm) are outputs of pallas_call in HBM that the wrapper drops:
    // Mosaic allocates scratch in VMEM and SMEM only.
    size_t scratchOutputs = 0;
    const uint64_t vmemNeed = vmemBufferBytes() + relayoutBytes();
    for (auto [tensor, block] : operands()) {
      const isa::TensorInfo &info = p_.tensors[tensor];
      std::string spec = "pl.BlockSpec(memory_space=pl.ANY)";
      bool asMatrix = info.shape.size() != 2;
      if (block >= 0) {
        const compiler::GridBlock &b = tp_.blocks[block];
        spec = blockSpec(b);
        if (blockIndexNd(b)) asMatrix = false;
      }
      if (!info.isInput()) {
        outSpecs.push_back(spec);
        outShapes.push_back(fmt::format("jax.ShapeDtypeStruct({}, {})",
                                        pythonShape(asMatrix ? matrixOf(info) : info.shape),
                                        jnpDtype(kernelDtype(info.dtype))));
        if (info.isOutput) {
          outDtypes.push_back(info.dtype);
          outReshapes.push_back(asMatrix ? info.shape : std::vector<int64_t>{});
        } else {
          ++scratchOutputs;
        }
      } else {
        inSpecs.push_back(spec);
        std::string operand = kernelOperand(tensorNames_[tensor], info.dtype);
        if (asMatrix) operand = fmt::format("{}.reshape({})", operand, pythonShape(matrixOf(info)));
        operandNames.push_back(std::move(operand));
      }
    }
    for (int32_t loop : grid_) {
      grid.push_back(std::to_string(tp_.loops[loop].trips));
      semantics.push_back(tp_.loops[loop].parallel ? "pltpu.PARALLEL" : "pltpu.ARBITRARY");
    }
    std::vector<int32_t> scratch = scratchTiles();
    auto many = [](const std::vector<std::string> &items) {
      return items.size() == 1 ? items[0] : fmt::format("({})", fmt::join(items, ", "));
    };
    out_.line(fmt::format("def {}({}, *, interpret=False):", functionName_, fmt::join(inputs, ", ")));
    out_.indent();
    out_.line("\"\"\"interpret: False on a TPU; pltpu.InterpretParams(...) to run on a CPU.\"\"\"");
    const bool convertOutputs = convertsOutputs(outDtypes) || scratchOutputs > 0 ||
                                std::any_of(outReshapes.begin(), outReshapes.end(), [](auto &r) { return !r.empty(); });
    out_.line(convertOutputs ? "result = pl.pallas_call(" : "return pl.pallas_call(");
    out_.indent();
    out_.line(kernelName_ + ",");
    if (!grid.empty()) out_.line(fmt::format("grid=({}{}),", fmt::join(grid, ", "), grid.size() == 1 ? "," : ""));
    out_.line("in_specs=(");
    out_.indent();
    for (const std::string &s : inSpecs) out_.line(s + ",");
    out_.dedent();
    out_.line("),");
    out_.line(fmt::format("out_specs={},", many(outSpecs)));
    out_.line(fmt::format("out_shape={},", many(outShapes)));
    if (!scratch.empty() || siteCount_ > 0) { // (a strided load is a copy of its own: siteCount_ > 0)
      out_.line("scratch_shapes=(");
      out_.indent();
      for (int32_t t : scratch) {
        const compiler::TileAllocation &a = allocationOf(t);
        const std::string shape = copies_[t] > 1 ? fmt::format("({}, {}, {})", copies_[t], a.rows, a.cols)
                                                 : fmt::format("({}, {})", a.rows, a.cols);
        const std::string place = placeOf(a.loc);
        out_.line(fmt::format("pltpu.VMEM({}, {}),  # {}{}", shape, jnpDtype(kernelDtype(a.dtype)), tileNames_[t],
                              place.empty() ? "" : ", " + place));
      }
      for (const Stage &stage : stages_)
        out_.line(fmt::format("pltpu.VMEM(({}, {}), {}),  # {}: the window around a strided load", stage.rows, stage.cols,
                              jnpDtype(kernelDtype(stage.dtype)), stage.name));
      if (siteCount_ > 0)
        out_.line(fmt::format("pltpu.SemaphoreType.DMA(({}, {})),  # {}: [copy, tile copy]", siteCount_, slots_,
                              semaphores_));
      out_.dedent();
      out_.line("),");
    }
    const std::string vmemLimit = vmemLimitArgument(k_, vmemNeed);
    if (!vmemLimit.empty()) out_.line(vmemLimitComment(k_, vmemNeed));
    std::vector<std::string> params;
    if (!semantics.empty())
      params.push_back(
          fmt::format("dimension_semantics=({}{})", fmt::join(semantics, ", "), semantics.size() == 1 ? "," : ""));
    if (!vmemLimit.empty()) params.push_back(vmemLimit);
    if (!params.empty()) out_.line(fmt::format("compiler_params=pltpu.CompilerParams({}),", fmt::join(params, ", ")));
    if (const std::string cost = costEstimateArgument(k_); !cost.empty()) out_.line(cost + ",");
    out_.line("interpret=interpret,");
    out_.dedent();
    out_.line(fmt::format(")({})", fmt::join(operandNames, ", ")));
    if (convertOutputs) returnOutputs(out_, outDtypes, outReshapes, scratchOutputs);
    out_.dedent();
  }

  const KernelSource &k_;
  const isa::Program &p_;
  const compiler::Provenance &prov_;
  const TileProgram &tp_;
  const std::string_view style_;
  PythonWriter out_;
  Identifiers names_{{"jax", "jnp", "pl", "pltpu", "KERNEL", "TARGET", "TOPOLOGY", "INPUTS", "OUTPUTS", "interpret",
                      "VMEM_BUFFER_BYTES", "result", "slot", "_", "_round_to_f16"}};

  mutable SourceLoc here_;                 ///< the kernel line of the op being written
  std::vector<int32_t> grid_;              ///< the grid loops, outermost first
  std::vector<bool> manual_;               ///< per tensor: in HBM, copied by hand
  std::vector<int64_t> copies_;            ///< per tile: the copies its scratch has
  std::set<int32_t> loadedByHand_;         ///< tensors the kernel loads with copies of their own
  std::vector<Effects> effects_, loopEffects_;
  std::vector<int32_t> parent_;
  std::map<int32_t, int32_t> sites_;       ///< per copy of its own: its semaphore row
  int32_t siteCount_ = 0;
  int64_t slots_ = 1;
  std::set<int32_t> lateStores_;           ///< stores waited on at the end of the next iteration
  /// A VMEM buffer a strided load's copy fills with the window around it, read strided right after the wait; the
  /// strided loads of one window shape share it.
  struct Stage {
    std::string name;
    int64_t rows = 0, cols = 0;
    isa::DType dtype = isa::DType::F32;
    bool operator==(const Stage &o) const { return rows == o.rows && cols == o.cols && dtype == o.dtype; }
  };
  std::vector<Stage> stages_;
  std::map<int32_t, size_t> stageOf_; ///< per strided load, its stage

  std::map<int32_t, std::string> loopNames_, copyNames_;
  std::vector<std::string> tensorNames_, blockNames_, tileNames_;
  std::string semaphores_, functionName_, kernelName_, lastPlace_;
};

} // namespace

std::string writePallasKernel(const KernelSource &kernel, std::string_view style) {
  return PallasKernelWriter(kernel, style).emit();
}

} // namespace tessera::backends
