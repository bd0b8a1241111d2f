//===- LegalizeForTpu.cpp - tile ops a TPU runs as several, rewritten in tile ops it runs as one -----------===//
//
// Four language-level ops have no single TPU TensorCore instruction, and some element types are storage only on
// a TPU. Before memory is allocated (so the tiles this makes get VMEM like any other), on a TPU target only:
//  - tile.transpose becomes an MXU matmul of the source (the LHS, whose columns stream as rows) with an identity
//    matrix (the weights): lhs^T @ I = src^T, exact (one product with 1.0 per element). The identity, one per
//    element type and size, is made once at the kernel's entry: a zero fill and a tile.fill_where of the diagonal.
//    The MXU accumulates in f32: a destination of another type (bf16 PSUM, an SBUF tile) gets an f32 accumulator
//    of its own, copied into it.
//  - tile.activation with a bias or row sums computes in an f32 tile: x * scale (a VPU unary op), + bias (a VPU
//    binary op with the [P, 1] bias broadcast), func, the row sums of those f32 values (a VPU reduce), and a copy
//    rounding into dst: the numerics of the NeuronCore's single activation instruction.
//  - tile.matmul with an operand the MXU does not take (isa::mxuTakes: fp8 on a TPU with no FP8 peak, v4, v5e,
//    v5p; f16 everywhere): each such tile a matmul reads gets a copy, bf16 for fp8 and f32 for the others,
//    refreshed after every op that writes the tile (or a slice of it), and the matmul reads the copy. fp8 and f16
//    values are exactly bf16 and f32 values, so the products are the same; for fp8 it is what XLA does on these
//    TPUs. A transpose of such a tile transposes an f32 (bf16 for fp8) copy made before it.
//  - tile.scan (x[f] = a[f] x[f-1] + b[f]) becomes the doubling scan over f32 copies X = b and A = a: with the
//    initial value folded into X[0], then for d = 1, 2, 4, ... < F: X[f] += A[f] X[f-d] and A[f] *= A[f-d] for
//    f >= d, each a VPU binary op on column windows (through a temporary, since a window and its shift overlap):
//    log2(F) rounds instead of F dependent steps, a VPU's way (it has no serial scan instruction). The FP32
//    results differ from the serial order's by rounding only.
//  - VPU arithmetic (tile.binary, tile.activation, tile.reduce, those above included) on a storage-only type
//    (isa::vpuComputes: f16, fp8, u8, i8, i16, u16; Mosaic refuses vector arithmetic on f16): each such source is converted into
//    an f32 tile before the op, and a destination of such a type is computed in f32 and converted into after it.
//    The VPU computes in FP32 anyway, so the values are those of the NeuronCore's single instruction; the
//    simulator times the conversions as vpu_convert instructions (Mosaic keeps them in vregs: an overestimate).
//  - tile.load and tile.store whose window Mosaic cannot address with one DMA: a DMA window must start at a multiple
//    of the vreg's lanes (128) and span a multiple of them, or reach the last column, on the HBM side and on the
//    VMEM side alike (probed with libtpu: docs/backends.md, "What Mosaic accepts of a DMA window"), while VPU
//    loads and stores at static unaligned columns compile. Such a load DMAs the aligned window around it (its hull)
//    into a staging tile and copies its part into the destination with the VPU; such a store is a read-modify-write
//    of its hull: the hull is read into a staging tile (a DMA marked tile.preserve: its unwritten bytes go back as
//    they were), the source is copied into its part, and the hull is stored. insert-semaphores orders the hulls of
//    neighbouring stores, which share bytes. Where a window's start is not a constant, its hull is as wide as the
//    start's greatest offset within its lanes needs (from its residue modulo the largest power of two that the
//    index arithmetic gives). Rows are left as they are.
// Before any of these, every access-pattern view (Tile::ap) must be a relayout of a window of its rows, the form the
// real TPU compiler compiles (isa/RowRelayout.h: a reshape, an index and a transpose; libtpu's Mosaic refuses a
// strided slice), at every iteration of the loops its offset moves with, and one a copy writes, a permutation of
// that window; else it is an error at the kernel's line saying why.
// Test: compiler/test/Transforms/legalize-for-tpu.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"
#include "Targets/TargetFamily.h"
#include "Tpu/Passes.h"
#include "Transforms/AffineIndex.h"
#include "tessera/isa/RowRelayout.h"
#include "tessera/isa/TpuDtypes.h"
#include "tessera/dsl/TileSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <functional>
#include <map>

using namespace mlir;

