//===- LowerTileToLinalg.cpp - tile -> linalg/memref on the host: the golden model's first step -------------===//
//
// The golden model runs a kernel's tile module on the CPU, independently of the NeuronCore lowering. This pass
// turns every tile op into host code with the DSL's numerics: operands are read into f32, computed in f32, and
// rounded (to nearest even) when stored into a narrower element type.
//
//   tile.alloc                  memref.alloc in the default memory space, freed at the end of its block
//   tile.view                   memref.subview of its source's columns
//   tile.load / tile.store      memref.subview of the HBM tensor + a call of the runtime's row copy with both
//                               as stored (address, layout, dtype: golden::kGoldenCopy, GoldenRuntime.h)
//   tile.matmul                 linalg.fill 0 (unless accumulate), then a call of the tile GEMM with the operands
//                               as stored (address, layout, dtype), acc[m, n] += stationary[k, m] * moving[k, n] k
//                               ascending (golden::kGoldenMatmul, GoldenRuntime.h: the simulator's decode and GEMM,
//                               checked bit for bit against a plain loop of that order)
//   tile.binary                 linalg.generic; a [P, 1] operand broadcasts along the free dimension
//   tile.activation             linalg.generic: func(x * scale + bias) in f32 (math.exp); with row sums, the
//                               f32 results go to a scratch tile first, summed left to right into `sum`
//   tile.transpose              linalg.generic with the transposed map (a copy, converting the element type)
//   tile.fill_where             linalg.generic over linalg.index: the value where the position test holds
//   tile.scan                   scf.for over rows, and in each an scf.for over the columns carrying the f32
//                               state: x = a * x + b (a product, then a sum: two roundings, as the DSL does);
//                               the outer loop marked golden.outline (OutlineOps.h)
//   tile.reduce                 linalg.generic: dst[p, 0] = src[p, 0], then a reduction over src[p, 1:], folding
//                               left to right as the DSL does (an f32 accumulator when dst is narrower)
//   tile.copy                   linalg.generic with arith.extf / arith.truncf
//   tile.broadcast              the same, src's map repeating its dimensions of size 1 ((p, f) -> (0, f))
//   tile.memset                 linalg.fill with the value rounded to the tile's type
//   tile.print, tile.wait,      nothing: printing belongs to the simulator, and host code runs in program order
//   tile.signal
//
// Max and min propagate NaN and keep the DSL's choice between equal operands (cmpf + select, not
// arith.maximumf). fp8 (f8E4M3FN, f8E5M2) has no LLVM type in LLVM 19: fp8 tensors and tiles are stored as their
// bits in i8 memrefs, converted with integer arithmetic (the same algorithm as isa/lib/NumberFormats.cpp:
// ml_dtypes' rounding, overflow and NaN rules). A window that can leave its tensor for some loop iteration is
// an error here, since host code has no simulator to catch it. Integer tiles (si8 ... ui32) are stored as signless
// integers of their width, read with sitofp/uitofp, and written rounded to nearest even, saturated, NaN as 0.
//
// Test: compiler/test/Golden/tile-to-linalg.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "GoldenRuntime.h"
#include "OutlineOps.h"
#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

using namespace mlir;

namespace tessera::compiler {
namespace {

bool isFp8(Type t) { return t.isFloat8E4M3FN() || t.isFloat8E5M2(); }
/// The integer element types tiles hold (si8, ui16, si32, ...: the tile dialect's integers carry their sign).
bool isTileInteger(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && !i.isSignless();
}
bool isSupported(Type t) { return t.isF32() || t.isBF16() || t.isF16() || isFp8(t) || isTileInteger(t); }

/// The least and greatest values of a tile integer type (exact in f64 up to 32 bits).
std::pair<double, double> integerLimits(IntegerType type) {
  const int bits = static_cast<int>(type.getWidth());
  if (type.isUnsignedInteger()) return {0.0, std::ldexp(1.0, bits) - 1};
  return {-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1) - 1};
}

/// How an element type is stored on the host: fp8 as its bits in an i8, an integer as the signless integer of its
/// width (what arith computes on).
Type storageOf(Type t) {
  if (isFp8(t)) return IntegerType::get(t.getContext(), 8);
  if (isTileInteger(t)) return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
  return t;
}

/// The host memref for a tile or tensor type: the default memory space, fp8 stored as i8.
MemRefType hostType(MemRefType t) {
  return MemRefType::get(t.getShape(), storageOf(t.getElementType()), t.getLayout());
}

/// An fp8 format, as in isa/lib/NumberFormats.cpp (sign, exponent, mantissa; IEEE-style bias).
struct Minifloat {
  int exponentBits, mantissaBits;
  bool hasInfinity; ///< false for f8E4M3FN: only all-ones is NaN, and overflow gives NaN

  static Minifloat of(Type t) { return t.isFloat8E4M3FN() ? Minifloat{4, 3, false} : Minifloat{5, 2, true}; }
  int bias() const { return (1 << (exponentBits - 1)) - 1; }
  int totalBits() const { return 1 + exponentBits + mantissaBits; }
  uint32_t signBit() const { return 1u << (exponentBits + mantissaBits); }
  uint32_t magnitudeMask() const { return signBit() - 1; }
  uint32_t mantissaMask() const { return (1u << mantissaBits) - 1; }
  uint32_t topExponentBits() const { return ((1u << exponentBits) - 1) << mantissaBits; }
  uint32_t maxFiniteBits() const { return hasInfinity ? topExponentBits() - 1 : magnitudeMask() - 1; }
  uint32_t canonicalNanBits() const {
    return hasInfinity ? topExponentBits() | (1u << (mantissaBits - 1)) : magnitudeMask();
  }
  uint32_t overflowBits() const { return hasInfinity ? topExponentBits() : canonicalNanBits(); }
  int droppedBits() const { return 23 - mantissaBits; }
  uint32_t rebias() const { return uint32_t(127 - bias()) << 23; }
  uint32_t minNormalAsF32() const { return uint32_t(127 - bias() + 1) << 23; }
  /// 2^k whose fp32 ulp is this format's smallest subnormal: adding it rounds onto the subnormal grid.
  uint32_t subnormalMagicAsF32() const { return uint32_t(127 - bias() + droppedBits() + 1) << 23; }
  /// The value of the smallest subnormal, as fp32 bits.
  uint32_t subnormalUnitAsF32() const { return uint32_t(127 + 1 - bias() - mantissaBits) << 23; }
};

/// Emits scalar code inside a linalg body: conversions between a stored element and f32, and ALU ops.
class Scalars {
public:
  Scalars(OpBuilder &b, Location loc) : b_(b), loc_(loc) {}

  /// `v`, an element stored for logical type `type`, as f32.
  Value toF32(Value v, Type type) {
    if (type.isF32()) return v;
    if (type.isUnsignedInteger()) return b_.create<arith::UIToFPOp>(loc_, b_.getF32Type(), v);
    if (type.isSignedInteger()) return b_.create<arith::SIToFPOp>(loc_, b_.getF32Type(), v);
    if (!isFp8(type)) return b_.create<arith::ExtFOp>(loc_, b_.getF32Type(), v);
    return decodeFp8(v, Minifloat::of(type));
  }

