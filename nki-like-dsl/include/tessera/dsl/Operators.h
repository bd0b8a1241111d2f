#pragma once
/// \file
/// The operators and functions tsr::isa calls take, named as NKI names them (nl.add, nl.greater, nl.gelu...):
/// `tsr::op::multiply`, `tsr::act::gelu`, and the engines a kernel may pick (`tsr::isa::vector_engine`).

#include "tessera/isa/Program.h"

namespace tsr {

/// ALU operations of the Vector, Scalar and GpSimd engines (NKI passes nl.<name>). Comparisons give 1 or 0.
namespace op {
using tessera::isa::AluOp;
inline constexpr AluOp add = AluOp::Add;
inline constexpr AluOp subtract = AluOp::Subtract;
inline constexpr AluOp multiply = AluOp::Multiply;
inline constexpr AluOp maximum = AluOp::Max;
inline constexpr AluOp minimum = AluOp::Min;
inline constexpr AluOp divide = AluOp::Divide;
inline constexpr AluOp bypass = AluOp::Bypass; ///< the left operand unchanged (an unused stage)
inline constexpr AluOp power = AluOp::Power;
inline constexpr AluOp abs_max = AluOp::AbsMax; ///< max(|a|, |b|)
inline constexpr AluOp equal = AluOp::IsEqual;
inline constexpr AluOp not_equal = AluOp::NotEqual;
inline constexpr AluOp greater = AluOp::IsGt;
inline constexpr AluOp greater_equal = AluOp::IsGe;
inline constexpr AluOp less = AluOp::IsLt;
inline constexpr AluOp less_equal = AluOp::IsLe;
inline constexpr AluOp logical_and = AluOp::LogicalAnd;
inline constexpr AluOp logical_or = AluOp::LogicalOr;
} // namespace op

/// The Scalar engine's activation functions (NKI passes nl.<name>).
namespace act {
using tessera::isa::ActFunc;
inline constexpr ActFunc copy = ActFunc::Identity;
inline constexpr ActFunc exp = ActFunc::Exp;
inline constexpr ActFunc log = ActFunc::Log;
inline constexpr ActFunc tanh = ActFunc::Tanh;
inline constexpr ActFunc gelu = ActFunc::Gelu;
inline constexpr ActFunc gelu_apprx_tanh = ActFunc::GeluApproxTanh;
inline constexpr ActFunc silu = ActFunc::Silu;
inline constexpr ActFunc sigmoid = ActFunc::Sigmoid;
inline constexpr ActFunc relu = ActFunc::Relu;
inline constexpr ActFunc rsqrt = ActFunc::Rsqrt;
inline constexpr ActFunc square = ActFunc::Square;
inline constexpr ActFunc sqrt = ActFunc::Sqrt;
inline constexpr ActFunc reciprocal = ActFunc::Reciprocal;
} // namespace act

namespace isa {
/// The engines a tsr::isa call may be pinned to (NKI's engine= argument: nki.isa.vector_engine ...).
using Engine = tessera::isa::Engine;
inline constexpr Engine tensor_engine = Engine::Tensor;
inline constexpr Engine vector_engine = Engine::Vector;
inline constexpr Engine scalar_engine = Engine::Scalar;
inline constexpr Engine gpsimd_engine = Engine::GpSimd;
} // namespace isa

} // namespace tsr
