#include "Rows.h"

#include <algorithm>
#include <cmath>

namespace tessera::kernels {

using namespace tsr;

std::vector<Tile> loadChunks(const Hbm &x, const Index &row, const Index &col, int64_t rows, int64_t cols) {
  std::vector<Tile> chunks;
  for (int64_t start = 0; start < cols; start += kChunkColumns)
    chunks.push_back(load(x.window(row, col + start, {rows, std::min(kChunkColumns, cols - start)})));
  return chunks;
}

void storeChunks(const Hbm &y, const Index &row, const Index &col, const std::vector<Tile> &chunks) {
  int64_t start = 0;
  for (const Tile &chunk : chunks) {
    store(y.window(row, col + start, chunk.shape()), chunk);
    start += chunk.shape()[1];
  }
}

Tile rowSum(const std::vector<Tile> &chunks) {
  Tile total = sum(chunks.front());
  for (size_t j = 1; j < chunks.size(); ++j) total += sum(chunks[j]);
  return total;
}

void softmaxReference(const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
  const int64_t R = p["R"], C = p["C"];
  for (int64_t r = 0; r < R; ++r) {
    const float *x = &in[0][r * C];
    float *y = &out[0][r * C];
    double m = *std::max_element(x, x + C), s = 0;
    for (int64_t c = 0; c < C; ++c) s += std::exp(double(x[c]) - m);
    for (int64_t c = 0; c < C; ++c) y[c] = static_cast<float>(std::exp(double(x[c]) - m) / s);
  }
}

void layerNormReference(const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
  const int64_t R = p["R"], C = p["C"];
  const float *gamma = in[1].data(), *beta = in[2].data();
  for (int64_t r = 0; r < R; ++r) {
    const float *x = &in[0][r * C];
    double mean = 0, var = 0;
    for (int64_t c = 0; c < C; ++c) mean += x[c];
    mean /= double(C);
    for (int64_t c = 0; c < C; ++c) var += (x[c] - mean) * (x[c] - mean);
    const double eps = static_cast<float>(p.scalar("eps")); // as the kernel uses it: rounded to FP32
    const double scale = 1.0 / std::sqrt(var / double(C) + eps);
    for (int64_t c = 0; c < C; ++c) out[0][r * C + c] = static_cast<float>((x[c] - mean) * scale * gamma[c] + beta[c]);
  }
}

} // namespace tessera::kernels
