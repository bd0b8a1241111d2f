#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Dialect/Settings.h"

#include "tessera/isa/InstructionSet.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera::tile;

#include "tessera/compiler/Dialect/Tile/TileDialect.cpp.inc"
#include "tessera/compiler/Dialect/Tile/TileEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tessera/compiler/Dialect/Tile/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/compiler/Dialect/Tile/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tessera/compiler/Dialect/Tile/TileOps.cpp.inc"
      >();
}

namespace tessera::tile {

AllocOp rootAllocation(Value tile) {
  while (Operation *def = tile.getDefiningOp()) {
    if (auto alloc = llvm::dyn_cast<AllocOp>(def)) return alloc;
    auto view = llvm::dyn_cast<ViewOp>(def);
    if (!view) return {};
    tile = view.getSource();
  }
  return {};
}

int64_t firstPartitionOf(Value tile) {
  int64_t row = 0;
  for (auto view = tile.getDefiningOp<ViewOp>(); view; view = view.getSource().getDefiningOp<ViewOp>())
    row += view.firstPartition();
  return row;
}

std::string quotedName(AllocOp alloc) { return alloc.getName() ? " '" + alloc.getName()->str() + "'" : ""; }

std::string shapeAndDtype(MemRefType type) {
  std::string text = "[";
  for (auto [i, size] : llvm::enumerate(type.getShape())) text += (i ? ", " : "") + std::to_string(size);
  std::optional<isa::DType> dtype = compiler::dtypeOf(type.getElementType());
  return text + "] " + (dtype ? std::string(isa::name(*dtype)) : std::string("?"));
}

MemorySpace memorySpaceOf(MemRefType type) {
  if (auto space = llvm::dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace())) return space.getValue();
  return MemorySpace::hbm;
}

MemRefType tileType(MLIRContext *ctx, llvm::ArrayRef<int64_t> shape, Type element, MemorySpace space) {
  Attribute spaceAttr = space == MemorySpace::hbm ? Attribute() : MemorySpaceAttr::get(ctx, space);
  return MemRefType::get(shape, element, MemRefLayoutAttrInterface(), spaceAttr);
}

isa::Instruction instructionOf(InstOp op, llvm::function_ref<isa::AccessPattern(Value)> patternOf) {
  isa::Instruction inst;
  inst.op = isa::parseOpcode(op.getOpcode().str()).value_or(isa::Opcode::TensorCopy);
  (void)compiler::readParams(op.getParamsAttr(), inst); // checked by the verifier
  for (auto [tile, slot] : {std::pair{op.getDst(), &inst.dst}, std::pair{op.getDst2(), &inst.dst2},
                            std::pair{op.getSrc0(), &inst.src0}, std::pair{op.getSrc1(), &inst.src1},
                            std::pair{op.getSrc2(), &inst.src2}})
    if (tile) *slot = patternOf(tile);
  return inst;
}

} // namespace tessera::tile

namespace {

MemRefType typeOf(Value v) { return llvm::cast<MemRefType>(v.getType()); }
bool onChip(Value v) { return memorySpaceOf(typeOf(v)) != MemorySpace::hbm; }
bool is2d(Value v) { return typeOf(v).getRank() == 2; }

/// Checks that `v` is a 2-D on-chip tile; `role` names it in the error.
LogicalResult checkTile(Operation *op, Value v, StringRef role) {
  if (!onChip(v)) return op->emitOpError() << role << " must be an on-chip tile (sbuf or psum), got " << v.getType();
  if (!is2d(v)) return op->emitOpError() << role << " must be a 2-D [partition, free] tile, got " << v.getType();
  return success();
}

/// Checks a DMA between an HBM window and a tile. A load's window may repeat a row or a column (a step of 0: a
/// broadcast); a store's steps are positive (a repeated destination would be written several times at once).
LogicalResult checkDma(Operation *op, Value hbm, ValueRange indices, Value tile,
                       std::optional<llvm::ArrayRef<int64_t>> steps, bool transpose, bool load) {
  if (onChip(hbm)) return op->emitOpError() << "expects an HBM tensor, got " << hbm.getType();
  if (failed(checkTile(op, tile, "the tile"))) return failure();
  MemRefType h = typeOf(hbm), t = typeOf(tile);
  if (h.getRank() != 2) return op->emitOpError() << "expects a 2-D HBM tensor, got " << h;
  if (static_cast<int64_t>(indices.size()) != h.getRank())
    return op->emitOpError() << "expects " << h.getRank() << " indices into " << h << ", got " << indices.size();
  if (h.getElementType() != t.getElementType())
    return op->emitOpError() << "element types differ: " << h.getElementType() << " in HBM, " << t.getElementType()
                             << " on chip (DMA does not convert)";
  const int64_t least = load ? 0 : 1;
  if (steps && (steps->size() != 2 || llvm::any_of(*steps, [&](int64_t s) { return s < least; })))
    return op->emitOpError() << "expects two " << (load ? "non-negative" : "positive") << " steps (rows, columns), got ["
                             << *steps << "]";
  if (transpose && steps)
    return op->emitOpError() << "transposes a strided window (steps [" << *steps << "]); a transposed window has steps 1";
  for (int d = 0; d < h.getRank(); ++d) {
    const int64_t size = t.getDimSize(transpose ? 1 - d : d); // the window's size along the tensor's dimension d
    const int64_t step = steps ? (*steps)[d] : 1, extent = (size - 1) * step + 1;
    if (extent > h.getDimSize(d))
      return op->emitOpError() << "tile " << t << (steps ? " with its steps" : "") << (transpose ? " transposed" : "")
                               << " is larger than the tensor " << h;
  }
  return success();
}

} // namespace

