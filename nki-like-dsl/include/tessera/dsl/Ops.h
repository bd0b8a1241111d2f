#pragma once
/// \file
/// The language-level operations (NKI's `nki.language` level): each records one tile operation in the kernel
/// being traced, checks its operands at once, and reports misuse as a tsr::Error at the caller's line.

#include "tessera/dsl/Tile.h"

#include <source_location>
#include <type_traits>

namespace tsr {

using Error = tessera::Error;
using Loc = std::source_location;

/// Element types, usable as values (`tsr::input("a", {..}, tsr::bf16)`) and as template arguments
/// (`tsr::copy<tsr::bf16>(t)`).
inline constexpr DType f32 = DType::F32;
inline constexpr DType bf16 = DType::BF16;
inline constexpr DType f16 = DType::F16;
inline constexpr DType f8e4m3 = DType::F8E4M3;
inline constexpr DType f8e5m2 = DType::F8E5M2;
inline constexpr DType i32 = DType::I32; ///< indices, iota values
inline constexpr DType u32 = DType::U32; ///< indices (local_gather), predicates
inline constexpr DType u8 = DType::U8;   ///< predicates (tensor_copy_predicated)
inline constexpr DType i8 = DType::I8;   ///< quantized values
inline constexpr DType i16 = DType::I16;
inline constexpr DType u16 = DType::U16;

/// Where tsr::ndarray puts a tile (NKI's buffer=nl.sbuf / nl.psum).
namespace buffer {
inline constexpr tessera::isa::MemSpace sbuf = tessera::isa::MemSpace::Sbuf;
inline constexpr tessera::isa::MemSpace psum = tessera::isa::MemSpace::Psum;
} // namespace buffer

/// Reports a tsr::Error at the caller's line unless `condition` holds.
void require(bool condition, const std::string &message, Loc loc = Loc::current());

// ---- Tiles -------------------------------------------------------------------------------------------------

/// A new PSUM tile, zero-filled, to accumulate matmuls into (NKI: nl.zeros(..., buffer=nl.psum)).
Tile psum(DType dtype, Shape shape, Loc loc = Loc::current());
template <DType T> Tile psum(Shape shape, Loc loc = Loc::current()) { return psum(T, std::move(shape), loc); }
/// A new SBUF tile filled with `value`.
Tile full(DType dtype, Shape shape, float value, Loc loc = Loc::current());
template <DType T> Tile zeros(Shape shape, Loc loc = Loc::current()) { return full(T, std::move(shape), 0.0f, loc); }
/// A new tile whose contents are undefined until something writes it (NKI: nl.ndarray). Reading it first is a
/// kernel bug, which the simulator reports as an uninitialised read.
Tile ndarray(DType dtype, Shape shape, tessera::isa::MemSpace space = tessera::isa::MemSpace::Sbuf,
             Loc loc = Loc::current());
template <DType T> Tile ndarray(Shape shape, Loc loc = Loc::current()) {
  return ndarray(T, std::move(shape), tessera::isa::MemSpace::Sbuf, loc);
}
/// Sets every element of an existing tile (or slice) to `value` (NKI: `t[...] = value`): the language-level fill,
/// which the compiler may fold away (a zeroed PSUM tile that a matmul overwrites) and which runs on every target,
/// unlike tsr::isa::memset, which is exactly one NeuronCore instruction.
void fill(const Tile &dst, float value, Loc loc = Loc::current());

// ---- Data movement -----------------------------------------------------------------------------------------

/// Copies a window of HBM into a new SBUF tile of the same shape and dtype (a DMA).
Tile load(const HbmTile &src, Loc loc = Loc::current());
/// Copies a window of HBM into an existing SBUF tile or slice of the same shape and dtype (a DMA; NKI:
/// `t[...] = nl.load(...)`): how several DMAs fill one tile side by side, e.g. a [128, 4096] tile loaded in
/// 512-column chunks that later loops slice by their indices.
void load(const Tile &dst, const HbmTile &src, Loc loc = Loc::current());
/// Copies a window of HBM [F, P] into a new SBUF tile [P, F], transposed (NKI: nl.load_transpose2d(src)): the same
/// as load(src.transposed()), which HbmTile::transposed describes. P <= tile_size::pmax.
Tile load_transpose2d(const HbmTile &src, Loc loc = Loc::current());
/// Copies a tile into a window of HBM (a DMA). Shapes and dtypes must match: cast first with copy<T>().
void store(const HbmTile &dst, const Operand &src, Loc loc = Loc::current());
/// A new SBUF tile holding `src` converted to `dtype` (NKI: nl.copy(x, dtype=...)).
Tile copy(const Operand &src, DType dtype, Loc loc = Loc::current());
template <DType T> Tile copy(const Operand &src, Loc loc = Loc::current()) { return copy(src, T, loc); }
/// Copies `src` into the existing tile or slice `dst` of the same shape, converting to dst's dtype (NKI:
/// `dst[...] = src`): on the Vector, Scalar or GpSimd engine, whichever the compiler finds least busy; a PSUM
/// source or destination (a matmul or transpose result) goes to the Vector or Scalar engine.
void assign(const Tile &dst, const Operand &src, Loc loc = Loc::current());

// ---- Tensor engine -----------------------------------------------------------------------------------------

class MatmulExpr;
namespace isa {
void nc_matmul(const Tile &dst, const Operand &stationary, const Operand &moving, bool accumulate, Loc loc);
}

/// A pending matmul `stationary.T @ moving`: contraction over the partition dimension of both operands, as
/// NKI's nc_matmul. Consume it with `acc += matmul(...)` (accumulate into a PSUM tile) or `Tile t = matmul(...)`
/// (a new PSUM tile).
class [[nodiscard]] MatmulExpr {
public:
  MatmulExpr(Tile stationary, Tile moving, Loc loc) : stationary_(stationary), moving_(moving), loc_(loc) {}
  MatmulExpr(const MatmulExpr &) = delete;
  MatmulExpr(MatmulExpr &&other) noexcept;
  ~MatmulExpr();
  /// Records the matmul into a new FP32 PSUM tile.
  operator Tile() &&; // NOLINT: implicit on purpose, `Tile t = matmul(a, b);`

private:
  friend Tile &operator+=(Tile &acc, MatmulExpr &&m);
  friend void isa::nc_matmul(const Tile &, const Operand &, const Operand &, bool, Loc);
  void record(Tile dst, bool accumulate, bool isaLevel = false);
  Tile stationary_, moving_;
  Loc loc_;
  bool consumed_ = false;
};

/// stationary [K, M], moving [K, N] -> [M, N] in PSUM (FP32). K <= pmax, M <= gemm_stationary_fmax,
/// N <= gemm_moving_fmax; both operands in SBUF.
MatmulExpr matmul(const Operand &stationary, const Operand &moving, Loc loc = Loc::current());
/// Accumulates a matmul into `acc` (a PSUM tile of shape [M, N]).
Tile &operator+=(Tile &acc, MatmulExpr &&m);

// ---- Vector and scalar engines -----------------------------------------------------------------------------

/// Elementwise binary operations. Shapes must match, except that either side may be [P, 1], broadcast along
/// the free dimension. The result is an SBUF tile of the first operand's dtype (FP32 when that lives in PSUM).
Tile add(const Operand &a, const Operand &b, Loc loc = Loc::current());
Tile subtract(const Operand &a, const Operand &b, Loc loc = Loc::current());
Tile multiply(const Operand &a, const Operand &b, Loc loc = Loc::current());
Tile divide(const Operand &a, const Operand &b, Loc loc = Loc::current());
Tile maximum(const Operand &a, const Operand &b, Loc loc = Loc::current());
Tile minimum(const Operand &a, const Operand &b, Loc loc = Loc::current());
/// Adds `x` into `acc` in place (NKI: `acc[...] += x`) on the vector engine, in `acc`'s dtype: how partial
/// results accumulate in SBUF, e.g. a PSUM tile of matmul results into a slice of a larger SBUF accumulator.
/// Shapes must match, or `x` may be [P, 1] (broadcast along the free dimension).
const Tile &operator+=(const Tile &acc, const Operand &x);
/// Multiplies `acc` by `x` in place (NKI: `acc[...] *= x`), in `acc`'s dtype; `x` of acc's shape or [P, 1]
/// (broadcast along the free dimension), e.g. the rescaling of a running sum.
const Tile &operator*=(const Tile &acc, const Operand &x);
Tile operator+(const Operand &a, const Operand &b);
Tile operator-(const Operand &a, const Operand &b);
Tile operator*(const Operand &a, const Operand &b);
Tile operator/(const Operand &a, const Operand &b);

/// A number where NKI takes a scalar operand (`x * 2.0`, `nl.add(x, eps)`): any arithmetic value, converted to
/// FP32, with the kernel's line for messages.
class Number {
public:
  template <typename T>
    requires std::is_arithmetic_v<T>
  Number(T value, Loc loc = Loc::current()) : value_(static_cast<float>(value)), loc_(loc) {} // NOLINT: implicit
  float value() const { return value_; }
  const Loc &loc() const { return loc_; }

private:
  float value_;
  Loc loc_;
};

/// Elementwise with a number (NKI: nl.add(x, 1e-5), nl.multiply(x, 0.5), 1.0 - x): the number is an FP32
/// immediate of the instruction, no tile is made for it. The result is an SBUF tile of x's dtype (FP32 when x
/// lives in PSUM). On a NeuronCore one tensor_scalar (x / c runs as x * (1 / c), 1 / c rounded once to FP32, and
/// c / x as c * reciprocal(x): NeuronCore engines have no division); on a TPU one VPU operation.
///
/// ```cpp
/// Tile y = x * 0.125f;          // tsr::multiply(x, 0.125f)
/// Tile z = 1.0f - tsr::sigmoid(x);
/// Tile r = tsr::rsqrt(variance + 1e-5f);
/// ```
Tile add(const Operand &x, Number c, Loc loc = Loc::current());
Tile add(Number c, const Operand &x, Loc loc = Loc::current());
Tile subtract(const Operand &x, Number c, Loc loc = Loc::current());
Tile subtract(Number c, const Operand &x, Loc loc = Loc::current());
Tile multiply(const Operand &x, Number c, Loc loc = Loc::current());
Tile multiply(Number c, const Operand &x, Loc loc = Loc::current());
Tile divide(const Operand &x, Number c, Loc loc = Loc::current());
Tile divide(Number c, const Operand &x, Loc loc = Loc::current());
Tile maximum(const Operand &x, Number c, Loc loc = Loc::current());
Tile maximum(Number c, const Operand &x, Loc loc = Loc::current());
Tile minimum(const Operand &x, Number c, Loc loc = Loc::current());
Tile minimum(Number c, const Operand &x, Loc loc = Loc::current());
Tile operator+(const Operand &x, Number c);
Tile operator+(Number c, const Operand &x);
Tile operator-(const Operand &x, Number c);
Tile operator-(Number c, const Operand &x);
Tile operator*(const Operand &x, Number c);
Tile operator*(Number c, const Operand &x);
Tile operator/(const Operand &x, Number c);
Tile operator/(Number c, const Operand &x);
/// In place with a number (NKI: `acc[...] += 1.0`, `acc[...] *= 0.5`), in acc's dtype.
const Tile &operator+=(const Tile &acc, Number c);
const Tile &operator*=(const Tile &acc, Number c);

/// Elementwise activation functions on the scalar engine (NKI: nl.exp, nl.log, ...), each one activation
/// instruction: a new SBUF tile of x's dtype (FP32 when x lives in PSUM). Outside a function's domain (log of a
/// negative number) the result is NaN, as in C++.
Tile exp(const Operand &x, Loc loc = Loc::current());   ///< e^x
Tile log(const Operand &x, Loc loc = Loc::current());   ///< natural logarithm
Tile tanh(const Operand &x, Loc loc = Loc::current());  ///< hyperbolic tangent
Tile gelu(const Operand &x, Loc loc = Loc::current());  ///< x/2 (1 + erf(x / sqrt 2))
Tile gelu_apprx_tanh(const Operand &x, Loc loc = Loc::current()); ///< GELU's tanh approximation
Tile silu(const Operand &x, Loc loc = Loc::current());  ///< x sigmoid(x)
Tile sigmoid(const Operand &x, Loc loc = Loc::current()); ///< 1 / (1 + e^-x)
Tile relu(const Operand &x, Loc loc = Loc::current());  ///< max(x, 0)
Tile rsqrt(const Operand &x, Loc loc = Loc::current()); ///< 1 / sqrt(x)
Tile square(const Operand &x, Loc loc = Loc::current()); ///< x^2
Tile sqrt(const Operand &x, Loc loc = Loc::current());  ///< square root
Tile reciprocal(const Operand &x, Loc loc = Loc::current()); ///< 1 / x

/// Row reductions over the free dimension: [P, F] -> [P, 1], in FP32.
Tile sum(const Operand &x, Loc loc = Loc::current());
Tile max(const Operand &x, Loc loc = Loc::current());
/// Reductions over dimensions `axis` of x, numbered as NKI numbers them (0 the partitions; 1 a tile's free
/// dimension, or 1 to k the [step, count] pairs of an access pattern, Tile::ap): the last ones, in order
/// (`{3, 4}` of a 4-pair pattern), as one tensor_reduce instruction reduces them. [P, G] in FP32, G the product
/// of the counts kept: `tsr::sum(t.ap({{F, P}, {2 * W, H / 2}, {2, W / 2}, {W, 2}, {1, 2}}), {3, 4})` sums each
/// 2 x 2 window of an [H, W] image per partition.
Tile sum(const Operand &x, std::vector<int> axis, Loc loc = Loc::current());
Tile max(const Operand &x, std::vector<int> axis, Loc loc = Loc::current());

// ---- Debugging ---------------------------------------------------------------------------------------------

/// Prints `tile`'s values, under `name`, at this point of the kernel's simulated time (NKI: nl.device_print).
/// The simulator logs them with the time, the engine and this line (`tessera run` prints the log after the
/// report; --json gives it as "prints"). It costs no engine time, but like any reader it waits for the tile's
/// producer, and later writers of the tile wait for it. The golden model ignores it.
void device_print(const std::string &name, const Operand &tile, Loc loc = Loc::current());

} // namespace tsr
