#pragma once
/// \file
/// Host functions the golden model's JIT-compiled code calls, resolved by the ExecutionEngine (GoldenModel.cpp).
///
/// tile-to-linalg lowers a matmul into an f32 accumulator to a call of kGoldenMatmul: the simulator's tile GEMM
/// (isa/Gemm.h), whose order of operations is the DSL's (each accumulator element updated k ascending, one rounding
/// after each product and each sum) and whose every code path GemmTest checks bit for bit against a plain loop of
/// that order. A linalg loop nest of the same order is much slower: LLVM keeps it k outermost, so the whole
/// accumulator goes through memory once per k (matmul_blocked 2048^3: 0.79 s of golden model, 0.36 s with this).

#include "tessera/isa/DType.h"

#include <cstdint>
#include <string_view>

namespace tessera::compiler::golden {

/// The callee's name in the lowered module: `func.func private @tessera_golden_matmul(acc, k, stationary...,
/// moving...)`: acc a memref<?x?xf32, strided<[?, ?], offset: ?>> [M, N] updated in place, k an index, and each
/// operand ([k, M] and [k, N]) as a StoredMatrix's fields: index address, offset, row and column strides (in
/// elements), and the i32 isa::DType code.
inline constexpr std::string_view kGoldenMatmul = "tessera_golden_matmul";

/// A matrix as the golden model stores it: elements of `type` in isa's encoding (fp8 as its bits, integers as
/// themselves), element (r, c) at `address` + (offset + r * rowStride + c * colStride) * byteSize(type).
struct StoredMatrix {
  int64_t address = 0, offset = 0, rowStride = 0, colStride = 1;
  isa::DType type = isa::DType::F32;
};

/// acc[m, n] (its rows `accRowStride` floats apart) += stationary[k, m]^T @ moving[k, n], the operands decoded to
/// f32 as the simulator decodes them (isa::decode) and multiplied by its tile GEMM (isa::accumulateProducts): what
/// kGoldenMatmul's calls run. So a matmul's number formats and products are the simulator's code here, as its GEMM
/// always was; the golden model stays independent in what it runs (the tile module, not the lowered program) and
/// in its other conversions, which GoldenConversions checks against isa's bit for bit, and the kernel's reference
/// checks both.
void matmul(float *acc, int64_t accRowStride, int64_t m, int64_t n, int64_t k, const StoredMatrix &stationary,
            const StoredMatrix &moving);

/// The C-interface symbol the JIT resolves kGoldenMatmul's calls to, and its address in this process.
inline constexpr std::string_view kGoldenMatmulSymbol = "_mlir_ciface_tessera_golden_matmul";
void *goldenMatmulAddress();

/// The callee of a tile load or store: `func.func private @tessera_golden_copy(rows, columns, destination...,
/// source...)`, rows and columns index, each matrix as a StoredMatrix's fields (as kGoldenMatmul takes them).
inline constexpr std::string_view kGoldenCopy = "tessera_golden_copy";

/// destination[r, c] = source[r, c] for r < rows, c < columns, the elements' bytes as stored (a DMA converts
/// nothing; both of one dtype): a memmove per row where the row's elements are adjacent in both, element by element
/// otherwise. Windows of one tensor never overlap a tile, so the order of the copies does not matter.
void copy(int64_t rows, int64_t columns, const StoredMatrix &destination, const StoredMatrix &source);

/// The C-interface symbol the JIT resolves kGoldenCopy's calls to, and its address in this process.
inline constexpr std::string_view kGoldenCopySymbol = "_mlir_ciface_tessera_golden_copy";
void *goldenCopyAddress();

/// compiler-rt's float -> bfloat16 conversion, which LLVM calls where the host has no bf16 instructions (AVX2: a
/// select or a phi of bf16 values is computed in f32 and truncated back) and which neither libgcc 12 nor the JIT
/// provides. The psABI passes and returns __bf16 in an SSE register, as it does float, so this takes a float and
/// returns a float whose low 16 bits are the bf16's: round to nearest even, a NaN kept a (quiet) NaN.
inline constexpr std::string_view kTruncSfBf2Symbol = "__truncsfbf2";
extern "C" float tessera_truncsfbf2(float x);

} // namespace tessera::compiler::golden