LogicalResult AllocOp::verify() {
  MemRefType t = getType();
  if (memorySpaceOf(t) == MemorySpace::hbm) return emitOpError("allocates on chip only (sbuf or psum)");
  if (t.getRank() != 2) return emitOpError() << "tiles are 2-D [partition, free], got " << t;
  // The attributes' own getters return uint64_t; read them signed so that negative values are caught.
  if (getBufsAttr() && getBufsAttr().getInt() < 1) return emitOpError("bufs must be at least 1");
  if (getOffsetAttr() && getOffsetAttr().getInt() < 0) return emitOpError("offset must not be negative");
  return success();
}

llvm::SmallVector<int64_t> ViewOp::patternCounts() {
  llvm::SmallVector<int64_t> counts;
  if (auto p = getPatternAttr())
    for (size_t i = 1; i < p.asArrayRef().size(); i += 2) counts.push_back(p.asArrayRef()[i]);
  return counts;
}

llvm::SmallVector<int64_t> ViewOp::patternSteps() {
  llvm::SmallVector<int64_t> steps;
  if (auto p = getPatternAttr())
    for (size_t i = 0; i < p.asArrayRef().size(); i += 2) steps.push_back(p.asArrayRef()[i]);
  return steps;
}

ViewOp tessera::tile::patternView(Value tile) {
  auto view = tile.getDefiningOp<ViewOp>();
  return view && view.getPatternAttr() ? view : ViewOp();
}

