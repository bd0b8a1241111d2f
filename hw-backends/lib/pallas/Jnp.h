#pragma once
/// \file
/// Internal to the Pallas backend: what a TPU instruction (or tile op) computes, as jax.numpy expressions with
/// the numerics of its definition (isa::apply: FP32 inside; comparisons give 1.0 or 0.0). Both Pallas styles use
/// them, so the manual and the grid kernel compute alike.

#include "../PythonSource.h"
#include "tessera/isa/Program.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera::backends {

/// jax.numpy's name of `dtype`: "jnp.bfloat16".
std::string jnpDtype(isa::DType dtype);
/// NumPy's (or ml_dtypes') name of `dtype`: "bfloat16".
std::string numpyDtype(isa::DType dtype);
/// `l <op> r` of two FP32 expressions.
std::string binary(isa::AluOp op, const std::string &l, const std::string &r);
/// f(x) of an FP32 expression.
std::string unary(isa::ActFunc f, const std::string &x);
/// `x` as the operand of a method call (`x.reshape(...)`): in parentheses when an operator outside brackets would
/// otherwise bind looser than the call.
std::string postfixOperand(const std::string &x);

/// The reduction of a 2-D FP32 expression along its free dimension, kept as a column; or, with `groups` > 1, of
/// each of its `groups` runs of `size` consecutive elements ([P, groups]); nullopt for an operator that has no jnp
/// reduction.
std::optional<std::string> reduction(isa::AluOp op, const std::string &x, int64_t groups = 1, int64_t size = 0);
/// `value` (FP32) converted to `dtype` as the hardware rounds: to nearest even; integers saturate, NaN gives 0. For
/// float16, which a kernel holds in float32 (kernelDtype), the value rounded to float16's precision and range.
std::string convert(const std::string &value, isa::DType dtype);

/// The dtype a Pallas TPU kernel holds `dtype` in: float16 as float32, every other dtype as itself. Mosaic has no
/// float16 vectors (libtpu 0.0.50.1, v5e and v6e: a kernel that loads a float16 ref fails with "Invalid vector type
/// for load", a float16 store with "failed to legalize operation 'tpu.pack_subelements'"), so float16 is storage
/// only on a TPU: the module's function converts float16 tensors to float32 at pallas_call's boundary and back
/// (kernelOperand, returnOutputs), its buffers hold float32, and a write to one rounds (convert).
isa::DType kernelDtype(isa::DType dtype);
/// pallas_call's operand for input `name` of `dtype`: `name`, converted where the kernel holds it in another dtype.
std::string kernelOperand(const std::string &name, isa::DType dtype);
/// Whether some output of `dtypes` is held in another dtype by the kernel, so that the module's function must
/// convert pallas_call's results (`result = pl.pallas_call(...)` then returnOutputs) instead of returning them.
bool convertsOutputs(const std::vector<isa::DType> &dtypes);
/// `return result` with each output of `dtypes` converted back to its dtype; `dropped` more results follow the
/// outputs (the kernel's HBM scratch tensors, which pallas_call returns as outputs of its own) and are not returned.
/// `reshapes[i]`, when not empty, is the N-D shape output i is given back in (pallas_call made its matrix).
void returnOutputs(PythonWriter &out, const std::vector<isa::DType> &dtypes,
                   const std::vector<std::vector<int64_t>> &reshapes, size_t dropped = 0);

/// What every Pallas module starts with after its docstring: the imports, and KERNEL, TARGET, TOPOLOGY (libtpu's
/// name of the target's generation, None when the target file has no [libtpu] table), INPUTS and OUTPUTS (name,
/// shape, NumPy dtype of each tensor), VMEM_BUFFER_BYTES (what the kernel's VMEM buffers take as mosaicVmemBytes
/// counts them), which the deploy runner and the checks read; and _round_to_f16 when the program has a float16
/// operand.
void pallasPreamble(PythonWriter &out, const KernelSource &kernel, uint64_t vmemBufferBytes);

/// The bytes Mosaic gives a VMEM buffer of `shape` (leading dimensions, then rows and columns): the last two
/// dimensions padded to the (8, 128) tile. Observed with libtpu 0.0.50.1 on every generation, for every dtype (16-
/// and 8-bit buffers are tiled (8, 128) too, their rows packed in pairs or fours): a bf16 (9, 128) scratch takes
/// 4 KiB, (100, 200) f32 104 KiB; a buffer the kernel never uses, or whose stores Mosaic forwards to its loads,
/// takes nothing (docs/backends.md, "Real TPU compilation").
uint64_t mosaicVmemBytes(const std::vector<int64_t> &shape, isa::DType dtype);

/// The argument `vmem_limit_bytes=N` of pltpu.CompilerParams for a kernel whose buffers (scratch, and Pallas' two
/// copies of each block) take `needBytes` of VMEM as mosaicVmemBytes counts them, or "" when that and what Mosaic
/// takes beyond a kernel's buffers ([libtpu] mosaic_internal_vmem_bytes, observed) fit libtpu's default scoped
/// limit ([libtpu] scoped_vmem_default_bytes; "" too for a target without [libtpu]). Over it, N is the most VMEM
/// libtpu gives one kernel ([libtpu] kernel_vmem_max_bytes): what Mosaic adds (internal scratch, spill slots) only
/// it knows, so the need sets when to raise the limit, not how far. Throws when the need alone is more than that
/// most.
std::string vmemLimitArgument(const KernelSource &kernel, uint64_t needBytes);
/// The comment line that says why: "# VMEM: the buffers take 21.0 MiB ...", or "" with no limit.
std::string vmemLimitComment(const KernelSource &kernel, uint64_t needBytes);

/// pallas_call's argument `cost_estimate=pl.CostEstimate(flops=F, transcendentals=T, bytes_accessed=B)`: what the
/// simulated program does (isa::flops, isa::transcendentals and isa::hbmBytes summed over its instructions), which
/// XLA schedules the call around; "" for a kernel without a program.
std::string costEstimateArgument(const KernelSource &kernel);

} // namespace tessera::backends