  /// `f` (f32) rounded to nearest even into logical type `type`, as stored.
  Value fromF32(Value f, Type type) {
    if (type.isF32()) return f;
    if (isTileInteger(type)) return toInteger(f, cast<IntegerType>(type));
    if (!isFp8(type)) return b_.create<arith::TruncFOp>(loc_, type, f);
    return encodeFp8(f, Minifloat::of(type));
  }

  Value f32(float v) { return b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(v)); }

  /// `f` as integer type `type`, stored signless: rounded to nearest (ties to even), saturated at the type's
  /// limits, NaN as 0 (isa::roundTo's rule). In f64, where every limit up to 32 bits is exact.
  Value toInteger(Value f, IntegerType type) {
    const auto [lo, hi] = integerLimits(type);
    auto f64 = [&](double v) { return b_.create<arith::ConstantOp>(loc_, b_.getF64FloatAttr(v)).getResult(); };
    Value x = b_.create<math::RoundEvenOp>(loc_, b_.create<arith::ExtFOp>(loc_, b_.getF64Type(), f));
    x = select(b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::OLT, x, f64(lo)), f64(lo), x);
    x = select(b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::OGT, x, f64(hi)), f64(hi), x);
    x = select(b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::UNO, x, x), f64(0.0), x);
    Type stored = b_.getIntegerType(type.getWidth());
    if (type.isSignedInteger()) return b_.create<arith::FPToSIOp>(loc_, stored, x);
    return b_.create<arith::FPToUIOp>(loc_, stored, x);
  }
  Value exp(Value x) { return b_.create<math::ExpOp>(loc_, x); }

  /// func(x) in f32, written independently of isa::apply(ActFunc) from the functions' definitions.
  Value activation(tile::Func func, Value x) {
    switch (func) {
    case tile::Func::identity: return x;
    case tile::Func::exp: return exp(x);
    case tile::Func::log: return b_.create<math::LogOp>(loc_, x);
    case tile::Func::tanh: return b_.create<math::TanhOp>(loc_, x);
    case tile::Func::gelu: // x/2 (1 + erf(x / sqrt 2))
      return mulF(mulF(f32(0.5f), x),
                 addF(f32(1.0f), b_.create<math::ErfOp>(loc_, mulF(x, f32(0.70710678118654752f)))));
    case tile::Func::gelu_apprx_tanh: { // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      Value cube = mulF(x, mulF(x, x));
      Value inner = mulF(f32(0.7978845608028654f), addF(x, mulF(f32(0.044715f), cube)));
      return mulF(mulF(f32(0.5f), x), addF(f32(1.0f), b_.create<math::TanhOp>(loc_, inner)));
    }
    case tile::Func::silu: return mulF(x, sigmoid(x));
    case tile::Func::sigmoid: return sigmoid(x);
    case tile::Func::relu: return pick(arith::CmpFPredicate::OGT, x, f32(0.0f));
    case tile::Func::rsqrt: return b_.create<arith::DivFOp>(loc_, f32(1.0f), b_.create<math::SqrtOp>(loc_, x));
    case tile::Func::square: return mulF(x, x);
    case tile::Func::sqrt: return b_.create<math::SqrtOp>(loc_, x);
    case tile::Func::reciprocal: return b_.create<arith::DivFOp>(loc_, f32(1.0f), x);
    }
    return x;
  }

  Value alu(tile::Alu op, Value x, Value y) {
    switch (op) {
    case tile::Alu::add: return addF(x, y);
    case tile::Alu::subtract: return b_.create<arith::SubFOp>(loc_, x, y);
    case tile::Alu::multiply: return mulF(x, y);
    case tile::Alu::divide: return b_.create<arith::DivFOp>(loc_, x, y);
    // NaN-propagating, and y between equal operands: (x > y || isnan(x)) ? x : y.
    case tile::Alu::max: return pick(arith::CmpFPredicate::OGT, x, y);
    case tile::Alu::min: return pick(arith::CmpFPredicate::OLT, x, y);
    case tile::Alu::bypass: return x;
    case tile::Alu::power: return b_.create<math::PowFOp>(loc_, x, y);
    case tile::Alu::abs_max:
      return pick(arith::CmpFPredicate::OGT, b_.create<math::AbsFOp>(loc_, x), b_.create<math::AbsFOp>(loc_, y));
    case tile::Alu::is_equal: return truth(arith::CmpFPredicate::OEQ, x, y);
    case tile::Alu::not_equal: return truth(arith::CmpFPredicate::UNE, x, y);
    case tile::Alu::is_gt: return truth(arith::CmpFPredicate::OGT, x, y);
    case tile::Alu::is_ge: return truth(arith::CmpFPredicate::OGE, x, y);
    case tile::Alu::is_lt: return truth(arith::CmpFPredicate::OLT, x, y);
    case tile::Alu::is_le: return truth(arith::CmpFPredicate::OLE, x, y);
    case tile::Alu::logical_and:
      return b_.create<arith::UIToFPOp>(
          loc_, b_.getF32Type(),
          b_.create<arith::AndIOp>(loc_, nonZero(x), nonZero(y)));
    case tile::Alu::logical_or:
      return b_.create<arith::UIToFPOp>(
          loc_, b_.getF32Type(),
          b_.create<arith::OrIOp>(loc_, nonZero(x), nonZero(y)));
    }
    return x;
  }