namespace tessera::compiler {
namespace {

MemRefType typeOf(Value v) { return llvm::cast<MemRefType>(v.getType()); }

Type elementOf(Value v) { return typeOf(v).getElementType(); }

/// Whether VPU arithmetic computes in `t` (isa::vpuComputes); a type the ISA does not know is left to the
/// instruction's own check.
bool vpuComputes(Type t) {
  std::optional<isa::DType> d = dtypeOf(t);
  return !d || isa::vpuComputes(*d);
}

/// Whether the MXU of `target` takes `t` as an operand (isa::mxuTakes).
bool mxuTakes(Type t, const isa::Target &target) {
  std::optional<isa::DType> d = dtypeOf(t);
  return !d || isa::mxuTakes(*d, &target);
}

/// The type an MXU operand of type `t` is converted to, exactly: bf16 for fp8, f32 for the others.
Type mxuTypeFor(Type t) {
  std::optional<isa::DType> d = dtypeOf(t);
  if (d && isa::isFp8(*d)) return BFloat16Type::get(t.getContext());
  return Float32Type::get(t.getContext());
}

/// The name of the tile `v` is (or is a view of), for the tiles made from it.
std::string nameOf(Value v) {
  tile::AllocOp root = tile::rootAllocation(v);
  return root && root.getName() ? root.getName()->str() : std::string("t");
}

/// The tile an op writes (its destination), or null.
Value writtenBy(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<tile::LoadOp, tile::CopyOp, tile::BroadcastOp, tile::BinaryOp, tile::BinaryScalarOp, tile::ActivationOp,
            tile::ReduceOp, tile::MemsetOp, tile::FillWhereOp, tile::TransposeOp, tile::ScanOp>(
          [](auto o) { return o.getDst(); })
      .Default([](Operation *) { return Value(); });
}

class Legalizer {
public:
  Legalizer(func::FuncOp fn, const isa::Target &target) : fn_(fn), target_(target), b_(fn.getContext()) {}

