#include "Matmul.h"

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
  const HostTensor &a_t = in[0], &b = in[1];
  HostTensor &c = out[0];
  std::vector<double> row(N);
  for (int64_t m = 0; m < M; ++m) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int64_t k = 0; k < K; ++k) {
      double a = a_t[k * M + m];
      for (int64_t n = 0; n < N; ++n) row[n] += a * b[k * N + n];
    }
    for (int64_t n = 0; n < N; ++n) c[m * N + n] = static_cast<float>(row[n]);
  }
}

} // namespace tessera::kernels