namespace {

/// Whether `view`'s pattern reaches one element of a partition more than once (a step of 0 over a count above 1,
/// or walks that overlap): as a destination, one element would be written several times.
bool visitsAnElementTwice(ViewOp view) {
  llvm::SmallVector<int64_t> counts = view.patternCounts(), steps = view.patternSteps();
  int64_t span = 0;
  for (auto [count, step] : llvm::zip(counts, steps)) span += step * (count - 1);
  std::vector<bool> seen(static_cast<size_t>(span) + 1);
  llvm::SmallVector<int64_t> index(counts.size(), 0);
  for (;;) {
    int64_t element = 0;
    for (size_t d = 0; d < counts.size(); ++d) element += index[d] * steps[d];
    if (seen[element]) return true;
    seen[element] = true;
    size_t d = counts.size();
    while (d > 0 && ++index[d - 1] == counts[d - 1]) index[--d] = 0;
    if (d == 0) return false;
  }
}

/// Whether `op` reads `v` as an elementwise source (tile.binary, tile.binary_scalar, tile.activation's input) and
/// does not write it: the language-level elementwise ops, whose one engine instruction walks a pattern it reads.
bool readsElementwise(Operation *op, Value v) {
  if (auto b = llvm::dyn_cast<BinaryOp>(op)) return b.getDst() != v && (b.getLhs() == v || b.getRhs() == v);
  if (auto s = llvm::dyn_cast<BinaryScalarOp>(op)) return s.getDst() != v && s.getSrc() == v;
  if (auto a = llvm::dyn_cast<ActivationOp>(op))
    return a.getSrc() == v && a.getDst() != v && a.getBias() != v && a.getSum() != v && a.getScales() != v;
  return false;
}

/// An access-pattern view's own rules, and its users': tile.copy and tile.inst on either side (never writing one
/// place twice), tile.reduce's source, and the elementwise ops' sources.
LogicalResult verifyPattern(ViewOp view) {
  // Messages start with the DSL call (Tile::ap), not the op: at a kernel's line they are the user's terms.
  auto fail = [&](Location loc) { return mlir::emitError(loc) << "ap: "; };
  llvm::ArrayRef<int64_t> p = view.getPatternAttr().asArrayRef();
  MemRefType s = typeOf(view.getSource()), r = typeOf(view.getResult());
  if (p.empty() || p.size() % 2 != 0 || p.size() > 2 * ::tessera::isa::AccessPattern::kMaxFreeDims)
    return fail(view.getLoc()) << "the pattern holds 1 to " << ::tessera::isa::AccessPattern::kMaxFreeDims
                               << " [step, count] pairs of the free dimension, got " << p.size() << " numbers";
  if (view.getSource().getDefiningOp<ViewOp>())
    return fail(view.getLoc()) << "an access pattern is taken on a tile, not on a view of one";
  int64_t elements = 1, span = 0;
  for (size_t i = 0; i < p.size(); i += 2) {
    if (p[i] < 0 || p[i + 1] < 1)
      return fail(view.getLoc()) << "pattern pair [" << p[i] << ", " << p[i + 1]
                                 << "]: a step is at least 0, a count at least 1";
    elements *= p[i + 1];
    span += p[i] * (p[i + 1] - 1);
  }
  if (elements != r.getDimSize(1))
    return fail(view.getLoc()) << "the pattern walks " << elements << " elements per partition, but the view is "
                               << r;
  if (span >= s.getDimSize(1))
    return fail(view.getLoc()) << "the pattern spans " << span + 1 << " elements, more than a partition of " << s;
  if (auto c = view.getOffset().getDefiningOp<arith::ConstantIndexOp>())
    if (c.value() < 0 || c.value() + span >= s.getDimSize(1))
      return fail(view.getLoc()) << "the pattern reaches elements " << c.value() << " to " << c.value() + span
                                 << " of a partition of " << s;
  const bool repeats = visitsAnElementTwice(view);
  const Value v = view.getResult();
  for (Operation *user : v.getUsers()) {
    auto copy = llvm::dyn_cast<CopyOp>(user);
    auto reduce = llvm::dyn_cast<ReduceOp>(user);
    auto inst = llvm::dyn_cast<InstOp>(user);
    if (llvm::isa<BinaryOp, BinaryScalarOp, ActivationOp>(user) && !readsElementwise(user, v))
      return fail(user->getLoc()) << "an access pattern is an operand of " << user->getName().stripDialect()
                                  << " other than its input: elementwise ops read one as an input, and write a tile "
                                     "(copy the result into the pattern with tsr::assign) and take [P, 1] tiles as "
                                     "biases and scales";
    if (!copy && !inst && !(reduce && reduce.getSrc() == v) && !readsElementwise(user, v))
      return fail(user->getLoc()) << "an access pattern is an operand of " << user->getName().stripDialect()
                                  << " that takes none: copies (tsr::assign, tsr::copy), reductions (tsr::sum, "
                                     "tsr::max), elementwise ops (their inputs) and tsr::isa calls read one, and "
                                     "copies and tsr::isa calls write one; copy it into a tile first";
    const bool written = (copy && copy.getDst() == v) || (inst && (inst.getDst() == v || inst.getDst2() == v));
    if (written && repeats)
      return fail(user->getLoc()) << "the destination is an access pattern that reaches some element more than "
                                     "once, which would be written several times";
  }
  return success();
}

} // namespace

