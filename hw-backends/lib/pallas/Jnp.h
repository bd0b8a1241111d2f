#pragma once
/// \file
/// Internal to the Pallas backend: what a TPU instruction (or tile op) computes, as jax.numpy expressions with
/// the numerics of its definition (isa::apply: FP32 inside; comparisons give 1.0 or 0.0). Both Pallas styles use
/// them, so the manual and the grid kernel compute alike.

#include "../PythonSource.h"
#include "tessera/isa/Program.h"

#include <optional>
#include <string>

namespace tessera::backends {

/// jax.numpy's name of `dtype`: "jnp.bfloat16".
std::string jnpDtype(isa::DType dtype);
/// NumPy's (or ml_dtypes') name of `dtype`: "bfloat16".
std::string numpyDtype(isa::DType dtype);
/// `l <op> r` of two FP32 expressions.
std::string binary(isa::AluOp op, const std::string &l, const std::string &r);
/// f(x) of an FP32 expression.
std::string unary(isa::ActFunc f, const std::string &x);
/// The reduction of a 2-D FP32 expression along its free dimension, kept as a column; nullopt for an operator
/// that has no jnp reduction.
std::optional<std::string> reduction(isa::AluOp op, const std::string &x);
/// `value` (FP32) converted to `dtype` as the hardware rounds: to nearest even; integers saturate, NaN gives 0.
std::string convert(const std::string &value, isa::DType dtype);

/// What every Pallas module starts with after its docstring: the imports, and KERNEL, TARGET, INPUTS and OUTPUTS
/// (name, shape, NumPy dtype of each tensor), which the deploy runner and the checks read.
void pallasPreamble(PythonWriter &out, const KernelSource &kernel);

} // namespace tessera::backends
