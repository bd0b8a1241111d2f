#include "tessera/dsl/Ops.h"
#include "tessera/dsl/TileSize.h"

#include "Recording.h"
#include "Tracer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tsr {

using detail::toLoc;
using detail::Tracer;
using tessera::isa::MemSpace;

namespace detail {

void fail(const Loc &loc, std::string message, std::string hint) {
  throw Error(std::move(message), toLoc(loc), std::move(hint));
}

std::string shapeStr(const Shape &s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

namespace {

/// Checks a new tile's shape against the language's limits.
void checkTileShape(const char *op, const Shape &shape, const Loc &loc) {
  if (shape.size() != 2)
    fail(loc, fmt::format("{}: tiles are 2-D [partition, free], got {}", op, shapeStr(shape)));
  if (shape[0] <= 0 || shape[1] <= 0) fail(loc, fmt::format("{}: tile shape {} must be positive", op, shapeStr(shape)));
  if (shape[0] > tile_size::pmax)
    fail(loc,
         fmt::format("{}: partition dimension {} exceeds tsr::tile_size::pmax ({})", op, shape[0], tile_size::pmax),
         "split the first dimension into tiles of at most 128 rows");
}

} // namespace

Tile newTile(const char *op, Shape shape, DType dtype, MemSpace space, const Loc &loc, int64_t offset) {
  checkTileShape(op, shape, loc);
  if (space == MemSpace::Psum) {
    int64_t bytes = shape[1] * tessera::isa::byteSize(dtype);
    if (bytes > tile_size::psum_bytes)
      fail(loc,
           fmt::format("{}: PSUM tile {} of {} takes {} bytes per partition, more than one PSUM bank ({} bytes)", op,
                       shapeStr(shape), tessera::isa::name(dtype), bytes, tile_size::psum_bytes),
           "keep PSUM tiles within 2 KiB per partition (512 FP32 elements)");
  }
  graph::Buffer b;
  b.shape = std::move(shape);
  b.dtype = dtype;
  b.space = space;
  b.loc = toLoc(loc);
  b.offset = offset;
  return Tile(Tracer::current(loc).allocate(std::move(b)));
}

void record(graph::Op op, const Loc &loc) {
  op.loc = toLoc(loc);
  Tracer::current(loc).append(std::move(op));
}

graph::Op makeOp(graph::OpKind kind, int dst, std::vector<int> srcs) {
  graph::Op op;
  op.kind = kind;
  op.dst = dst;
  op.srcs = std::move(srcs);
  return op;
}

} // namespace detail

using namespace detail;

void detail::requireNotPatternDestination(const char *op, const Tile &dst, const Loc &loc) {
  const graph::Buffer &b = Tracer::current(loc).graph().buffers[dst.buffer()];
  if (!b.viewPattern.empty())
    fail(loc, fmt::format("{}: the destination is an access pattern of tile '{}' (Tile::ap); elementwise ops read "
                          "access patterns and write tiles", op, Tracer::current(loc).graph().buffers[b.viewOf].name),
         "compute into a tile, then write it into the pattern with tsr::assign(t.ap(...), result)");
}

namespace {

/// Refuses `t` when it is an access pattern read across a wider row: a pattern is walked as it is, never repeated.
void requireNotPatternBroadcast(const char *op, const Tile &t, const Loc &loc) {
  const graph::Buffer &b = Tracer::current(loc).graph().buffers[t.buffer()];
  if (!b.viewPattern.empty() && t.shape()[1] == 1)
    fail(loc, fmt::format("{}: an access pattern of one element per partition (tile '{}') is not broadcast along "
                          "the free dimension", op, Tracer::current(loc).graph().buffers[b.viewOf].name),
         "copy it into a [P, 1] tile first (tsr::copy(t.ap(...)))");
}

/// An elementwise binary op with [P, 1] broadcasting on either side.
Tile binary(const char *op, tessera::isa::AluOp alu, const Operand &a, const Operand &b, const Loc &loc) {
  Tile x = a.tile(op, "first", Patterns::Read), y = b.tile(op, "second", Patterns::Read);
  const Shape &sx = x.shape(), &sy = y.shape();
  bool sameShape = sx == sy;
  bool broadcast = sx[0] == sy[0] && (sx[1] == 1 || sy[1] == 1);
  if (!sameShape && !broadcast)
    fail(loc, fmt::format("{}: shape mismatch, {} and {}", op, shapeStr(sx), shapeStr(sy)),
         "operands must have the same shape, or one may be [P, 1] (broadcast along the free dimension)");
  if (!sameShape) {
    requireNotPatternBroadcast(op, x, loc);
    requireNotPatternBroadcast(op, y, loc);
  }
  Shape result{sx[0], std::max(sx[1], sy[1])};
  DType dtype = x.space() == MemSpace::Psum ? DType::F32 : x.dtype();
  Tile dst = newTile(op, result, dtype, MemSpace::Sbuf, loc);
  graph::Op o = makeOp(graph::OpKind::Binary, dst.buffer(), {x.buffer(), y.buffer()});
  o.alu = alu;
  record(std::move(o), loc);
  return dst;
}

/// An elementwise op between a tile and a number: x <alu> c, or c <alu> x when `reverse`.
Tile binaryScalar(const char *op, tessera::isa::AluOp alu, const Operand &x, Number c, bool reverse, const Loc &loc) {
  Tile src = x.tile(op, reverse ? "second" : "first", Patterns::Read);
  DType dtype = src.space() == MemSpace::Psum ? DType::F32 : src.dtype();
  Tile dst = newTile(op, src.shape(), dtype, MemSpace::Sbuf, loc);
  graph::Op o = makeOp(graph::OpKind::BinaryScalar, dst.buffer(), {src.buffer()});
  o.alu = alu;
  o.value = c.value();
  o.reverse = reverse;
  record(std::move(o), loc);
  return dst;
}

/// acc <alu>= c in place, in acc's dtype.
const Tile &inPlaceScalar(const char *op, tessera::isa::AluOp alu, const Tile &acc, Number c) {
  const Loc &loc = c.loc();
  Tracer::current(loc).checkAlive(acc.buffer(), loc);
  requireNotPatternDestination(op, acc, loc);
  graph::Op o = makeOp(graph::OpKind::BinaryScalar, acc.buffer(), {acc.buffer()});
  o.alu = alu;
  o.value = c.value();
  record(std::move(o), loc);
  return acc;
}

/// The reduction of dimensions `axis` (NKI's numbering; empty: the free dimension) of x: [P, G].
Tile reduce(const char *op, tessera::isa::AluOp alu, const Operand &x, const std::vector<int> &axis, const Loc &loc) {
  Tile src = x.tile(op, "input", Patterns::Read);
  const graph::Buffer &b = Tracer::current(loc).graph().buffers[src.buffer()];
  std::vector<int64_t> dims{src.shape()[1]}; // the free dimensions: the pattern's counts, or the tile's one
  if (!b.viewPattern.empty()) {
    dims.clear();
    for (size_t i = 1; i < b.viewPattern.size(); i += 2) dims.push_back(b.viewPattern[i]);
  }
  const int rank = static_cast<int>(dims.size());
  int64_t groups = 1;
  if (!axis.empty()) {
    bool trailing = axis.back() == rank;
    for (size_t i = 0; i < axis.size(); ++i)
      trailing = trailing && axis[i] >= 1 && (i == 0 || axis[i] == axis[i - 1] + 1);
    if (!trailing)
      fail(loc,
           fmt::format("{}: axis [{}] of an input with free dimensions {}: the axes reduced are the last ones, in "
                       "order, and never 0 (the partitions)",
                       op, fmt::join(axis, ", "), shapeStr(dims)),
           fmt::format("order the access pattern's pairs so that the reduced ones come last (one tensor_reduce "
                       "reduces the innermost dimensions), e.g. axis {{{}}}",
                       rank));
    for (int d = 0; d + 1 < axis.front(); ++d) groups *= dims[d];
  }
  Tile dst = newTile(op, {src.shape()[0], groups}, DType::F32, MemSpace::Sbuf, loc);
  graph::Op o = makeOp(graph::OpKind::Reduce, dst.buffer(), {src.buffer()});
  o.alu = alu;
  record(std::move(o), loc);
  return dst;
}

} // namespace

void require(bool condition, const std::string &message, Loc loc) {
  if (!condition) fail(loc, message);
}

Tile psum(DType dtype, Shape shape, Loc loc) {
  Tile t = newTile("psum", std::move(shape), dtype, MemSpace::Psum, loc);
  Tracer::current(loc).markAccumulator(t.buffer());
  graph::Op o = makeOp(graph::OpKind::Memset, t.buffer(), {});
  o.value = 0.0f;
  record(std::move(o), loc);
  return t;
}

Tile full(DType dtype, Shape shape, float value, Loc loc) {
  Tile t = newTile("full", std::move(shape), dtype, MemSpace::Sbuf, loc);
  graph::Op o = makeOp(graph::OpKind::Memset, t.buffer(), {});
  o.value = value;
  record(std::move(o), loc);
  return t;
}

void fill(const Tile &dst, float value, Loc loc) {
  Tracer::current(loc).checkAlive(dst.buffer(), loc);
  graph::Op o = makeOp(graph::OpKind::Memset, dst.buffer(), {});
  o.value = value;
  record(std::move(o), loc);
}

Tile ndarray(DType dtype, Shape shape, MemSpace space, Loc loc) {
  if (space == MemSpace::Hbm)
    fail(loc, "ndarray: tiles live in SBUF or PSUM; HBM tensors are the kernel's arguments");
  return newTile("ndarray", std::move(shape), dtype, space, loc);
}

Tile load(const HbmTile &src, Loc loc) {
  Tile t = newTile("load", src.shape(), src.dtype(), MemSpace::Sbuf, loc);
  graph::Op o = makeOp(graph::OpKind::Load, t.buffer(), {});
  o.hbm = src.window();
  record(std::move(o), loc);
  return t;
}

namespace {

/// How a shape mismatch names the HBM side: a transposed window says so, with the window it transposes and a hint.
struct WindowInWords {
  std::string what, hint;
};
WindowInWords windowInWords(const HbmTile &w, const Shape &tile) {
  if (!w.window().transposed) return {fmt::format("HBM window {}", shapeStr(w.shape())), ""};
  const Shape &s = w.shape();
  return {fmt::format("HBM window {} (the window {} transposed)", shapeStr(s), shapeStr({s[1], s[0]})),
          fmt::format("a transposed window's tile is [columns, rows] of the window: take the window as {}, or "
                      "without .transposed()",
                      shapeStr(tile.size() == 2 ? Shape{tile[1], tile[0]} : tile))};
}

} // namespace

void load(const Tile &dst, const HbmTile &src, Loc loc) {
  Tracer::current(loc).checkAlive(dst.buffer(), loc);
  if (dst.space() != MemSpace::Sbuf)
    fail(loc, fmt::format("load: the destination is in {}; DMA loads fill SBUF tiles", tessera::isa::name(dst.space())));
  if (dst.shape() != src.shape()) {
    const WindowInWords window = windowInWords(src, dst.shape());
    fail(loc, fmt::format("load: shape mismatch, {} into tile {}", window.what, shapeStr(dst.shape())), window.hint);
  }
  if (dst.dtype() != src.dtype())
    fail(loc, fmt::format("load: the tensor is {} but the tile is {}", tessera::isa::name(src.dtype()),
                          tessera::isa::name(dst.dtype())),
         "DMA does not convert: load into a tile of the tensor's dtype, then tsr::copy");
  graph::Op o = makeOp(graph::OpKind::Load, dst.buffer(), {});
  o.hbm = src.window();
  record(std::move(o), loc);
}

Tile load_transpose2d(const HbmTile &src, Loc loc) { return load(src.transposed(loc), loc); }

void store(const HbmTile &dst, const Operand &src, Loc loc) {
  Tile t = src.tile("store", "source");
  if (t.shape() != dst.shape()) {
    const WindowInWords window = windowInWords(dst, t.shape());
    fail(loc, fmt::format("store: shape mismatch, tile {} into {}", shapeStr(t.shape()), window.what), window.hint);
  }
  if (t.dtype() != dst.dtype())
    fail(loc,
         fmt::format("store: the tile is {} but the tensor is {}", tessera::isa::name(t.dtype()),
                     tessera::isa::name(dst.dtype())),
         fmt::format("DMA does not convert: cast first, tsr::copy<tsr::{}>(tile)", tessera::isa::name(dst.dtype())));
  const graph::HbmWindow &w = dst.window();
  const size_t rowDim = w.sizes.size() - 2; // the window's rows; the leading dimensions before it are fixed
  for (size_t d = rowDim; d < w.steps.size(); ++d)
    if (w.steps[d] == 0 && w.sizes[d] > 1)
      fail(loc,
           fmt::format("store: the window repeats one {} of the tensor {} times (step 0): every copy would go to the "
                       "same place",
                       d == rowDim ? "row" : "column", w.sizes[d]),
           "a window with a step of 0 is a broadcast to load; store into a window of positive steps");
  graph::Op o = makeOp(graph::OpKind::Store, -1, {t.buffer()});
  o.hbm = w;
  record(std::move(o), loc);
}

Tile copy(const Operand &src, DType dtype, Loc loc) {
  Tile s = src.tile("copy", "source", Patterns::Read);
  Tile t = newTile("copy", s.shape(), dtype, MemSpace::Sbuf, loc);
  record(makeOp(graph::OpKind::Copy, t.buffer(), {s.buffer()}), loc);
  return t;
}

void assign(const Tile &dst, const Operand &src, Loc loc) {
  Tracer::current(loc).checkAlive(dst.buffer(), loc);
  Tile s = src.tile("assign", "source", Patterns::Read);
  if (s.shape() != dst.shape())
    fail(loc, fmt::format("assign: shape mismatch, {} into {}", shapeStr(s.shape()), shapeStr(dst.shape())),
         "the destination (a tile or a slice of one) must have the source's shape");
  if (Tracer::current(loc).isAccumulator(dst.buffer()))
    fail(loc, "assign: the destination is a zero-filled PSUM accumulator (tsr::psum), which only matmuls write",
         "assign into an SBUF tile, or into a PSUM tile made with tsr::ndarray");
  record(makeOp(graph::OpKind::Copy, dst.buffer(), {s.buffer()}), loc);
}

MatmulExpr matmul(const Operand &stationary, const Operand &moving, Loc loc) {
  Tile s = stationary.tile("matmul", "stationary"), m = moving.tile("matmul", "moving");
  for (auto [tile, role] : {std::pair{s, "stationary"}, std::pair{m, "moving"}})
    if (tile.space() != MemSpace::Sbuf)
      fail(loc, fmt::format("matmul: the {} operand is in {}; the tensor engine reads SBUF", role,
                            tessera::isa::name(tile.space())),
           "copy it to SBUF first with tsr::copy");
  const Shape &ss = s.shape(), &ms = m.shape();
  if (ss[0] != ms[0])
    fail(loc,
         fmt::format("matmul: shape mismatch, stationary {} and moving {} must share the contraction (partition) "
                     "dimension",
                     shapeStr(ss), shapeStr(ms)),
         "matmul(a_t, b) computes a_t.T @ b: both operands are [K, ...]");
  if (ss[1] > tile_size::gemm_stationary_fmax)
    fail(loc, fmt::format("matmul: stationary free size {} exceeds tsr::tile_size::gemm_stationary_fmax ({})", ss[1],
                          tile_size::gemm_stationary_fmax));
  if (ms[1] > tile_size::gemm_moving_fmax)
    fail(loc, fmt::format("matmul: moving free size {} exceeds tsr::tile_size::gemm_moving_fmax ({})", ms[1],
                          tile_size::gemm_moving_fmax),
         "split the moving tile's free dimension into tiles of at most 512");
  return MatmulExpr(s, m, loc);
}

MatmulExpr::MatmulExpr(MatmulExpr &&other) noexcept
    : stationary_(other.stationary_), moving_(other.moving_), loc_(other.loc_), consumed_(other.consumed_) {
  other.consumed_ = true;
}

MatmulExpr::~MatmulExpr() {
  if (consumed_) return;
  Tracer::current(loc_).defer(Error("matmul: the result is never used", toLoc(loc_),
                                    "accumulate it with `acc += tsr::matmul(...)` or keep it: `Tile t = ...`"));
}

void MatmulExpr::record(Tile dst, bool accumulate, bool isaLevel) {
  consumed_ = true;
  Tracer::current(loc_).checkAlive(dst.buffer(), loc_);
  Shape expected{stationary_.shape()[1], moving_.shape()[1]};
  if (dst.space() != MemSpace::Psum || dst.dtype() != DType::F32)
    fail(loc_, fmt::format("matmul: accumulates into a {} {} tile; expected an f32 PSUM tile",
                           tessera::isa::name(dst.dtype()), tessera::isa::name(dst.space())),
         "create the accumulator with tsr::psum<tsr::f32>({M, N})");
  if (dst.shape() != expected)
    fail(loc_, fmt::format("matmul: shape mismatch, the result is {} but the accumulator is {}", shapeStr(expected),
                           shapeStr(dst.shape())));
  if (!isaLevel && Tracer::current(loc_).graph().buffers[dst.buffer()].viewOf >= 0)
    fail(loc_, "matmul: the accumulator is a slice of a PSUM tile, where no accumulation group can start",
         "accumulate into a whole PSUM tile: tsr::psum<tsr::f32>({M, N})");
  graph::Op o = makeOp(graph::OpKind::Matmul, dst.buffer(), {stationary_.buffer(), moving_.buffer()});
  o.accumulate = accumulate;
  o.isaLevel = isaLevel;
  detail::record(std::move(o), loc_);
}

MatmulExpr::operator Tile() && {
  Tile dst = newTile("matmul", {stationary_.shape()[1], moving_.shape()[1]}, DType::F32, MemSpace::Psum, loc_);
  record(dst, false);
  return dst;
}

Tile &operator+=(Tile &acc, MatmulExpr &&m) {
  m.record(acc, true);
  return acc;
}

Tile add(const Operand &a, const Operand &b, Loc loc) { return binary("add", tessera::isa::AluOp::Add, a, b, loc); }
Tile subtract(const Operand &a, const Operand &b, Loc loc) { return binary("subtract", tessera::isa::AluOp::Subtract, a, b, loc); }
Tile multiply(const Operand &a, const Operand &b, Loc loc) { return binary("multiply", tessera::isa::AluOp::Multiply, a, b, loc); }
Tile divide(const Operand &a, const Operand &b, Loc loc) { return binary("divide", tessera::isa::AluOp::Divide, a, b, loc); }
Tile maximum(const Operand &a, const Operand &b, Loc loc) { return binary("maximum", tessera::isa::AluOp::Max, a, b, loc); }
Tile minimum(const Operand &a, const Operand &b, Loc loc) { return binary("minimum", tessera::isa::AluOp::Min, a, b, loc); }
Tile operator+(const Operand &a, const Operand &b) { return add(a, b, a.loc()); }

namespace {

/// acc <alu>= x in place (x the same shape or [P, 1]); `op` ("+=") names it in errors, `sameShape` ("the added
/// tile must have the accumulator's shape") starts the hint of a shape mismatch.
const Tile &inPlaceBinary(const char *op, tessera::isa::AluOp alu, const Tile &acc, const Operand &x,
                          const char *sameShape) {
  const Loc &loc = x.loc();
  Tracer::current(loc).checkAlive(acc.buffer(), loc);
  requireNotPatternDestination(op, acc, loc);
  Tile y = x.tile(op, "right-hand", Patterns::Read);
  const Shape &sa = acc.shape(), &sy = y.shape();
  if (sa != sy) requireNotPatternBroadcast(op, y, loc);
  if (sa != sy && !(sa[0] == sy[0] && sy[1] == 1))
    fail(loc, fmt::format("{}: shape mismatch, {} {} {}", op, shapeStr(sa), op, shapeStr(sy)),
         fmt::format("{}, or be [P, 1] (broadcast along the free dimension)", sameShape));
  graph::Op o = makeOp(graph::OpKind::Binary, acc.buffer(), {acc.buffer(), y.buffer()});
  o.alu = alu;
  record(std::move(o), loc);
  return acc;
}

} // namespace

const Tile &operator+=(const Tile &acc, const Operand &x) {
  return inPlaceBinary("+=", tessera::isa::AluOp::Add, acc, x, "the added tile must have the accumulator's shape");
}
const Tile &operator*=(const Tile &acc, const Operand &x) {
  return inPlaceBinary("*=", tessera::isa::AluOp::Multiply, acc, x, "the factor must have the tile's shape");
}
Tile operator-(const Operand &a, const Operand &b) { return subtract(a, b, a.loc()); }
Tile operator*(const Operand &a, const Operand &b) { return multiply(a, b, a.loc()); }
Tile operator/(const Operand &a, const Operand &b) { return divide(a, b, a.loc()); }

Tile add(const Operand &x, Number c, Loc loc) { return binaryScalar("add", tessera::isa::AluOp::Add, x, c, false, loc); }
Tile add(Number c, const Operand &x, Loc loc) { return binaryScalar("add", tessera::isa::AluOp::Add, x, c, true, loc); }
Tile subtract(const Operand &x, Number c, Loc loc) { return binaryScalar("subtract", tessera::isa::AluOp::Subtract, x, c, false, loc); }
Tile subtract(Number c, const Operand &x, Loc loc) { return binaryScalar("subtract", tessera::isa::AluOp::Subtract, x, c, true, loc); }
Tile multiply(const Operand &x, Number c, Loc loc) { return binaryScalar("multiply", tessera::isa::AluOp::Multiply, x, c, false, loc); }
Tile multiply(Number c, const Operand &x, Loc loc) { return binaryScalar("multiply", tessera::isa::AluOp::Multiply, x, c, true, loc); }
Tile divide(const Operand &x, Number c, Loc loc) { return binaryScalar("divide", tessera::isa::AluOp::Divide, x, c, false, loc); }
Tile divide(Number c, const Operand &x, Loc loc) { return binaryScalar("divide", tessera::isa::AluOp::Divide, x, c, true, loc); }
Tile maximum(const Operand &x, Number c, Loc loc) { return binaryScalar("maximum", tessera::isa::AluOp::Max, x, c, false, loc); }
Tile maximum(Number c, const Operand &x, Loc loc) { return binaryScalar("maximum", tessera::isa::AluOp::Max, x, c, true, loc); }
Tile minimum(const Operand &x, Number c, Loc loc) { return binaryScalar("minimum", tessera::isa::AluOp::Min, x, c, false, loc); }
Tile minimum(Number c, const Operand &x, Loc loc) { return binaryScalar("minimum", tessera::isa::AluOp::Min, x, c, true, loc); }
Tile operator+(const Operand &x, Number c) { return add(x, c, x.loc()); }
Tile operator+(Number c, const Operand &x) { return add(c, x, x.loc()); }
Tile operator-(const Operand &x, Number c) { return subtract(x, c, x.loc()); }
Tile operator-(Number c, const Operand &x) { return subtract(c, x, x.loc()); }
Tile operator*(const Operand &x, Number c) { return multiply(x, c, x.loc()); }
Tile operator*(Number c, const Operand &x) { return multiply(c, x, x.loc()); }
Tile operator/(const Operand &x, Number c) { return divide(x, c, x.loc()); }
Tile operator/(Number c, const Operand &x) { return divide(c, x, x.loc()); }
const Tile &operator+=(const Tile &acc, Number c) { return inPlaceScalar("+=", tessera::isa::AluOp::Add, acc, c); }
const Tile &operator*=(const Tile &acc, Number c) {
  return inPlaceScalar("*=", tessera::isa::AluOp::Multiply, acc, c);
}

namespace {

/// A new tile holding func(x), recorded as one Activation op; `name` names the call in errors.
Tile activate(const char *name, tessera::isa::ActFunc func, const Operand &x, const Loc &loc) {
  Tile src = x.tile(name, "input", Patterns::Read);
  Tile dst = newTile(name, src.shape(), src.space() == MemSpace::Psum ? DType::F32 : src.dtype(), MemSpace::Sbuf, loc);
  graph::Op o = makeOp(graph::OpKind::Activation, dst.buffer(), {src.buffer()});
  o.func = func;
  o.value = 1.0f;
  record(std::move(o), loc);
  return dst;
}

} // namespace

using tessera::isa::ActFunc;
Tile exp(const Operand &x, Loc loc) { return activate("exp", ActFunc::Exp, x, loc); }
Tile log(const Operand &x, Loc loc) { return activate("log", ActFunc::Log, x, loc); }
Tile tanh(const Operand &x, Loc loc) { return activate("tanh", ActFunc::Tanh, x, loc); }
Tile gelu(const Operand &x, Loc loc) { return activate("gelu", ActFunc::Gelu, x, loc); }
Tile gelu_apprx_tanh(const Operand &x, Loc loc) { return activate("gelu_apprx_tanh", ActFunc::GeluApproxTanh, x, loc); }
Tile silu(const Operand &x, Loc loc) { return activate("silu", ActFunc::Silu, x, loc); }
Tile sigmoid(const Operand &x, Loc loc) { return activate("sigmoid", ActFunc::Sigmoid, x, loc); }
Tile relu(const Operand &x, Loc loc) { return activate("relu", ActFunc::Relu, x, loc); }
Tile rsqrt(const Operand &x, Loc loc) { return activate("rsqrt", ActFunc::Rsqrt, x, loc); }
Tile square(const Operand &x, Loc loc) { return activate("square", ActFunc::Square, x, loc); }
Tile sqrt(const Operand &x, Loc loc) { return activate("sqrt", ActFunc::Sqrt, x, loc); }
Tile reciprocal(const Operand &x, Loc loc) { return activate("reciprocal", ActFunc::Reciprocal, x, loc); }

Tile sum(const Operand &x, Loc loc) { return reduce("sum", tessera::isa::AluOp::Add, x, {}, loc); }
Tile max(const Operand &x, Loc loc) { return reduce("max", tessera::isa::AluOp::Max, x, {}, loc); }
Tile sum(const Operand &x, std::vector<int> axis, Loc loc) {
  return reduce("sum", tessera::isa::AluOp::Add, x, axis, loc);
}
Tile max(const Operand &x, std::vector<int> axis, Loc loc) {
  return reduce("max", tessera::isa::AluOp::Max, x, axis, loc);
}

void device_print(const std::string &name, const Operand &tile, Loc loc) {
  Tile t = tile.tile("device_print", "tile");
  graph::Op o = makeOp(graph::OpKind::Print, -1, {t.buffer()});
  o.text = name;
  record(std::move(o), loc);
}

} // namespace tsr