LogicalResult ViewOp::verify() {
  if (failed(checkTile(*this, getSource(), "source")) || failed(checkTile(*this, getResult(), "result")))
    return failure();
  MemRefType s = typeOf(getSource()), r = typeOf(getResult());
  const int64_t partition = firstPartition();
  if (getPatternAttr()) {
    if (memorySpaceOf(r) != memorySpaceOf(s) || r.getElementType() != s.getElementType())
      return emitOpError() << "result " << r << " is not a view of " << s;
    if (partition < 0 || partition + r.getDimSize(0) > s.getDimSize(0))
      return emitOpError() << "partitions [" << partition << ", " << partition + r.getDimSize(0) << ") leave " << s;
    return verifyPattern(*this);
  }
  if (memorySpaceOf(r) != memorySpaceOf(s) || r.getElementType() != s.getElementType() ||
      r.getDimSize(1) > s.getDimSize(1))
    return emitOpError() << "result " << r << " is not a window of " << s;
  if (partition < 0 || partition + r.getDimSize(0) > s.getDimSize(0))
    return emitOpError() << "partitions [" << partition << ", " << partition + r.getDimSize(0) << ") leave " << s;
  if (auto c = getOffset().getDefiningOp<arith::ConstantIndexOp>())
    if (c.value() < 0 || c.value() + r.getDimSize(1) > s.getDimSize(1))
      return emitOpError() << "window of " << r.getDimSize(1) << " elements at offset " << c.value() << " leaves "
                           << s;
  return success();
}

LogicalResult LoadOp::verify() {
  return checkDma(*this, getSrc(), getIndices(), getDst(), getSteps(), getTranspose(), true);
}
LogicalResult StoreOp::verify() {
  return checkDma(*this, getDst(), getIndices(), getSrc(), getSteps(), getTranspose(), false);
}

LogicalResult MatmulOp::verify() {
  for (auto [v, role] : {std::pair{getStationary(), "stationary"}, std::pair{getMoving(), "moving"}}) {
    if (failed(checkTile(*this, v, role))) return failure();
    if (memorySpaceOf(typeOf(v)) != MemorySpace::sbuf) return emitOpError() << role << " must be in sbuf";
  }
  if (failed(checkTile(*this, getAcc(), "acc"))) return failure();
  MemRefType s = typeOf(getStationary()), m = typeOf(getMoving()), a = typeOf(getAcc());
  if (memorySpaceOf(a) != MemorySpace::psum || !a.getElementType().isF32())
    return emitOpError() << "accumulates into an f32 psum tile, got " << a;
  if (s.getDimSize(0) != m.getDimSize(0))
    return emitOpError() << "contraction mismatch: stationary " << s << " and moving " << m;
  if (a.getDimSize(0) != s.getDimSize(1) || a.getDimSize(1) != m.getDimSize(1))
    return emitOpError() << "acc " << a << " is not [stationary free, moving free] = [" << s.getDimSize(1) << ", "
                         << m.getDimSize(1) << "]";
  return success();
}

LogicalResult BinaryOp::verify() {
  for (auto [v, role] : {std::pair{getLhs(), "lhs"}, std::pair{getRhs(), "rhs"}, std::pair{getDst(), "dst"}})
    if (failed(checkTile(*this, v, role))) return failure();
  MemRefType l = typeOf(getLhs()), r = typeOf(getRhs()), d = typeOf(getDst());
  auto fits = [&](MemRefType x) {
    return x.getDimSize(0) == d.getDimSize(0) && (x.getDimSize(1) == d.getDimSize(1) || x.getDimSize(1) == 1);
  };
  if (!fits(l) || !fits(r))
    return emitOpError() << "operands " << l << " and " << r << " do not match or broadcast to " << d;
  return success();
}

LogicalResult BinaryScalarOp::verify() {
  if (failed(checkTile(*this, getSrc(), "src")) || failed(checkTile(*this, getDst(), "dst"))) return failure();
  if (typeOf(getSrc()).getShape() != typeOf(getDst()).getShape())
    return emitOpError() << "shapes differ: " << getSrc().getType() << " and " << getDst().getType();
  return success();
}

LogicalResult ActivationOp::verify() {
  if (failed(checkTile(*this, getSrc(), "src")) || failed(checkTile(*this, getDst(), "dst"))) return failure();
  MemRefType s = typeOf(getSrc());
  if (s.getShape() != typeOf(getDst()).getShape())
    return emitOpError() << "shapes differ: " << getSrc().getType() << " and " << getDst().getType();
  if (getScales() && getScale().convertToFloat() != 1.0f)
    return emitOpError() << "has both a scale attribute (" << getScale().convertToFloat()
                         << ") and a tile of scales; the tile replaces the attribute";
  for (auto [v, role] : {std::pair{getBias(), "bias"}, std::pair{getSum(), "sum"}, std::pair{getScales(), "scales"}}) {
    if (!v) continue;
    if (failed(checkTile(*this, v, role))) return failure();
    MemRefType t = typeOf(v);
    if (t.getDimSize(0) != s.getDimSize(0) || t.getDimSize(1) != 1)
      return emitOpError() << role << " " << t << " is not one value per row of " << s;
  }
  if (getSum() && !typeOf(getSum()).getElementType().isF32())
    return emitOpError() << "sum " << getSum().getType() << " is not f32";
  return success();
}

