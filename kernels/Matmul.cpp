#include "Matmul.h"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>

namespace tessera::kernels {

using namespace tsr;

std::vector<TensorSpec> matmulSignature(const std::string &kernel, const Params &p) {
  require(p["M"] % tile_size::gemm_stationary_fmax == 0, kernel + ": M must be a multiple of 128");
  require(p["K"] % tile_size::pmax == 0, kernel + ": K must be a multiple of 128");
  require(p["N"] % std::min(p["N"], tile_size::gemm_moving_fmax) == 0,
          kernel + ": N must be at most 512 or a multiple of 512");
  return {input("a_t", {p["K"], p["M"]}, bf16), input("b", {p["K"], p["N"]}, bf16),
          output("c", {p["M"], p["N"]}, bf16)};
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
  // OpenBLAS's dgemm, in double as the loops it replaces were (2048^3: 2.8 s of naive loops, the longest part of a
  // functional run): c = a_t^T b, a_t[K, M] and b[K, N] row-major.
  const std::vector<double> a_t(in[0].begin(), in[0].end()), b(in[1].begin(), in[1].end());
  std::vector<double> c(static_cast<size_t>(M * N));
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(M), static_cast<blasint>(N),
              static_cast<blasint>(K), 1.0, a_t.data(), static_cast<blasint>(M), b.data(), static_cast<blasint>(N), 0.0,
              c.data(), static_cast<blasint>(N));
  std::transform(c.begin(), c.end(), out[0].begin(), [](double v) { return static_cast<float>(v); });
}

} // namespace tessera::kernels