private:
  Value addF(Value x, Value y) { return b_.create<arith::AddFOp>(loc_, x, y); }
  Value mulF(Value x, Value y) { return b_.create<arith::MulFOp>(loc_, x, y); }
  Value sigmoid(Value x) {
    return b_.create<arith::DivFOp>(loc_, f32(1.0f), addF(f32(1.0f), exp(b_.create<arith::NegFOp>(loc_, x))));
  }
  /// 1.0 where `x <pred> y`, else 0.0.
  Value truth(arith::CmpFPredicate pred, Value x, Value y) {
    return b_.create<arith::UIToFPOp>(loc_, b_.getF32Type(), b_.create<arith::CmpFOp>(loc_, pred, x, y));
  }
  Value nonZero(Value x) { return b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::UNE, x, f32(0.0f)); }

  Value pick(arith::CmpFPredicate better, Value x, Value y) {
    Value wins = b_.create<arith::CmpFOp>(loc_, better, x, y);
    Value nan = b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::UNO, x, x);
    return b_.create<arith::SelectOp>(loc_, b_.create<arith::OrIOp>(loc_, wins, nan), x, y);
  }

  Value i32(uint32_t v) { return b_.create<arith::ConstantOp>(loc_, b_.getI32IntegerAttr(static_cast<int32_t>(v))); }
  Value f32Bits(uint32_t v) {
    return b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(llvm::bit_cast<float>(v)));
  }
  Value bitsOf(Value f) { return b_.create<arith::BitcastOp>(loc_, b_.getI32Type(), f); }
  Value floatOf(Value i) { return b_.create<arith::BitcastOp>(loc_, b_.getF32Type(), i); }
  Value shl(Value x, int n) { return b_.create<arith::ShLIOp>(loc_, x, i32(n)); }
  Value shr(Value x, int n) { return b_.create<arith::ShRUIOp>(loc_, x, i32(n)); }
  Value andOf(Value x, uint32_t mask) { return b_.create<arith::AndIOp>(loc_, x, i32(mask)); }
  Value add(Value x, Value y) { return b_.create<arith::AddIOp>(loc_, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, uint32_t c) { return b_.create<arith::CmpIOp>(loc_, p, x, i32(c)); }
  Value select(Value c, Value x, Value y) { return b_.create<arith::SelectOp>(loc_, c, x, y); }

  /// The f32 value of fp8 bits (exact: every fp8 value is an f32 value).
  Value decodeFp8(Value bits8, const Minifloat &fmt) {
    Value bits = b_.create<arith::ExtUIOp>(loc_, b_.getI32Type(), bits8);
    Value sign = shl(andOf(bits, fmt.signBit()), 31 - (fmt.totalBits() - 1));
    Value magnitude = andOf(bits, fmt.magnitudeMask());
    Value normal = add(shl(magnitude, fmt.droppedBits()), i32(fmt.rebias()));
    // A subnormal is mantissa * smallest subnormal; the int -> float conversion and the scale are exact.
    Value asFloat = b_.create<arith::SIToFPOp>(loc_, b_.getF32Type(), magnitude);
    Value subnormal = bitsOf(b_.create<arith::MulFOp>(loc_, asFloat, f32Bits(fmt.subnormalUnitAsF32())));
    Value result = select(cmp(arith::CmpIPredicate::eq, shr(magnitude, fmt.mantissaBits), 0), subnormal, normal);
    if (fmt.hasInfinity) {
      Value special = select(cmp(arith::CmpIPredicate::eq, andOf(magnitude, fmt.mantissaMask()), 0),
                             i32(0x7f80'0000u), i32(0x7fc0'0000u));
      result = select(cmp(arith::CmpIPredicate::uge, magnitude, fmt.topExponentBits()), special, result);
    } else {
      result = select(cmp(arith::CmpIPredicate::eq, magnitude, fmt.magnitudeMask()), i32(0x7fc0'0000u), result);
    }
    return floatOf(b_.create<arith::OrIOp>(loc_, result, sign));
  }

  /// `f` rounded to nearest even fp8 bits; beyond the largest finite value: Inf, or NaN where there is none.
  Value encodeFp8(Value f, const Minifloat &fmt) {
    Value bits = bitsOf(f);
    Value magnitude = andOf(bits, 0x7fff'ffffu);
    Value sign = shl(shr(bits, 31), fmt.totalBits() - 1);
    // Normal results: rebias the exponent, round the mantissa to nearest even (a carry bumps the exponent).
    const int dropped = fmt.droppedBits();
    Value lsb = andOf(shr(magnitude, dropped), 1);
    Value rebiased = b_.create<arith::SubIOp>(loc_, magnitude, i32(fmt.rebias()));
    Value normal = shr(add(add(rebiased, i32((1u << (dropped - 1)) - 1)), lsb), dropped);
    // Subnormal results: let the FPU round onto the subnormal grid.
    Value sum = b_.create<arith::AddFOp>(loc_, floatOf(magnitude), f32Bits(fmt.subnormalMagicAsF32()));
    Value subnormal = b_.create<arith::SubIOp>(loc_, bitsOf(sum), i32(fmt.subnormalMagicAsF32()));
    Value result = select(cmp(arith::CmpIPredicate::ult, magnitude, fmt.minNormalAsF32()), subnormal, normal);
    result = select(cmp(arith::CmpIPredicate::ugt, result, fmt.maxFiniteBits()), i32(fmt.overflowBits()), result);
    result = select(cmp(arith::CmpIPredicate::ugt, magnitude, 0x7f80'0000u), i32(fmt.canonicalNanBits()), result);
    return b_.create<arith::TruncIOp>(loc_, b_.getI8Type(), b_.create<arith::OrIOp>(loc_, result, sign));
  }

  OpBuilder &b_;
  Location loc_;
};

/// The values an index can take over all iterations of its loops, when it is affine in scf.for induction
/// variables with constant bounds (as the DSL's indices are); nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> rangeOf(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>()) return std::pair{c.value(), c.value()};
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg != loop.getInductionVar()) return std::nullopt;
    auto lb = rangeOf(loop.getLowerBound()), ub = rangeOf(loop.getUpperBound()), step = rangeOf(loop.getStep());
    if (!lb || !ub || !step || lb->first != lb->second || ub->first != ub->second || step->first <= 0 ||
        ub->first <= lb->first)
      return std::nullopt;
    int64_t last = lb->first + (ub->first - 1 - lb->first) / step->first * step->first;
    return std::pair{lb->first, last};
  }
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumOperands() != 2) return std::nullopt;
  auto x = rangeOf(op->getOperand(0)), y = rangeOf(op->getOperand(1));
  if (!x || !y) return std::nullopt;
  if (llvm::isa<arith::AddIOp>(op)) return std::pair{x->first + y->first, x->second + y->second};
  if (llvm::isa<arith::SubIOp>(op)) return std::pair{x->first - y->second, x->second - y->first};
  if (llvm::isa<arith::MulIOp>(op)) {
    int64_t p[] = {x->first * y->first, x->first * y->second, x->second * y->first, x->second * y->second};
    return std::pair{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
  }
  return std::nullopt;
}

/// Fails (with an error at `op`) if the window of `tileType` at `indices` can leave `tensor` in some iteration.
LogicalResult checkWindow(Operation *op, Value tensor, ValueRange indices, MemRefType tileType,
                          llvm::ArrayRef<int64_t> steps) {
  auto t = cast<MemRefType>(tensor.getType());
  for (int64_t d = 0; d < t.getRank(); ++d) {
    auto range = rangeOf(indices[d]);
    if (!range) continue;
    const int64_t extent = (tileType.getDimSize(d) - 1) * steps[d] + 1;
    if (range->first < 0 || range->second + extent > t.getDimSize(d))
      return op->emitOpError() << "window of " << tileType.getDimSize(d) << " elements"
                               << (steps[d] == 1 ? std::string() : " with step " + std::to_string(steps[d]))
                               << " at offsets "
                               << range->first << ".." << range->second << " of dimension " << d
                               << " leaves the tensor (size " << t.getDimSize(d) << ")";
  }
  return success();
}

/// Rewrites one function's tile ops in place.
class Lowering {
public:
  explicit Lowering(func::FuncOp fn) : fn_(fn), b_(fn.getContext()) {}

  LogicalResult run() {
    // Every element type must have a host form, before anything changes.
    WalkResult types = fn_.walk([&](Operation *op) {
      auto unsupported = [](Type t) {
        auto m = dyn_cast<MemRefType>(t);
        return m && !isSupported(m.getElementType());
      };
      auto operand = llvm::find_if(op->getOperandTypes(), unsupported);
      auto result = llvm::find_if(op->getResultTypes(), unsupported);
      Type bad = operand != op->getOperandTypes().end() ? *operand
                 : result != op->getResultTypes().end() ? *result
                                                        : Type();
      if (!bad) return WalkResult::advance();
      op->emitOpError() << "element type " << cast<MemRefType>(bad).getElementType() << " has no host lowering";
      return WalkResult::interrupt();
    });
    if (types.wasInterrupted()) return failure();
    retypeArguments();
    llvm::SmallVector<tile::AllocOp> allocs;
    llvm::SmallVector<tile::ViewOp> views;
    llvm::SmallVector<Operation *> ops;
    fn_.walk([&](Operation *op) {
      if (auto a = dyn_cast<tile::AllocOp>(op)) allocs.push_back(a);
      else if (auto v = dyn_cast<tile::ViewOp>(op)) views.push_back(v);
      else if (llvm::isa<tile::TileDialect>(op->getDialect())) ops.push_back(op);
    });
    // Allocations and views first (a view after what it views), so that every other op finds its operands' host
    // buffers.
    for (tile::AllocOp a : allocs) alloc(a);
    for (tile::ViewOp v : views)
      if (failed(view(v))) return failure();
    for (Operation *op : ops) {
      b_.setInsertionPoint(op);
      if (failed(lower(op))) return failure();
      op->erase();
    }
    return success();
  }

private:
  /// The logical element type of a host buffer (fp8 buffers are stored as i8).
  Type logical(Value v) {
    auto it = logical_.find(v);
    return it != logical_.end() ? it->second : cast<MemRefType>(v.getType()).getElementType();
  }
  int64_t dim(Value v, unsigned d) { return cast<MemRefType>(v.getType()).getDimSize(d); }

  void retypeArguments() {
    Block &entry = fn_.getBody().front();
    for (BlockArgument arg : entry.getArguments())
      if (auto t = dyn_cast<MemRefType>(arg.getType()); t && storageOf(t.getElementType()) != t.getElementType()) {
        logical_[arg] = t.getElementType();
        arg.setType(hostType(t));
      }
    fn_.setType(FunctionType::get(fn_.getContext(), entry.getArgumentTypes(), fn_.getResultTypes()));
  }

  void alloc(tile::AllocOp op) {
    b_.setInsertionPoint(op);
    MemRefType type = op.getType();
    auto host = b_.create<memref::AllocOp>(op.getLoc(), hostType(type));
    if (auto name = op.getNameAttr()) host->setAttr(tile::kTensorNameAttr, name);
    logical_[host] = type.getElementType();
    b_.setInsertionPoint(op->getBlock()->getTerminator()); // a tile lives until the end of its block
    b_.create<memref::DeallocOp>(op.getLoc(), host);
    op.getResult().replaceAllUsesWith(host.getResult());
    op->erase();
  }

  /// An access-pattern view (Tile::ap) as a [P, count_1, ..., count_k] memref over its source's buffer, whose
  /// strides are the pattern's steps (0 repeats).
  LogicalResult patternView(tile::ViewOp op) {
    const int64_t sourceSize = dim(op.getSource(), 1);
    llvm::SmallVector<int64_t> counts = op.patternCounts(), steps = op.patternSteps();
    int64_t span = 0;
    for (auto [count, step] : llvm::zip(counts, steps)) span += step * (count - 1);
    auto range = rangeOf(op.getOffset());
    if (range && (range->first < 0 || range->second + span >= sourceSize))
      return op.emitOpError() << "access pattern at offsets " << range->first << ".." << range->second
                              << " reaches past its source's " << sourceSize << " elements";
    b_.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value source = op.getSource();
    auto sourceType = cast<MemRefType>(source.getType());
    llvm::SmallVector<int64_t> shape{op.getType().getDimSize(0)}, strides{sourceSize};
    shape.append(counts.begin(), counts.end());
    strides.append(steps.begin(), steps.end());
    auto layout = StridedLayoutAttr::get(b_.getContext(), ShapedType::kDynamic, strides);
    auto type = MemRefType::get(shape, sourceType.getElementType(), layout, sourceType.getMemorySpace());
    Value first = b_.create<arith::AddIOp>(loc, b_.create<arith::ConstantIndexOp>(loc, op.firstPartition() * sourceSize),
                                           op.getOffset());
    llvm::SmallVector<OpFoldResult> sizes, strideFolds;
    for (int64_t size : shape) sizes.push_back(b_.getIndexAttr(size));
    for (int64_t stride : strides) strideFolds.push_back(b_.getIndexAttr(stride));
    Value window = b_.create<memref::ReinterpretCastOp>(loc, type, source, OpFoldResult(first), sizes, strideFolds);
    logical_[window] = logical(source);
    op.getResult().replaceAllUsesWith(window);
    op->erase();
    return success();
  }

  /// The indices of free element `f` (an index in [0, n)) of partition `p` of `v`: [p, f] of a tile, [p, i_1, ...,
  /// i_k] of an access pattern (f's digits over its counts).
  static llvm::SmallVector<Value> flatIndices(OpBuilder &b, Location l, Value v, Value p, Value f) {
    auto type = cast<MemRefType>(v.getType());
    llvm::SmallVector<Value> indices{p};
    if (type.getRank() == 2) {
      indices.push_back(f);
      return indices;
    }
    llvm::SmallVector<Value> digits;
    for (int64_t d = type.getRank() - 1; d > 1; --d) {
      Value count = b.create<arith::ConstantIndexOp>(l, type.getDimSize(d));
      digits.push_back(b.create<arith::RemUIOp>(l, f, count));
      f = b.create<arith::DivUIOp>(l, f, count);
    }
    digits.push_back(f);
    indices.append(digits.rbegin(), digits.rend());
    return indices;
  }

  /// A copy or reduction with an access pattern on a side: loops over partitions and free elements in the
  /// pattern's order (an outlined function, as linalg ops are), `body` given the partition and column loop
  /// builders.
  void partitionLoop(Location loc, int64_t partitions,
                     llvm::function_ref<void(OpBuilder &, Value p)> body) {
    Value zero = b_.create<arith::ConstantIndexOp>(loc, 0), one = b_.create<arith::ConstantIndexOp>(loc, 1);
    auto rows = b_.create<scf::ForOp>(loc, zero, b_.create<arith::ConstantIndexOp>(loc, partitions), one);
    rows->setAttr(golden::kOutlineAttr, b_.getUnitAttr());
    OpBuilder rb = OpBuilder::atBlockTerminator(rows.getBody());
    body(rb, rows.getInductionVar());
  }

  /// A loop over free elements [0, n) of one partition, `body` given its index.
  static void elementLoop(OpBuilder &rb, Location l, int64_t n,
                          llvm::function_ref<void(OpBuilder &, Location, Value f)> body) {
    auto index = [&](int64_t v) { return rb.create<arith::ConstantIndexOp>(l, v).getResult(); };
    rb.create<scf::ForOp>(l, index(0), index(n), index(1), ValueRange{},
                          [&](OpBuilder &cb, Location cl, Value f, ValueRange) {
                            body(cb, cl, f);
                            cb.create<scf::YieldOp>(cl);
                          });
  }

  /// The staging buffers an op made for the access patterns it reads, freed after it (release).
  using Staged = llvm::SmallVector<Value, 2>;

  /// `v` as a [P, n] memref: itself when it is a tile or a window, else (an access pattern, [P, count_1, ...])
  /// gathered (below). An op reading the gathered copy reads each element's value from before the op, as the
  /// instruction does where the target accepts it (a NeuronCore refuses a walk that reads an element it wrote).
  Value stage(Location l, Value v, Staged &staged) {
    return cast<MemRefType>(v.getType()).getRank() == 2 ? v : gather(l, v, staged);
  }

  /// A new [P, n] buffer holding `v`'s elements in its order (an access pattern's), recorded in `staged`.
  Value gather(Location l, Value v, Staged &staged) {
    auto type = cast<MemRefType>(v.getType());
    const int64_t partitions = type.getDimSize(0), n = type.getNumElements() / partitions;
    Value flat = b_.create<memref::AllocOp>(l, MemRefType::get({partitions, n}, type.getElementType()));
    logical_[flat] = logical(v);
    partitionLoop(l, partitions, [&](OpBuilder &rb, Value p) {
      elementLoop(rb, l, n, [&](OpBuilder &cb, Location cl, Value f) {
        Value x = cb.create<memref::LoadOp>(cl, v, flatIndices(cb, cl, v, p, f));
        cb.create<memref::StoreOp>(cl, x, flat, ValueRange{p, f});
      });
    });
    staged.push_back(flat);
    return flat;
  }

  void release(Location l, const Staged &staged) {
    for (Value v : staged) b_.create<memref::DeallocOp>(l, v);
  }

  LogicalResult view(tile::ViewOp op) {
    if (op.getPatternAttr()) return patternView(op);
    // Host code has no simulator to catch a window outside its source: every iteration's offset must fit (as
    // for DMA windows, an offset whose range is unknown is taken as it is).
    const int64_t size = op.getType().getDimSize(1), sourceSize = dim(op.getSource(), 1);
    auto range = rangeOf(op.getOffset());
    if (range && (range->first < 0 || range->second + size > sourceSize))
      return op.emitOpError() << "window of " << size << " elements at offsets " << range->first << ".."
                              << range->second << " leaves its source (size " << sourceSize << ")";
    b_.setInsertionPoint(op);
    Value source = op.getSource();
    Type element = logical(source);
    llvm::SmallVector<OpFoldResult> offsets{b_.getIndexAttr(op.firstPartition()), op.getOffset()};
    llvm::SmallVector<OpFoldResult> sizes{b_.getIndexAttr(op.getType().getDimSize(0)),
                                          b_.getIndexAttr(op.getType().getDimSize(1))};
    llvm::SmallVector<OpFoldResult> strides{b_.getIndexAttr(1), b_.getIndexAttr(1)};
    Value window = b_.create<memref::SubViewOp>(op.getLoc(), source, offsets, sizes, strides);
    logical_[window] = element;
    op.getResult().replaceAllUsesWith(window);
    op->erase();
    return success();
  }

  LogicalResult lower(Operation *op) {
    if (auto o = dyn_cast<tile::LoadOp>(op))
      return dma(o, o.getSrc(), o.getIndices(), o.getSteps(), o.getTranspose(), o.getDst(), true);
    if (auto o = dyn_cast<tile::StoreOp>(op))
      return dma(o, o.getDst(), o.getIndices(), o.getSteps(), o.getTranspose(), o.getSrc(), false);
    if (auto o = dyn_cast<tile::MatmulOp>(op)) return matmul(o);
    if (auto o = dyn_cast<tile::BinaryOp>(op)) return binary(o);
    if (auto o = dyn_cast<tile::BinaryScalarOp>(op)) return binaryScalar(o);
    if (auto o = dyn_cast<tile::ActivationOp>(op)) return activation(o);
    if (auto o = dyn_cast<tile::TransposeOp>(op)) return transpose(o);
    if (auto o = dyn_cast<tile::FillWhereOp>(op)) return fillWhere(o);
    if (auto o = dyn_cast<tile::ScanOp>(op)) return scan(o);
    if (auto o = dyn_cast<tile::ReduceOp>(op)) return reduce(o);
    if (auto o = dyn_cast<tile::CopyOp>(op)) return copy(o);
    if (auto o = dyn_cast<tile::BroadcastOp>(op)) return copy(o);
    if (auto o = dyn_cast<tile::MemsetOp>(op)) return memset(o);
    if (llvm::isa<tile::PrintOp, tile::WaitOp, tile::SignalOp>(op)) return success(); // erased by the caller
    return op->emitOpError("has no host lowering");
  }

  /// A tile.load (`load`) or tile.store between `tile` and the window of `tensor` at `indices`, strided by `steps`
  /// or transposed (`transpose`: the window has the tile's shape swapped, and is read and written through a
  /// transposed view of it).
  LogicalResult dma(Operation *op, Value tensor, ValueRange indices, std::optional<llvm::ArrayRef<int64_t>> steps,
                    bool transpose, Value tile, bool load) {
    auto tileType = cast<MemRefType>(tile.getType());
    const llvm::SmallVector<int64_t, 2> step = steps ? llvm::SmallVector<int64_t, 2>(*steps)
                                                     : llvm::SmallVector<int64_t, 2>(tileType.getRank(), 1);
    llvm::SmallVector<int64_t, 2> shape(tileType.getShape()); // the window's, in the tensor
    if (transpose) std::reverse(shape.begin(), shape.end());
    auto windowType = MemRefType::get(shape, tileType.getElementType());
    if (failed(checkWindow(op, tensor, indices, windowType, step))) return failure();
    llvm::SmallVector<OpFoldResult> offsets(indices.begin(), indices.end()), sizes, strides;
    for (auto [size, s] : llvm::zip(shape, step)) {
      sizes.push_back(b_.getIndexAttr(size));
      strides.push_back(b_.getIndexAttr(s));
    }
    Location loc = op->getLoc();
    Value window = b_.create<memref::SubViewOp>(loc, tensor, offsets, sizes, strides);
    if (transpose) // the window seen as the tile: [P, F], strides [1, the tensor's row]
      window = b_.create<memref::TransposeOp>(
          loc, window, AffineMapAttr::get(AffineMap::getPermutationMap(llvm::ArrayRef<unsigned>{1, 0}, b_.getContext())));
    logical_[window] = logical(tensor); // fp8 and integers are stored as signless integers of their width
    Value src = load ? window : tile, dst = load ? tile : window;
    // A copy of elements as stored, no conversion (the verifier: one element type, 2-D): the runtime's row copies
    // (golden::kGoldenCopy), where a linalg loop compiled without optimisation moved one element an iteration and
    // the JIT compiled one per layout. A type the runtime does not know keeps linalg's copy.
    std::optional<isa::DType> type = dtypeOf(logical(tile));
    if (!type || logical(tile) != logical(window) || tileType.getRank() != 2) {
      b_.create<linalg::CopyOp>(loc, src, dst);
      return success();
    }
    llvm::SmallVector<Value> args{index(loc, tileType.getDimSize(0)), index(loc, tileType.getDimSize(1))};
    storedMatrix(loc, dst, *type, args);
    storedMatrix(loc, src, *type, args);
    b_.create<func::CallOp>(loc, goldenCopy(), args);
    return success();
  }

  /// A linalg.generic over memrefs, its body built by `body(scalars, block arguments)` returning what to yield.
  void generic(Location loc, ValueRange ins, ValueRange outs, ArrayRef<AffineMap> maps,
               ArrayRef<utils::IteratorType> iterators, llvm::function_ref<Value(Scalars &, ValueRange)> body) {
    b_.create<linalg::GenericOp>(loc, ins, outs, maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
      Scalars s(b, l);
      b.create<linalg::YieldOp>(l, body(s, args));
    });
  }

  AffineMap identity2d() { return b_.getMultiDimIdentityMap(2); }
  /// (p, f) -> (p, 0) for a [P, 1] operand of a wider op, (0, f) for a [1, F] one of a taller op (tile.broadcast),
  /// (0, 0) for a [1, 1] one; else the identity.
  AffineMap broadcastMap(Value operand, Value dst) {
    auto index = [&](unsigned d) {
      return dim(operand, d) == 1 && dim(dst, d) != 1 ? b_.getAffineConstantExpr(0) : b_.getAffineDimExpr(d);
    };
    return AffineMap::get(2, 0, {index(0), index(1)}, b_.getContext());
  }
  static constexpr utils::IteratorType kParallel = utils::IteratorType::parallel;
  static constexpr utils::IteratorType kReduction = utils::IteratorType::reduction;

  Value f32Constant(Location loc, float v) { return b_.create<arith::ConstantOp>(loc, b_.getF32FloatAttr(v)); }

  LogicalResult matmul(tile::MatmulOp op) {
    Location loc = op.getLoc();
    Value stationary = op.getStationary(), moving = op.getMoving(), acc = op.getAcc();
    if (!op.getAccumulate()) b_.create<linalg::FillOp>(loc, f32Constant(loc, 0.0f), acc);
    // The tile GEMM (golden::kGoldenMatmul) on the operands as stored, each passed as its buffer's address, layout
    // and dtype code: the runtime decodes them to f32 with the simulator's vectorised decode (isa::decode), where
    // an unoptimised linalg conversion loop cost as much as the GEMM itself. acc is f32 (the op's verifier).
    std::optional<isa::DType> stationaryType = dtypeOf(logical(stationary)), movingType = dtypeOf(logical(moving));
    if (!stationaryType || !movingType) return op.emitOpError("has operands of a type the golden model lacks");
    if (cast<MemRefType>(stationary.getType()).getRank() != 2 || cast<MemRefType>(moving.getType()).getRank() != 2)
      return op.emitOpError("has an operand that is not a matrix; the golden model's GEMM takes [K, M] and [K, N]");
    llvm::SmallVector<Value> args{anyMatrix(loc, acc), index(loc, dim(stationary, 0))};
    storedMatrix(loc, stationary, *stationaryType, args);
    storedMatrix(loc, moving, *movingType, args);
    b_.create<func::CallOp>(loc, goldenMatmul(), args);
    return success();
  }

  /// Appends `v`'s buffer address, element offset, row and column strides (index) and isa::DType code (i32): a
  /// matrix of any element type and strided layout, as the runtime's StoredMatrix reads it (GoldenRuntime.h).
  void storedMatrix(Location loc, Value v, isa::DType type, llvm::SmallVectorImpl<Value> &args) {
    auto metadata = b_.create<memref::ExtractStridedMetadataOp>(loc, v);
    args.push_back(b_.create<memref::ExtractAlignedPointerAsIndexOp>(loc, v));
    args.push_back(metadata.getOffset());
    args.append(metadata.getStrides().begin(), metadata.getStrides().end());
    args.push_back(i32Constant(loc, type));
  }

  Value index(Location loc, int64_t v) { return b_.create<arith::ConstantIndexOp>(loc, v); }

  /// `v` (an f32 matrix of any static shape and layout) as the callee's operand type.
  Value anyMatrix(Location loc, Value v) { return b_.create<memref::CastOp>(loc, anyMatrixType(), v); }

  Value i32Constant(Location loc, isa::DType t) {
    return b_.create<arith::ConstantOp>(loc, b_.getI32IntegerAttr(static_cast<int32_t>(t)));
  }

  /// The declaration of golden::kGoldenMatmul in this function's module, made on first use: (acc, k, then the
  /// stationary [k, M] and moving [k, N] operands as storedMatrix() passes them).
  func::FuncOp goldenMatmul() {
    Type i = b_.getIndexType(), i32 = b_.getI32Type();
    return runtimeDeclaration(golden::kGoldenMatmul, {anyMatrixType(), i, i, i, i, i, i32, i, i, i, i, i32});
  }

  /// The declaration of golden::kGoldenCopy, made on first use: (rows, columns, then the destination and the
  /// source as storedMatrix() passes them).
  func::FuncOp goldenCopy() {
    Type i = b_.getIndexType(), i32 = b_.getI32Type();
    return runtimeDeclaration(golden::kGoldenCopy, {i, i, i, i, i, i, i32, i, i, i, i, i32});
  }

  /// The private declaration of the runtime function `callee` (GoldenRuntime.h) taking `arguments`, at the start of
  /// this function's module, made on first use.
  func::FuncOp runtimeDeclaration(std::string_view callee, llvm::ArrayRef<Type> arguments) {
    auto module = fn_->getParentOfType<ModuleOp>();
    const llvm::StringRef name(callee.data(), callee.size());
    if (auto existing = module.lookupSymbol<func::FuncOp>(name)) return existing;
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(module.getBody());
    auto decl = b_.create<func::FuncOp>(fn_.getLoc(), name, b_.getFunctionType(arguments, {}));
    decl.setPrivate();
    return decl;
  }

  Type anyMatrixType() {
    constexpr int64_t kDynamic = ShapedType::kDynamic;
    auto layout = StridedLayoutAttr::get(b_.getContext(), kDynamic, {kDynamic, kDynamic});
    return MemRefType::get({kDynamic, kDynamic}, b_.getF32Type(), layout);
  }

  LogicalResult binary(tile::BinaryOp op) {
    Staged staged;
    Value lhs = stage(op.getLoc(), op.getLhs(), staged), rhs = stage(op.getLoc(), op.getRhs(), staged);
    Value dst = op.getDst();
    Type tl = logical(lhs), tr = logical(rhs), td = logical(dst);
    tile::Alu alu = op.getOp();
    generic(op.getLoc(), {lhs, rhs}, {dst}, {broadcastMap(lhs, dst), broadcastMap(rhs, dst), identity2d()},
            {kParallel, kParallel}, [&](Scalars &s, ValueRange a) {
              Value x = s.toF32(a[0], tl), y = s.toF32(a[1], tr);
              return s.fromF32(s.alu(alu, x, y), td);
            });
    release(op.getLoc(), staged);
    return success();
  }

  LogicalResult binaryScalar(tile::BinaryScalarOp op) {
    Staged staged;
    Value src = stage(op.getLoc(), op.getSrc(), staged), dst = op.getDst();
    Type ts = logical(src), td = logical(dst);
    tile::Alu alu = op.getOp();
    const float c = op.getScalar().convertToFloat();
    const bool reverse = op.getReverse();
    generic(op.getLoc(), {src}, {dst}, {identity2d(), identity2d()}, {kParallel, kParallel},
            [&](Scalars &s, ValueRange a) {
              Value x = s.toF32(a[0], ts), y = s.f32(c);
              return s.fromF32(reverse ? s.alu(alu, y, x) : s.alu(alu, x, y), td);
            });
    release(op.getLoc(), staged);
    return success();
  }

  LogicalResult activation(tile::ActivationOp op) {
    Location loc = op.getLoc();
    Staged staged;
    Value src = stage(loc, op.getSrc(), staged), dst = op.getDst(), bias = op.getBias(), sum = op.getSum(),
          scales = op.getScales();
    Type ts = logical(src), td = logical(dst), tb = bias ? logical(bias) : Type(),
         tc = scales ? logical(scales) : Type();
    float scale = op.getScale().convertToFloat();
    tile::Func func = op.getFunc();
    // With row sums, the f32 results first (the sums are of them, before dst's rounding).
    Value out = dst;
    if (sum) out = b_.create<memref::AllocOp>(loc, MemRefType::get(cast<MemRefType>(dst.getType()).getShape(),
                                                                   b_.getF32Type()));
    llvm::SmallVector<Value> ins{src};
    llvm::SmallVector<AffineMap> maps{identity2d()};
    if (bias) {
      ins.push_back(bias);
      maps.push_back(broadcastMap(bias, dst));
    }
    if (scales) {
      ins.push_back(scales);
      maps.push_back(broadcastMap(scales, dst));
    }
    maps.push_back(identity2d());
    generic(loc, ins, {out}, maps, {kParallel, kParallel}, [&](Scalars &s, ValueRange a) {
      Value x = s.toF32(a[0], ts);
      if (scales) x = s.alu(tile::Alu::multiply, x, s.toF32(a[bias ? 2 : 1], tc));
      else if (scale != 1.0f) x = s.alu(tile::Alu::multiply, x, s.f32(scale));
      if (bias) x = s.alu(tile::Alu::add, x, s.toF32(a[1], tb));
      x = s.activation(func, x);
      return sum ? x : s.fromF32(x, td);
    });
    release(loc, staged);
    if (!sum) return success();
    // sum[p] = out[p, 0] + out[p, 1] + ..., left to right; then dst = out rounded.
    const int64_t cols = dim(out, 1);
    generic(loc, {columns(loc, out, 0, 1)}, {sum}, {identity2d(), identity2d()}, {kParallel, kParallel},
            [&](Scalars &, ValueRange a) { return a[0]; });
    if (cols > 1) {
      AffineMap toColumn =
          AffineMap::get(2, 0, {b_.getAffineDimExpr(0), b_.getAffineConstantExpr(0)}, b_.getContext());
      generic(loc, {columns(loc, out, 1, cols - 1)}, {sum}, {identity2d(), toColumn}, {kParallel, kReduction},
              [&](Scalars &s, ValueRange a) { return s.alu(tile::Alu::add, a[1], a[0]); });
    }
    generic(loc, {out}, {dst}, {identity2d(), identity2d()}, {kParallel, kParallel},
            [&](Scalars &s, ValueRange a) { return s.fromF32(a[0], td); });
    b_.create<memref::DeallocOp>(loc, out);
    return success();
  }

  LogicalResult transpose(tile::TransposeOp op) {
    Value src = op.getSrc(), dst = op.getDst();
    Type ts = logical(src), td = logical(dst);
    AffineMap swapped =
        AffineMap::get(2, 0, {b_.getAffineDimExpr(1), b_.getAffineDimExpr(0)}, b_.getContext()); // dst (f, p)
    generic(op.getLoc(), {src}, {dst}, {identity2d(), swapped}, {kParallel, kParallel},
            [&](Scalars &s, ValueRange a) { return ts == td ? a[0] : s.fromF32(s.toF32(a[0], ts), td); });
    return success();
  }

  LogicalResult fillWhere(tile::FillWhereOp op) {
    Value dst = op.getDst();
    Type td = logical(dst);
    const int64_t partition = op.getPartition(), free = op.getFree();
    Value offset = b_.create<arith::IndexCastOp>(op.getLoc(), b_.getI64Type(), op.getOffset());
    const float value = op.getValue().convertToFloat();
    tile::Alu cmp = op.getCmp();
    b_.create<linalg::GenericOp>(
        op.getLoc(), ValueRange{}, ValueRange{dst}, ArrayRef<AffineMap>{identity2d()},
        ArrayRef<utils::IteratorType>{kParallel, kParallel}, [&](OpBuilder &b, Location l, ValueRange args) {
          Scalars s(b, l);
          auto i64 = [&](Value index) { return b.create<arith::IndexCastOp>(l, b.getI64Type(), index); };
          auto constant = [&](int64_t v) { return b.create<arith::ConstantOp>(l, b.getI64IntegerAttr(v)); };
          Value p = i64(b.create<linalg::IndexOp>(l, 0)), f = i64(b.create<linalg::IndexOp>(l, 1));
          Value position = b.create<arith::AddIOp>(
              l, offset,
              b.create<arith::AddIOp>(l, b.create<arith::MulIOp>(l, constant(partition), p),
                                      b.create<arith::MulIOp>(l, constant(free), f)));
          // The comparison in f32, as the DSL's semantics compute it (exact for positions below 2^24).
          Value picked = s.alu(cmp, b.create<arith::SIToFPOp>(l, b.getF32Type(), position), s.f32(0.0f));
          Value isPicked = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNE, picked, s.f32(0.0f));
          Value filled = s.fromF32(s.f32(value), td);
          b.create<linalg::YieldOp>(l, ValueRange{b.create<arith::SelectOp>(l, isPicked, filled, args[0])});
        });
    return success();
  }

  LogicalResult scan(tile::ScanOp op) {
    Location loc = op.getLoc();
    Value a = op.getA(), b = op.getB(), dst = op.getDst(), initial = op.getInitial();
    Type ta = logical(a), tb = logical(b), td = logical(dst);
    auto index = [&](int64_t v) { return b_.create<arith::ConstantIndexOp>(loc, v).getResult(); };
    Value zero = index(0), one = index(1);
    auto rows = b_.create<scf::ForOp>(loc, zero, index(dim(a, 0)), one);
    rows->setAttr(golden::kOutlineAttr, b_.getUnitAttr()); // into a function of its own, as linalg ops are
    OpBuilder rb = OpBuilder::atBlockTerminator(rows.getBody());
    Value p = rows.getInductionVar();
    Scalars rs(rb, loc);
    Value start = initial ? rs.toF32(rb.create<memref::LoadOp>(loc, initial, ValueRange{p, zero}), logical(initial))
                          : rs.f32(0.0f);
    Value cols = rb.create<arith::ConstantIndexOp>(loc, dim(a, 1));
    Value first = rb.create<arith::ConstantIndexOp>(loc, 0), step = rb.create<arith::ConstantIndexOp>(loc, 1);
    rb.create<scf::ForOp>(loc, first, cols, step, ValueRange{start},
                          [&](OpBuilder &cb, Location l, Value f, ValueRange state) {
                            Scalars s(cb, l);
                            Value x = s.toF32(cb.create<memref::LoadOp>(l, a, ValueRange{p, f}), ta);
                            Value y = s.toF32(cb.create<memref::LoadOp>(l, b, ValueRange{p, f}), tb);
                            Value next = cb.create<arith::AddFOp>(l, cb.create<arith::MulFOp>(l, x, state[0]), y);
                            cb.create<memref::StoreOp>(l, s.fromF32(next, td), dst, ValueRange{p, f});
                            cb.create<scf::YieldOp>(l, next);
                          });
    return success();
  }

  /// A [rows, cols] window of `v` starting at column `col`.
  Value columns(Location loc, Value v, int64_t col, int64_t cols) {
    llvm::SmallVector<OpFoldResult> offsets{b_.getIndexAttr(0), b_.getIndexAttr(col)};
    llvm::SmallVector<OpFoldResult> sizes{b_.getIndexAttr(dim(v, 0)), b_.getIndexAttr(cols)};
    llvm::SmallVector<OpFoldResult> strides{b_.getIndexAttr(1), b_.getIndexAttr(1)};
    return b_.create<memref::SubViewOp>(loc, v, offsets, sizes, strides);
  }

  /// A reduction into groups (dst [P, G], G > 1) or from an access pattern: per partition and group, the first
  /// element, then each next one folded in, in FP32 (tensor_reduce's order).
  LogicalResult groupedReduce(tile::ReduceOp op) {
    Location loc = op.getLoc();
    Value src = op.getSrc(), dst = op.getDst();
    Type ts = logical(src), td = logical(dst);
    const int64_t groups = dim(dst, 1), n = cast<MemRefType>(op.getSrc().getType()).getNumElements() / dim(dst, 0) / groups;
    const tile::Alu alu = op.getOp();
    partitionLoop(loc, dim(dst, 0), [&](OpBuilder &rb, Value p) {
      auto index = [&](OpBuilder &b, int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v).getResult(); };
      rb.create<scf::ForOp>(loc, index(rb, 0), index(rb, groups), index(rb, 1), ValueRange{},
                            [&](OpBuilder &gb, Location l, Value g, ValueRange) {
                              Scalars s(gb, l);
                              Value base = gb.create<arith::MulIOp>(l, g, index(gb, n));
                              Value first =
                                  s.toF32(gb.create<memref::LoadOp>(l, src, flatIndices(gb, l, src, p, base)), ts);
                              auto fold = gb.create<scf::ForOp>(
                                  l, index(gb, 1), index(gb, n), index(gb, 1), ValueRange{first},
                                  [&](OpBuilder &fb, Location fl, Value r, ValueRange acc) {
                                    Scalars fs(fb, fl);
                                    Value f = fb.create<arith::AddIOp>(fl, base, r);
                                    Value x = fs.toF32(fb.create<memref::LoadOp>(fl, src, flatIndices(fb, fl, src, p, f)), ts);
                                    fb.create<scf::YieldOp>(fl, fs.alu(alu, acc[0], x));
                                  });
                              gb.create<memref::StoreOp>(l, s.fromF32(fold.getResult(0), td), dst, ValueRange{p, g});
                              gb.create<scf::YieldOp>(l);
                            });
    });
    return success();
  }

  LogicalResult reduce(tile::ReduceOp op) {
    Location loc = op.getLoc();
    Value src = op.getSrc(), dst = op.getDst();
    if (dim(dst, 1) != 1 || cast<MemRefType>(src.getType()).getRank() != 2) return groupedReduce(op);
    Type ts = logical(src), td = logical(dst);
    const int64_t cols = dim(src, 1);
    // Fold in f32: directly in dst when it is f32, else in a scratch [P, 1] f32 column rounded at the end.
    Value acc = dst;
    if (!td.isF32()) acc = b_.create<memref::AllocOp>(loc, MemRefType::get({dim(dst, 0), 1}, b_.getF32Type()));
    generic(loc, {columns(loc, src, 0, 1)}, {acc}, {identity2d(), identity2d()}, {kParallel, kParallel},
            [&](Scalars &s, ValueRange a) { return s.toF32(a[0], ts); });
    if (cols > 1) {
      AffineMap toColumn =
          AffineMap::get(2, 0, {b_.getAffineDimExpr(0), b_.getAffineConstantExpr(0)}, b_.getContext());
      tile::Alu alu = op.getOp();
      generic(loc, {columns(loc, src, 1, cols - 1)}, {acc}, {identity2d(), toColumn}, {kParallel, kReduction},
              [&](Scalars &s, ValueRange a) { return s.alu(alu, a[1], s.toF32(a[0], ts)); });
    }
    if (acc != dst) {
      generic(loc, {acc}, {dst}, {identity2d(), identity2d()}, {kParallel, kParallel},
              [&](Scalars &s, ValueRange a) { return s.fromF32(a[0], td); });
      b_.create<memref::DeallocOp>(loc, acc);
    }
    return success();
  }

  /// tile.copy, and tile.broadcast (src read repeatedly along its dimensions of size 1).
  template <typename CopyOrBroadcast> LogicalResult copy(CopyOrBroadcast op) {
    Value src = op.getSrc(), dst = op.getDst();
    Type ts = logical(src), td = logical(dst);
    auto rank = [](Value v) { return cast<MemRefType>(v.getType()).getRank(); };
    if (rank(src) != 2 || rank(dst) != 2) { // an access pattern on a side: element by element in its order
      // Gathered whole into a staging buffer first, then written: the instruction reads all of src before it
      // writes dst, which may overlap it (a pattern over the tile it copies).
      Location l = op.getLoc();
      Staged staged;
      Value flat = gather(l, src, staged);
      const int64_t partitions = dim(src, 0), n = dim(flat, 1);
      partitionLoop(l, partitions, [&](OpBuilder &rb, Value p) {
        elementLoop(rb, l, n, [&](OpBuilder &cb, Location cl, Value f) {
          Scalars s(cb, cl);
          Value x = cb.create<memref::LoadOp>(cl, flat, ValueRange{p, f});
          Value y = ts == td ? x : s.fromF32(s.toF32(x, ts), td);
          cb.create<memref::StoreOp>(cl, y, dst, flatIndices(cb, cl, dst, p, f));
        });
      });
      release(l, staged);
      return success();
    }
    generic(op.getLoc(), {src}, {dst}, {broadcastMap(src, dst), identity2d()}, {kParallel, kParallel},
            [&](Scalars &s, ValueRange a) { return ts == td ? a[0] : s.fromF32(s.toF32(a[0], ts), td); });
    return success();
  }

  LogicalResult memset(tile::MemsetOp op) {
    Value dst = op.getDst();
    Type td = logical(dst);
    if (auto integer = dyn_cast<IntegerType>(td); integer && isTileInteger(td)) { // rounded and saturated
      const double value = op.getValue().convertToDouble();
      const auto [lo, hi] = integerLimits(integer);
      const double stored = std::isnan(value) ? 0.0 : std::clamp(std::nearbyint(value), lo, hi);
      b_.create<linalg::FillOp>(
          op.getLoc(),
          b_.create<arith::ConstantOp>(op.getLoc(), b_.getIntegerAttr(b_.getIntegerType(integer.getWidth()),
                                                                      static_cast<int64_t>(stored)))
              .getResult(),
          dst);
      return success();
    }
    // The value rounded to nearest even into the tile's type (APFloat follows the same rules as the DSL).
    llvm::APFloat value = op.getValue();
    bool lost = false;
    value.convert(cast<FloatType>(td).getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    Attribute fill = isFp8(td) ? Attribute(b_.getIntegerAttr(b_.getI8Type(), value.bitcastToAPInt().getZExtValue()))
                               : Attribute(b_.getFloatAttr(td, value));
    b_.create<linalg::FillOp>(op.getLoc(), b_.create<arith::ConstantOp>(op.getLoc(), cast<TypedAttr>(fill)).getResult(),
                              dst);
    return success();
  }

  func::FuncOp fn_;
  OpBuilder b_;
  DenseMap<Value, Type> logical_;
};

struct LowerTileToLinalgPass : PassWrapper<LowerTileToLinalgPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerTileToLinalgPass)
  StringRef getArgument() const override { return "tile-to-linalg"; }
  StringRef getDescription() const override {
    return "Lower tile ops to linalg/memref/arith/math host code with the DSL's numerics (the golden model)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, math::MathDialect, memref::MemRefDialect, arith::ArithDialect,
                    func::FuncDialect>();
  }

  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (failed(Lowering(fn).run())) return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createLowerTileToLinalgPass() { return std::make_unique<LowerTileToLinalgPass>(); }

} // namespace tessera::compiler