LogicalResult TransposeOp::verify() {
  if (failed(checkTile(*this, getSrc(), "src")) || failed(checkTile(*this, getDst(), "dst"))) return failure();
  MemRefType s = typeOf(getSrc()), d = typeOf(getDst());
  if (memorySpaceOf(s) != MemorySpace::sbuf) return emitOpError() << "src " << s << " is not in SBUF";
  if (d.getDimSize(0) != s.getDimSize(1) || d.getDimSize(1) != s.getDimSize(0))
    return emitOpError() << "dst " << d << " is not the transpose of " << s;
  if (memorySpaceOf(d) == MemorySpace::psum) {
    if (d.getElementType() != s.getElementType() && !d.getElementType().isF32())
      return emitOpError() << "dst " << d << " in PSUM has neither src's element type nor f32";
    return success();
  }
  if (d.getElementType() != s.getElementType() || s.getElementTypeBitWidth() != 16)
    return emitOpError() << "dst " << d << " in SBUF (a DMA transpose) needs src's 2-byte element type";
  return success();
}

LogicalResult BroadcastOp::verify() {
  if (failed(checkTile(*this, getSrc(), "src")) || failed(checkTile(*this, getDst(), "dst"))) return failure();
  MemRefType s = typeOf(getSrc()), d = typeOf(getDst());
  if (memorySpaceOf(d) != MemorySpace::sbuf) return emitOpError() << "dst " << d << " is not in SBUF";
  if (s.getShape() == d.getShape()) return emitOpError() << "src and dst share the shape of " << d << ": a tile.copy";
  for (int64_t dim = 0; dim < 2; ++dim)
    if (s.getDimSize(dim) != 1 && s.getDimSize(dim) != d.getDimSize(dim))
      return emitOpError() << "cannot broadcast " << s << " to " << d << ": dimension " << dim << " of src is "
                           << s.getDimSize(dim) << ", neither 1 nor " << d.getDimSize(dim);
  return success();
}

LogicalResult ScanOp::verify() {
  for (auto [v, role] : {std::pair{getA(), "a"}, std::pair{getB(), "b"}, std::pair{getDst(), "dst"}})
    if (failed(checkTile(*this, v, role))) return failure();
  MemRefType a = typeOf(getA()), b = typeOf(getB()), d = typeOf(getDst());
  if (a.getShape() != b.getShape() || a.getShape() != d.getShape())
    return emitOpError() << "a " << a << ", b " << b << " and dst " << d << " must share a shape";
  if (memorySpaceOf(a) == MemorySpace::psum && memorySpaceOf(b) == MemorySpace::psum)
    return emitOpError("a and b are both in psum; at most one of them may be");
  if (memorySpaceOf(d) != MemorySpace::sbuf) return emitOpError("dst is not in sbuf");
  if (Value initial = getInitial()) {
    if (failed(checkTile(*this, initial, "initial"))) return failure();
    MemRefType i = typeOf(initial);
    if (i.getDimSize(0) != a.getDimSize(0) || i.getDimSize(1) != 1)
      return emitOpError() << "initial " << i << " is not [" << a.getDimSize(0) << ", 1], one value per row";
  }
  return success();
}

LogicalResult FillWhereOp::verify() {
  if (failed(checkTile(*this, getDst(), "dst"))) return failure();
  if (memorySpaceOf(typeOf(getDst())) != MemorySpace::sbuf) return emitOpError("dst is not in SBUF");
  switch (getCmp()) {
  case Alu::is_equal:
  case Alu::not_equal:
  case Alu::is_gt:
  case Alu::is_ge:
  case Alu::is_lt:
  case Alu::is_le: return success();
  default: return emitOpError() << "cmp " << stringifyAlu(getCmp()) << " is not a comparison";
  }
}

