#include "Matmul.h"

#include "Blas.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::kernels {

using namespace tsr;

DType matmulDtype(const std::string &kernel, const Params &p) {
  const auto &declared = p.kernelValues();
  const auto bits = declared.find(kBitsParam);
  if (bits == declared.end()) return bf16;
  require(bits->second == kBf16Bits || bits->second == kFp32Bits,
          fmt::format("{}: bits must be 16 (bf16) or 32 (FP32), not {}", kernel, bits->second));
  return bits->second == kFp32Bits ? f32 : bf16;
}

std::vector<TensorSpec> matmulSignature(const std::string &kernel, const Params &p) {
  require(p["M"] % tile_size::gemm_stationary_fmax == 0, kernel + ": M must be a multiple of 128");
  require(p["K"] % tile_size::pmax == 0, kernel + ": K must be a multiple of 128");
  require(p["N"] % std::min(p["N"], tile_size::gemm_moving_fmax) == 0,
          kernel + ": N must be at most 512 or a multiple of 512");
  const DType dtype = matmulDtype(kernel, p);
  return {input("a_t", {p["K"], p["M"]}, dtype), input("b", {p["K"], p["N"]}, dtype),
          output("c", {p["M"], p["N"]}, dtype)};
}

int64_t matmulBlock(const std::string &kernel, const Params &p, const std::string &block, const std::string &dim,
                    int64_t tile) {
  const int64_t size = std::min(p[block], p[dim]);
  require(size % tile == 0 && p[dim] % size == 0,
          fmt::format("{}: block {}={} must be a multiple of {} that divides {}={}", kernel, block, p[block], tile, dim,
                      p[dim]));
  return size;
}

void matmulReference(const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
  const int64_t M = p["M"], N = p["N"], K = p["K"];
  // OpenBLAS's sgemm: c = a_t^T b, a_t[K, M] and b[K, N] row-major (FP32: the FP32 kernels' own precision). FP32 is
  // enough for a reference of a bf16 kernel: each product of two bf16 values is exact in FP32, and the K-term sums
  // (in OpenBLAS's order) err by at most about K * 2^-24 of the sum of |products|, 1.2e-4 of it at K = 2048, against
  // the 2^-9 = 2e-3 of the bf16 output's own rounding and the kernels' tolerance of 2^-6 (dgemm took twice as long
  // for no visible gain).
  blas::sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(M), static_cast<blasint>(N),
              static_cast<blasint>(K), 1.0f, in[0].data(), static_cast<blasint>(M), in[1].data(),
              static_cast<blasint>(N), 0.0f, out[0].data(), static_cast<blasint>(N));
}

} // namespace tessera::kernels
