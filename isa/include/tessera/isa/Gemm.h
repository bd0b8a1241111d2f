#pragma once
/// \file
/// The FP32 tile GEMM behind nc_matmul and mxu_matmul: c[M, N] += a[K, M]^T @ b[K, N] with the simulator's (and
/// the golden model's) order of operations: each element of c is updated k ascending, c = round(c + round(a * b)),
/// never reassociated. A BLAS sgemm sums over k first and then adds c, in a blocking that depends on the CPU, so it
/// would change result bits; this kernel keeps them and still runs near the host's FMA peak:
///  - When every product a * b is exact in FP32 (operands of at most 12 significant bits each, such as bf16, fp16
///    and fp8, whose products neither overflow nor underflow; productsExact() decides), round(c + round(a * b)) ==
///    fma(a, b, c) bit for bit, so the register-blocked kernel uses FMA.
///  - Otherwise (FP32 operands, extreme ranges) it multiplies and adds separately: the same bits, about half the
///    speed.
/// Register-blocked kernels for AVX-512 and AVX2+FMA are picked at load time; other hosts run a plain loop. All
/// paths give identical bits (tests/unit/isa/GemmTest.cpp).

#include "tessera/isa/DType.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::isa {

/// The magnitudes an operand's elements span: what productsExact() needs to know.
struct OperandRange {
  float maxAbs = 0.0f;        ///< largest |x| (Inf or NaN make the range non-finite)
  float minNonZeroAbs = 0.0f; ///< smallest non-zero |x|; 0 when every element is zero
  bool finite = true;         ///< no Inf, no NaN
};

/// The range of `count` floats.
OperandRange rangeOf(const float *values, size_t count);

/// Whether every product of an element of `a` (decoded from `ta`) and one of `b` (decoded from `tb`) is exactly
/// representable in FP32: their significands fit 24 bits together and no product overflows or leaves the normal
/// range.
bool productsExact(DType ta, const OperandRange &a, DType tb, const OperandRange &b);

/// c[M, N] += a[K, M]^T @ b[K, N], all row-major (c's rows `ldc` floats apart, ldc >= N, so PSUM partitions can
/// be updated in place), each c element updated k ascending as round(c + round(a * b)). `exactProducts` (from
/// productsExact()) lets the kernel use FMA, which then gives the same bits.
void accumulateProducts(float *c, int64_t ldc, const float *a, const float *b, int64_t k, int64_t m, int64_t n,
                        bool exactProducts);

/// b[K, N] laid out for this host's kernel (its column panels, k chunk by k chunk): what accumulateProducts makes
/// of b on every call, kept to be reused by every product against the same b.
struct PackedOperand {
  int64_t k = 0, n = 0;
  std::vector<float> panels;
};

/// Packs b[K, N] (row-major) into `packed`, reusing its storage.
void pack(PackedOperand &packed, const float *b, int64_t k, int64_t n);

/// accumulateProducts with b already packed: c[M, N] += a[K, M]^T @ b, the same bits.
void accumulateProducts(float *c, int64_t ldc, const float *a, const PackedOperand &b, int64_t m,
                        bool exactProducts);

/// Which kernel accumulateProducts() runs on this host: "avx512", "avx2" or "portable".
const char *gemmKernelName();

} // namespace tessera::isa
