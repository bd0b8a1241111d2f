#pragma once
/// \file
/// What the matmul kernels share: C[M, N] = A[M, K] @ B[K, N] with A given transposed as a_t[K, M] (as in NKI's
/// tutorials: the tensor engine contracts over the partition dimension of both operands), bf16 in and out, or FP32
/// for the kernels that take kernel parameter bits (kBitsParam).

#include "tessera/dsl/tsr.h"

#include <string>
#include <vector>

namespace tessera::kernels {

/// Kernel parameter `bits`: 16 (the default) for bf16 operands and result, 32 for FP32 ones (the matmul ladder,
/// which NKI's kernel-optimization guide runs in FP32 on trn2). Kernels that do not declare it are bf16.
inline constexpr const char *kBitsParam = "bits";
inline constexpr int64_t kBf16Bits = 16, kFp32Bits = 32;

/// The operands' and result's dtype: FP32 when kernel parameter bits is 32, bf16 otherwise. A tsr::Error naming
/// `kernel` for a bits that is neither 16 nor 32.
tsr::DType matmulDtype(const std::string &kernel, const tsr::Params &p);

/// The signature: a_t[K, M], b[K, N] -> c[M, N], in matmulDtype. M and K must be multiples of 128, N at most 512 or a
/// multiple of 512 (the tile sizes of NKI's matmul).
std::vector<tsr::TensorSpec> matmulSignature(const std::string &kernel, const tsr::Params &p);

/// The size of block `block` (a kernel parameter, in elements) along dimension `dim` (a shape parameter): the
/// parameter, or the whole dimension when that is smaller. A tsr::Error naming `kernel` unless it is a multiple
/// of `tile` that divides the dimension.
int64_t matmulBlock(const std::string &kernel, const tsr::Params &p, const std::string &block, const std::string &dim,
                    int64_t tile);

/// The reference: c = a_t^T @ b, OpenBLAS sgemm (FP32; why that is enough: Matmul.cpp).
void matmulReference(const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out);

} // namespace tessera::kernels
