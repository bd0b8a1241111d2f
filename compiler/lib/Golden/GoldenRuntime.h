#pragma once
/// \file
/// Host functions the golden model's JIT-compiled code calls, resolved by the ExecutionEngine (GoldenModel.cpp).
///
/// tile-to-linalg lowers a matmul into an f32 accumulator to a call of kGoldenMatmul: the simulator's tile GEMM
/// (isa/Gemm.h), whose order of operations is the DSL's (each accumulator element updated k ascending, one rounding
/// after each product and each sum) and whose every code path GemmTest checks bit for bit against a plain loop of
/// that order. A linalg loop nest of the same order is much slower: LLVM keeps it k outermost, so the whole
/// accumulator goes through memory once per k (matmul_blocked 2048^3: 0.79 s of golden model, 0.36 s with this).

#include <cstdint>
#include <string_view>

namespace tessera::compiler::golden {

/// The callee's name in the lowered module: `func.func private @tessera_golden_matmul(acc, stationary, moving,
/// stationary_dtype, moving_dtype)` with memref<?x?xf32, strided<[?, ?], offset: ?>> operands (acc [M, N]
/// updated in place, the operands [K, M] and [K, N] as f32) and the operands' isa::DType codes as i32.
inline constexpr std::string_view kGoldenMatmul = "tessera_golden_matmul";

/// The C-interface symbol the JIT resolves kGoldenMatmul's calls to, and its address in this process.
inline constexpr std::string_view kGoldenMatmulSymbol = "_mlir_ciface_tessera_golden_matmul";
void *goldenMatmulAddress();

/// compiler-rt's float -> bfloat16 conversion, which LLVM calls where the host has no bf16 instructions (AVX2: a
/// select or a phi of bf16 values is computed in f32 and truncated back) and which neither libgcc 12 nor the JIT
/// provides. The psABI passes and returns __bf16 in an SSE register, as it does float, so this takes a float and
/// returns a float whose low 16 bits are the bf16's: round to nearest even, a NaN kept a (quiet) NaN.
inline constexpr std::string_view kTruncSfBf2Symbol = "__truncsfbf2";
extern "C" float tessera_truncsfbf2(float x);

} // namespace tessera::compiler::golden