LogicalResult ReduceOp::verify() {
  if (failed(checkTile(*this, getSrc(), "src")) || failed(checkTile(*this, getDst(), "dst"))) return failure();
  MemRefType s = typeOf(getSrc()), d = typeOf(getDst());
  if (d.getDimSize(0) != s.getDimSize(0) || s.getDimSize(1) % d.getDimSize(1) != 0)
    return emitOpError() << "reduces " << s << " into [" << s.getDimSize(0) << ", G], G dividing "
                         << s.getDimSize(1) << ", got " << d;
  if (ViewOp view = patternView(getSrc()); view && d.getDimSize(1) > 1) {
    // The reduced elements of one group are the pattern's innermost dimensions, whole.
    const int64_t n = s.getDimSize(1) / d.getDimSize(1);
    int64_t inner = 1;
    bool whole = false; // n is the product of one or more innermost counts
    for (int64_t count : llvm::reverse(view.patternCounts())) {
      inner *= count;
      if ((whole = inner == n) || inner > n) break;
    }
    if (!whole)
      return emitOpError() << "groups of " << s.getDimSize(1) / d.getDimSize(1)
                           << " elements are not the innermost dimensions of src's access pattern";
  }
  return success();
}

LogicalResult CopyOp::verify() {
  if (failed(checkTile(*this, getSrc(), "src")) || failed(checkTile(*this, getDst(), "dst"))) return failure();
  if (typeOf(getSrc()).getShape() != typeOf(getDst()).getShape())
    return emitOpError() << "shapes differ: " << getSrc().getType() << " and " << getDst().getType();
  ViewOp src = patternView(getSrc()), dst = patternView(getDst());
  if (src && dst && src.patternCounts() != dst.patternCounts())
    return emitOpError() << "both sides are access patterns, of different counts: give them the same counts";
  return success();
}

LogicalResult MemsetOp::verify() { return checkTile(*this, getDst(), "dst"); }

LogicalResult PrintOp::verify() { return checkTile(*this, getSrc(), "src"); }

LogicalResult InstOp::verify() {
  std::optional<isa::Opcode> opcode = isa::parseOpcode(getOpcode().str());
  if (!opcode) return emitOpError() << "names no instruction of the instruction set: '" << getOpcode() << "'";
  isa::Instruction settings;
  if (std::string problem = compiler::readParams(getParamsAttr(), settings); !problem.empty())
    return emitOpError() << "params: " << problem;
  for (Value tile : getOperands()) {
    if (failed(checkTile(*this, tile, "every operand"))) return failure();
    if (!compiler::dtypeOf(typeOf(tile).getElementType()))
      return emitOpError() << "operand type " << tile.getType() << " has no instruction-set element type";
  }
  std::optional<isa::Engine> engine;
  if (getEngine()) {
    for (isa::Engine e : {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd})
      if (*getEngine() == llvm::StringRef(isa::name(e))) engine = e;
    if (!engine) return emitOpError() << "unknown engine '" << *getEngine() << "'";
  }
  // The instruction's own rules, on whole tiles at address 0 (addresses do not change shapes or spaces).
  const isa::Instruction inst = instructionOf(*this, [](Value tile) {
    MemRefType t = typeOf(tile);
    const isa::MemSpace space = memorySpaceOf(t) == MemorySpace::psum ? isa::MemSpace::Psum : isa::MemSpace::Sbuf;
    return isa::AccessPattern::dense(space, *compiler::dtypeOf(t.getElementType()), 0, static_cast<uint32_t>(t.getDimSize(0)),
                                     0, t.getDimSize(1));
  });
  if (std::string problem = isa::verifyInstruction(inst, engine, nullptr); !problem.empty())
    return emitOpError() << problem;
  return success();
}

/// tile.wait and tile.signal exist only in a manual_sync scope, and name a semaphore id.
static LogicalResult verifySemaphoreOp(Operation *op, int64_t semaphore) {
  if (!op->hasAttr(kManualAttr))
    return op->emitOpError() << "belongs to a manual_sync scope: mark it " << kManualAttr
                             << " (outside one the compiler synchronises the engines itself)";
  if (semaphore < 0) return op->emitOpError() << "names semaphore " << semaphore << "; semaphores are numbered from 0";
  return success();
}

LogicalResult WaitOp::verify() { return verifySemaphoreOp(*this, getSemaphoreAttr().getInt()); }
LogicalResult SignalOp::verify() { return verifySemaphoreOp(*this, getSemaphoreAttr().getInt()); }

#define GET_OP_CLASSES
#include "tessera/compiler/Dialect/Tile/TileOps.cpp.inc"