  LogicalResult run() {
    // Access patterns walk one NeuronCore partition's elements; a TPU's VPU loads VMEM in whole (8, 128) tiles, so
    // a walk is a relayout of the loaded row, of the form Mosaic compiles (isa/RowRelayout.h; docs/dsl.md).
    WalkResult patterns = fn_.walk([&](tile::ViewOp view) {
      return view.getPatternAttr() && failed(requireRelayout(view)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (patterns.wasInterrupted()) return failure();
    llvm::SmallVector<Operation *> transposedWindows;
    fn_.walk([&](Operation *op) {
      if (auto l = llvm::dyn_cast<tile::LoadOp>(op); l && l.getTranspose()) transposedWindows.push_back(op);
      if (auto s = llvm::dyn_cast<tile::StoreOp>(op); s && s.getTranspose()) transposedWindows.push_back(op);
    });
    for (Operation *op : transposedWindows)
      if (failed(transposeOnChip(op))) return failure();
    llvm::SmallVector<Operation *> ops;
    fn_.walk([&](Operation *op) {
      if (llvm::isa<tile::TransposeOp, tile::ActivationOp, tile::MatmulOp, tile::ScanOp, tile::LoadOp,
                    tile::StoreOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      LogicalResult done = llvm::TypeSwitch<Operation *, LogicalResult>(op)
                               .Case([&](tile::TransposeOp o) { return transpose(o); })
                               .Case([&](tile::ActivationOp o) { return activation(o); })
                               .Case([&](tile::MatmulOp o) { return matmul(o); })
                               .Case([&](tile::ScanOp o) { return scan(o); })
                               .Case([&](tile::LoadOp o) { return alignLoad(o); })
                               .Case([&](tile::StoreOp o) { return alignStore(o); });
      if (failed(done)) return failure();
    }
    // Then the VPU arithmetic, that of the rewrites above included.
    llvm::SmallVector<Operation *> arithmetic;
    fn_.walk([&](Operation *op) {
      if (llvm::isa<tile::BinaryOp, tile::BinaryScalarOp, tile::ActivationOp, tile::ReduceOp>(op))
        arithmetic.push_back(op);
    });
    for (Operation *op : arithmetic)
      llvm::TypeSwitch<Operation *>(op)
          .Case<tile::BinaryOp, tile::BinaryScalarOp, tile::ActivationOp, tile::ReduceOp>(
              [&](auto o) { computeInF32(op, o.getDstMutable()); });
    return success();
  }

private:
  /// An access-pattern view is a relayout of a window of its rows at every iteration of the loops its offset moves
  /// with, with static indices (an SPMD axis may move only its window); written by a copy, a permutation of that
  /// window (the file comment). A view that NeuronCore instructions use is left to their refusal.
  LogicalResult requireRelayout(tile::ViewOp view) {
    if (llvm::any_of(view->getUsers(), [](Operation *user) {
          return llvm::isa<tile::InstOp>(user) || user->hasAttr(tile::kIsaAttr);
        }))
      return success();
    std::optional<AffineIndex> offset = affineIndexOf(view.getOffset());
    isa::MovingOffset moving;
    bool known = offset.has_value();
    if (offset) {
      moving.constant = offset->constant;
      for (const auto &[loop, coefficient] : offset->terms) {
        std::optional<int64_t> trips = tripCountOf(loop);
        known = known && trips;
        if (trips) moving.terms.push_back({coefficient, *trips});
      }
    }
    auto where = [&]() -> InFlightDiagnostic {
      return view.emitError() << "ap: " << target_.name << " is a TPU, whose vector unit loads VMEM in whole "
                                 "(sublane, lane) tiles: an access pattern there is a relayout of its rows (a "
                                 "reshape, an index and a transpose of a window of the row, as Mosaic compiles it), ";
    };
    if (!known)
      return where() << "which needs the pattern's offset to be an affine function of loops with constant trip "
                        "counts; write the offset as loop indices times constants";
    const int64_t row = typeOf(view.getSource()).getDimSize(1);
    auto relayout = isa::rowRelayout(view.getPatternAttr().asArrayRef(), moving, row);
    if (auto *no = std::get_if<isa::RelayoutRefusal>(&relayout)) {
      using Kind = isa::RelayoutRefusal::Kind;
      const char *remedy = "";
      switch (no->kind) {
      case Kind::Repeats: remedy = "repeat values with tsr::broadcast_to (or a stride-0 HBM window) instead"; break;
      case Kind::Backwards: remedy = "walk forwards, from the other end"; break;
      case Kind::Steps: remedy = "walk with steps that each divide the next larger one"; break;
      case Kind::Crosses:
        remedy = "keep each index within its group at every iteration, or move the offset by multiples of the "
                 "largest step";
        break;
      case Kind::PastTheRow: remedy = "start the pattern earlier in the row, or give the tile more columns"; break;
      }
      return where() << "and this pattern has none: " << no->why << "; " << remedy
                     << ", or gather with a strided HBM window (Hbm::window with steps)";
    }
    const isa::RowRelayout &r = std::get<isa::RowRelayout>(relayout);
    for (const isa::RowRelayout::Dim &dim : r.box)
      for (const auto &[term, multiplier] : dim.moves)
        if (offset->terms[term].first->hasAttr(tile::kSpmdAxisAttr))
          return where() << "whose indices are static, and this offset moves with a program id (an axis of the "
                            "launch grid) by "
                         << offset->terms[term].second << " elements, less than the pattern's largest step "
                         << r.box.front().stride << "; move it by multiples of " << r.box.front().stride
                         << ", or loop over the offsets inside the program";
    const bool written = llvm::any_of(view->getUsers(), [&](Operation *user) { return writtenBy(user) == view; });
    if (written && !r.isPermutation())
      return where() << "and a copy into one writes back the whole window in another order, so the pattern must "
                        "walk every element of its window once (steps and counts that tile it, offset at its start); "
                        "write the values into a tile instead, or copy them out of this one with the pattern as the "
                        "source";
    return success();
  }

  tile::AllocOp alloc(Location loc, ArrayRef<int64_t> shape, Type element, tile::MemorySpace space,
                      const std::string &name) {
    return b_.create<tile::AllocOp>(loc, tile::tileType(b_.getContext(), shape, element, space),
                                    b_.getStringAttr(name), IntegerAttr(), IntegerAttr(), UnitAttr());
  }

  /// The [n, n] identity of `element`, made at the kernel's entry the first time it is asked for.
  Value identity(Location loc, Type element, int64_t n) {
    auto key = std::pair{element.getAsOpaquePointer(), n};
    if (auto it = identities_.find(key); it != identities_.end()) return it->second;
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(&fn_.getBody().front());
    std::string name;
    llvm::raw_string_ostream os(name);
    os << "identity_" << element << "_" << n;
    Value id = alloc(loc, {n, n}, element, tile::MemorySpace::sbuf, os.str());
    b_.create<tile::MemsetOp>(loc, id, b_.getF32FloatAttr(0.0f));
    Value zero = b_.create<arith::ConstantIndexOp>(loc, 0);
    b_.create<tile::FillWhereOp>(loc, tile::AluAttr::get(b_.getContext(), tile::Alu::is_equal), id, zero,
                                 b_.getF32FloatAttr(1.0f), b_.getI64IntegerAttr(1), b_.getI64IntegerAttr(-1));
    return identities_[key] = id;
  }

  /// A tile of `element` with `v`'s shape and memory, named after `v`'s tile ("x_f32"); at the insertion point.
  Value wideTileLike(Location loc, Value v, Type element) {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << nameOf(v) << "_" << element;
    return alloc(loc, typeOf(v).getShape(), element, tile::memorySpaceOf(typeOf(v)), os.str());
  }

  /// Runs VPU arithmetic `op` in f32 where an operand's type is storage only (the file comment); `dst` is the
  /// operand it writes.
  void computeInF32(Operation *op, OpOperand &dst) {
    Location loc = op->getLoc();
    Type f32 = b_.getF32Type();
    b_.setInsertionPoint(op);
    llvm::DenseMap<Value, Value> converted;
    for (OpOperand &use : op->getOpOperands()) {
      if (&use == &dst || !llvm::isa<MemRefType>(use.get().getType()) || vpuComputes(elementOf(use.get()))) continue;
      Value &wide = converted[use.get()];
      if (!wide) {
        wide = wideTileLike(loc, use.get(), f32);
        b_.create<tile::CopyOp>(loc, use.get(), wide);
      }
      use.set(wide);
    }
    Value out = dst.get();
    if (vpuComputes(elementOf(out))) return;
    Value wide = converted.lookup(out); // computing in place: the converted copy of the destination
    if (!wide) wide = wideTileLike(loc, out, f32);
    dst.set(wide);
    b_.setInsertionPointAfter(op);
    b_.create<tile::CopyOp>(loc, wide, out);
  }

  /// A TPU's DMA moves windows as they lie: a transposed one (HbmTile::transposed) is moved untransposed through a
  /// tile of its own and transposed on chip, as tsr::transpose is (below), at most 128 x 128 at a time.
  LogicalResult transposeOnChip(Operation *op) {
    auto load = llvm::dyn_cast<tile::LoadOp>(op);
    auto store = llvm::dyn_cast<tile::StoreOp>(op);
    Value tile = load ? load.getDst() : store.getSrc();
    const int64_t p = typeOf(tile).getDimSize(0), f = typeOf(tile).getDimSize(1);
    const int64_t most = tsr::tile_size::pmax; // tsr::transpose's limit
    if (p > most || f > most)
      return op->emitError() << (load ? "load" : "store") << ": a transposed window of " << f << " x " << p
                             << " elements; on " << target_.name
                             << " (a TPU, whose DMA cannot transpose) it is transposed on chip as tsr::transpose "
                                "is, at most "
                             << most << " x " << most << ": take windows of at most " << most << " rows and columns";
    Type element = typeOf(tile).getElementType();
    if (std::optional<isa::DType> d = dtypeOf(element); d && (*d == isa::DType::I32 || *d == isa::DType::U32))
      return op->emitError() << (load ? "load" : "store") << ": a transposed window of " << isa::name(*d) << " on "
                             << target_.name
                             << " (a TPU, whose DMA cannot transpose) would be transposed on chip through the MXU in "
                                "FP32, exact only up to 2^24: move the window as it lies (without .transposed())";
    Location loc = op->getLoc();
    b_.setInsertionPoint(op);
    Value window = alloc(loc, {f, p}, element, tile::MemorySpace::sbuf, nameOf(tile) + "_window").getResult();
    if (load) {
      b_.create<tile::LoadOp>(loc, load.getSrc(), load.getIndices(), window, DenseI64ArrayAttr(), false);
      b_.create<tile::TransposeOp>(loc, window, tile);
    } else {
      if (tile::memorySpaceOf(typeOf(tile)) != tile::MemorySpace::sbuf) { // the transpose reads SBUF (VMEM)
        Value copied = alloc(loc, {p, f}, element, tile::MemorySpace::sbuf, nameOf(tile) + "_stored").getResult();
        b_.create<tile::CopyOp>(loc, tile, copied);
        tile = copied;
      }
      b_.create<tile::TransposeOp>(loc, tile, window);
      b_.create<tile::StoreOp>(loc, window, store.getDst(), store.getIndices(), DenseI64ArrayAttr(), false);
    }
    op->erase();
    return success();
  }

  LogicalResult transpose(tile::TransposeOp op) {
    Location loc = op.getLoc();
    Value src = op.getSrc(), dst = op.getDst();
    Type element = typeOf(src).getElementType();
    b_.setInsertionPoint(op);
    if (!mxuTakes(element, target_)) { // transpose an exact copy the MXU takes
      element = mxuTypeFor(element);
      Value wide = wideTileLike(loc, src, element);
      b_.create<tile::CopyOp>(loc, src, wide);
      src = wide;
    }
    const int64_t p = typeOf(src).getDimSize(0), f = typeOf(src).getDimSize(1);
    Value id = identity(loc, element, p);
    b_.setInsertionPoint(op);
    const bool direct =
        tile::memorySpaceOf(typeOf(dst)) == tile::MemorySpace::psum && typeOf(dst).getElementType().isF32();
    Value acc = direct ? dst : alloc(loc, {f, p}, b_.getF32Type(), tile::MemorySpace::psum, "transposed").getResult();
    b_.create<tile::MatmulOp>(loc, src, id, acc, /*accumulate=*/false);
    if (!direct) b_.create<tile::CopyOp>(loc, acc, dst);
    op->erase();
    return success();
  }

  LogicalResult activation(tile::ActivationOp op) {
    if (!op.getBias() && !op.getSum() && !op.getScales()) return success();
    Location loc = op.getLoc();
    b_.setInsertionPoint(op);
    auto func = [&](tile::Func f) { return tile::FuncAttr::get(b_.getContext(), f); };
    if (!op.getBias() && !op.getSum() && typeOf(op.getDst()).getElementType().isF32()) {
      // Only a tile of scales, into an f32 tile: the multiply and the function in place there.
      b_.create<tile::BinaryOp>(loc, tile::AluAttr::get(b_.getContext(), tile::Alu::multiply), op.getSrc(),
                                op.getScales(), op.getDst());
      b_.create<tile::ActivationOp>(loc, func(op.getFunc()), op.getDst(), Value(), op.getDst(), Value(), Value(),
                                    op.getScaleAttr());
      op->erase();
      return success();
    }
    MemRefType type = typeOf(op.getSrc());
    Value t = alloc(loc, type.getShape(), b_.getF32Type(), tile::MemorySpace::sbuf, "activated");
    const bool biased = bool(op.getBias());
    Value x = op.getSrc();
    if (op.getScales()) { // each row's scale: a [P, 1] operand of a multiply
      b_.create<tile::BinaryOp>(loc, tile::AluAttr::get(b_.getContext(), tile::Alu::multiply), x, op.getScales(), t);
      x = t;
    }
    // x * scale (with the function too when there is no bias to add in between).
    b_.create<tile::ActivationOp>(loc, func(biased ? tile::Func::identity : op.getFunc()), x, Value(), t, Value(),
                                  Value(), op.getScaleAttr());
    if (biased) {
      b_.create<tile::BinaryOp>(loc, tile::AluAttr::get(b_.getContext(), tile::Alu::add), t, op.getBias(), t);
      if (op.getFunc() != tile::Func::identity)
        b_.create<tile::ActivationOp>(loc, func(op.getFunc()), t, Value(), t, Value(), Value(),
                                      b_.getF32FloatAttr(1.0f));
    }
    if (op.getSum())
      b_.create<tile::ReduceOp>(loc, tile::AluAttr::get(b_.getContext(), tile::Alu::add), t, op.getSum());
    b_.create<tile::CopyOp>(loc, t, op.getDst());
    op->erase();
    return success();
  }

  /// Columns [start, start + count) of tile `t`, as a view.
  Value columns(Location loc, Value t, int64_t start, int64_t count) {
    MemRefType type = typeOf(t);
    Value offset = b_.create<arith::ConstantIndexOp>(loc, start);
    return b_.create<tile::ViewOp>(loc,
                                   tile::tileType(b_.getContext(), {type.getDimSize(0), count}, type.getElementType(),
                                                  tile::memorySpaceOf(type)),
                                   t, offset, IntegerAttr(), DenseI64ArrayAttr());
  }

  void binary(Location loc, tile::Alu alu, Value lhs, Value rhs, Value dst) {
    b_.create<tile::BinaryOp>(loc, tile::AluAttr::get(b_.getContext(), alu), lhs, rhs, dst);
  }

  LogicalResult scan(tile::ScanOp op) {
    Location loc = op.getLoc();
    b_.setInsertionPoint(op);
    MemRefType type = typeOf(op.getA());
    const int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    Type f32 = b_.getF32Type();
    Value decay = alloc(loc, {rows, cols}, f32, tile::MemorySpace::sbuf, "scan_decay");
    b_.create<tile::CopyOp>(loc, op.getA(), decay);
    const bool inPlace = typeOf(op.getDst()).getElementType().isF32();
    Value state = inPlace ? op.getDst() : alloc(loc, {rows, cols}, f32, tile::MemorySpace::sbuf, "scan_state");
    if (op.getB() != state) b_.create<tile::CopyOp>(loc, op.getB(), state);
    Value term = alloc(loc, {rows, cols}, f32, tile::MemorySpace::sbuf, "scan_term");
    if (Value initial = op.getInitial()) { // X[0] += A[0] * initial
      Value first = columns(loc, term, 0, 1);
      binary(loc, tile::Alu::multiply, columns(loc, decay, 0, 1), initial, first);
      binary(loc, tile::Alu::add, columns(loc, state, 0, 1), first, columns(loc, state, 0, 1));
    }
    for (int64_t d = 1; d < cols; d *= 2) {
      const int64_t n = cols - d;
      Value t = columns(loc, term, 0, n), later = columns(loc, state, d, n);
      binary(loc, tile::Alu::multiply, columns(loc, decay, d, n), columns(loc, state, 0, n), t); // A[f] X[f-d]
      binary(loc, tile::Alu::add, later, t, later);
      if (2 * d >= cols) break; // the last round needs no products of A
      binary(loc, tile::Alu::multiply, columns(loc, decay, d, n), columns(loc, decay, 0, n), t); // A[f] A[f-d]
      b_.create<tile::CopyOp>(loc, t, columns(loc, decay, d, n));
    }
    if (!inPlace) b_.create<tile::CopyOp>(loc, state, op.getDst());
    op->erase();
    return success();
  }

  LogicalResult matmul(tile::MatmulOp op) {
    for (OpOperand *use : {&op.getStationaryMutable(), &op.getMovingMutable()}) {
      Value v = use->get();
      if (mxuTakes(elementOf(v), target_)) continue;
      tile::AllocOp root = tile::rootAllocation(v);
      if (!root)
        return op.emitOpError() << "reads a " << elementOf(v) << " tile that is not a tile.alloc or a view of one";
      use->set(mxuCopyOf(v, root));
    }
    return success();
  }

  /// The copy of tile (or view) `v` of allocation `root` in the type the MXU takes (mxuTypeFor).
  Value mxuCopyOf(Value v, tile::AllocOp root) {
    if (auto it = copies_.find(v); it != copies_.end()) return it->second;
    Type element = mxuTypeFor(elementOf(v));
    if (v == root.getResult()) {
      b_.setInsertionPointAfter(root);
      Value copy = wideTileLike(root.getLoc(), v, element);
      copies_[v] = copy;
      refreshAfterWrites(root.getResult(), copy);
      return copy;
    }
    auto view = v.getDefiningOp<tile::ViewOp>();
    Value source = mxuCopyOf(view.getSource(), root);
    b_.setInsertionPointAfter(view);
    MemRefType t = typeOf(view.getResult());
    Value copy = b_.create<tile::ViewOp>(
        view.getLoc(), tile::tileType(b_.getContext(), t.getShape(), element, tile::memorySpaceOf(t)), source,
        view.getOffset(), view.getPartitionAttr(), DenseI64ArrayAttr());
    copies_[v] = copy;
    return copy;
  }

  /// After every op that writes `tile` or a view of it: convert what it wrote into the same place of `copy`.
  void refreshAfterWrites(Value tile, Value copy) {
    llvm::SmallVector<std::pair<Operation *, Value>> writes;
    std::function<void(Value)> collect = [&](Value t) {
      for (Operation *user : t.getUsers()) {
        if (auto view = llvm::dyn_cast<tile::ViewOp>(user)) collect(view.getResult());
        else if (writtenBy(user) == t) writes.push_back({user, t});
      }
    };
    collect(tile);
    for (auto [writer, written] : writes) {
      // A write through an access pattern refreshes the whole tile, in its rows' order (a view of the copy with the
      // pattern would relayout twice).
      if (auto view = written.getDefiningOp<tile::ViewOp>(); view && view.getPatternAttr()) written = tile;
      Value target = written == tile ? copy : mxuCopyOf(written, tile::rootAllocation(tile));
      b_.setInsertionPointAfter(writer);
      b_.create<tile::CopyOp>(writer->getLoc(), written, target);
    }
  }

  // --- DMA windows Mosaic addresses ------------------------------------------------------------------------

  /// A column of a buffer: the sum of `terms` (a window's start, or a view's offsets in its allocation).
  using Column = llvm::SmallVector<Value, 2>;

  /// The column as an affine function of the loops' iterations (AffineIndex), when its arithmetic is one.
  static std::optional<AffineIndex> affineOf(const Column &c) {
    AffineIndex sum;
    for (Value v : c) {
      std::optional<AffineIndex> a = affineIndexOf(v);
      if (!a) return std::nullopt;
      sum += *a;
    }
    return sum;
  }

  /// The column modulo `m` at every iteration, when the index arithmetic says (floor divisions included).
  static std::optional<int64_t> residue(const Column &c, int64_t m) {
    int64_t sum = 0;
    for (Value v : c) {
      std::optional<int64_t> r = residueOf(v, m);
      if (!r) return std::nullopt;
      sum = (sum + *r) % m;
    }
    return sum;
  }

  /// The most that `v` can lie past a multiple of `lanes` (a power of two): for the largest power of two g up to
  /// `lanes` whose residue r it knows, r + lanes - g (the exact residue when g = lanes).
  static int64_t greatestLead(Value v, int64_t lanes) {
    for (int64_t g = lanes; g > 1; g /= 2)
      if (std::optional<int64_t> r = residue({v}, g)) return *r + lanes - g;
    return lanes - 1;
  }

  static std::optional<int64_t> constant(const Column &c) {
    std::optional<AffineIndex> a = affineOf(c);
    if (!a || !a->isConstant()) return std::nullopt;
    return a->constant;
  }

  /// Whether one DMA can address columns [start, start + count) of a buffer `width` wide: the start a multiple of
  /// the lanes, and the count a multiple of them or the window reaching the last column.
  static bool addressable(const Column &start, int64_t count, int64_t width, int64_t lanes) {
    if (residue(start, lanes) != 0) return false;
    if (count % lanes == 0 || count == width) return true;
    std::optional<int64_t> c = constant(start);
    return c && *c + count == width;
  }

  /// Where tile (or view) `v` starts in its allocation: its views' offsets.
  static Column offsetInAllocation(Value v) {
    Column offsets;
    for (auto view = v.getDefiningOp<tile::ViewOp>(); view; view = view.getSource().getDefiningOp<tile::ViewOp>())
      offsets.push_back(view.getOffset());
    return offsets;
  }

  /// Whether a DMA between columns from `col` of HBM tensor `hbm` and on-chip tile `tile` needs a hull: one side's
  /// window is not addressable (above).
  bool needsHull(Value hbm, Value col, Value tile) const {
    const int64_t lanes = target_.tpu.lanes, cols = typeOf(tile).getDimSize(1);
    if (!addressable({col}, cols, typeOf(hbm).getDimSize(1), lanes)) return true;
    tile::AllocOp root = tile::rootAllocation(tile);
    return root && !addressable(offsetInAllocation(tile), cols, root.getType().getDimSize(1), lanes);
  }

  /// The aligned window around columns [col, col + count) of HBM tensor `hbm`: its start (a value built at the
  /// insertion point) and a staging tile as wide as it, with `tile`'s rows and type. A window's start must be a
  /// multiple of the lanes; its end may be the tensor's last column instead of a multiple of them.
  struct Hull {
    Value start, staging;
  };
  Hull hullOf(Location loc, Value hbm, Value col, Value tile) {
    const int64_t lanes = target_.tpu.lanes, count = typeOf(tile).getDimSize(1), width = typeOf(hbm).getDimSize(1);
    auto index = [&](int64_t n) { return b_.create<arith::ConstantIndexOp>(loc, n).getResult(); };
    Value start;
    int64_t hullWidth = width;
    if (std::optional<int64_t> known = constant(Column{col})) {
      const int64_t first = *known / lanes * lanes;
      hullWidth = std::min(roundUp(*known - first + count, lanes), width - first);
      start = index(first);
    } else {
      // As wide as the start's greatest offset within its lanes needs. A hull that could pass the last column
      // (never, when the start's range says so) ends there instead, where its start stays a multiple of the lanes
      // (the width is one); otherwise the hull is the whole rows.
      const int64_t w = std::min(width, roundUp(greatestLead(col, lanes) + count, lanes));
      const bool fits = fitsFromAlignedStart(col, w, width, lanes);
      if (fits || width % lanes == 0) {
        hullWidth = w;
        Value lanesValue = index(lanes);
        start = b_.create<arith::MulIOp>(loc, b_.create<arith::FloorDivSIOp>(loc, col, lanesValue), lanesValue);
        if (!fits) start = b_.create<arith::MinSIOp>(loc, start, index(width - hullWidth));
      } else {
        start = index(0);
      }
    }
    MemRefType type = typeOf(tile);
    Value staging = alloc(loc, {type.getDimSize(0), hullWidth}, type.getElementType(), tile::MemorySpace::sbuf,
                          nameOf(tile) + "_aligned");
    return {start, staging};
  }

  /// Whether a hull `w` wide from `col` rounded down to the lanes stays inside a tensor `width` wide, for every
  /// value the start's range allows.
  static bool fitsFromAlignedStart(Value col, int64_t w, int64_t width, int64_t lanes) {
    std::optional<AffineIndex> a = affineIndexOf(col);
    std::optional<std::pair<int64_t, int64_t>> r = a ? a->range() : std::nullopt;
    return r && r->first >= 0 && r->second / lanes * lanes + w <= width;
  }

  /// The part of `hull`'s staging tile that holds columns [col, col + count).
  Value partOf(Location loc, const Hull &hull, Value col, Value tile) {
    MemRefType staging = typeOf(hull.staging), t = typeOf(tile);
    Value offset = b_.create<arith::SubIOp>(loc, col, hull.start);
    return b_.create<tile::ViewOp>(
        loc, tile::tileType(b_.getContext(), t.getShape(), t.getElementType(), tile::memorySpaceOf(staging)),
        hull.staging, offset, IntegerAttr(), DenseI64ArrayAttr());
  }

  /// The hull that load or store `op`, between HBM tensor `hbm` at `indices` and tile `tile`, needs (built before
  /// `op`), or nullopt when one DMA addresses its window. Strided windows are left alone: the Pallas emitter stages a
  /// strided load itself and refuses a strided store.
  std::optional<Hull> hullFor(Operation *op, Value hbm, ValueRange indices, bool strided, Value tile) {
    if (strided || indices.size() != 2) return std::nullopt;
    b_.setInsertionPoint(op);
    if (!needsHull(hbm, indices[1], tile)) return std::nullopt;
    return hullOf(op->getLoc(), hbm, indices[1], tile);
  }

  LogicalResult alignLoad(tile::LoadOp op) {
    std::optional<Hull> hull = hullFor(op, op.getSrc(), op.getIndices(), bool(op.getSteps()), op.getDst());
    if (!hull) return success();
    Location loc = op.getLoc();
    const llvm::SmallVector<Value, 2> at{op.getIndices()[0], hull->start};
    b_.create<tile::LoadOp>(loc, op.getSrc(), at, hull->staging, DenseI64ArrayAttr());
    b_.create<tile::CopyOp>(loc, partOf(loc, *hull, op.getIndices()[1], op.getDst()), op.getDst());
    op->erase();
    return success();
  }

  LogicalResult alignStore(tile::StoreOp op) {
    std::optional<Hull> hull = hullFor(op, op.getDst(), op.getIndices(), bool(op.getSteps()), op.getSrc());
    if (!hull) return success();
    Location loc = op.getLoc();
    const llvm::SmallVector<Value, 2> at{op.getIndices()[0], hull->start};
    auto read = b_.create<tile::LoadOp>(loc, op.getDst(), at, hull->staging, DenseI64ArrayAttr());
    read->setAttr(tile::kPreserveAttr, b_.getUnitAttr());
    b_.create<tile::CopyOp>(loc, op.getSrc(), partOf(loc, *hull, op.getIndices()[1], op.getSrc()));
    b_.create<tile::StoreOp>(loc, hull->staging, op.getDst(), at, DenseI64ArrayAttr());
    op->erase();
    return success();
  }

  func::FuncOp fn_;
  const isa::Target &target_;
  OpBuilder b_;
  std::map<std::pair<const void *, int64_t>, Value> identities_;
  llvm::DenseMap<Value, Value> copies_;
};

struct LegalizeForTpuPass : PassWrapper<LegalizeForTpuPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LegalizeForTpuPass)
  StringRef getName() const override { return "LegalizeForTpu"; }
  StringRef getArgument() const override { return "tile-legalize-for-tpu"; }
  StringRef getDescription() const override {
    return "Rewrite transposes, biased or summing activations, scans, and matmuls and VPU arithmetic on types the "
           "MXU or VPU does not take into tile ops a TPU runs as one";
  }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    if (&targetFamily(*target) != &tpuFamily()) return; // other families have these instructions
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (failed(Legalizer(fn, *target).run())) return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createLegalizeForTpuPass() { return std::make_unique<LegalizeForTpuPass>(); }

} // namespace tessera::compiler
