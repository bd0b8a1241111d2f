#include "tessera/systolic/scalesim/OperandMatrices.h"

namespace tessera::systolic::scalesim {

OperandMatrices buildOperandMatrices(const Layer &layer, const Config &config) {
  OperandMatrices mats;
  mats.m = layer.gemmM(), mats.n = layer.gemmN(), mats.k = layer.gemmK();
  const int64_t m = mats.m, n = mats.n, k = mats.k;
  const int64_t ofmapWidth = layer.ofmapWidth(), channels = layer.channels;
  const int64_t windowRow = layer.filterWidth * channels; // window elements per filter row

  mats.ifmap.resize(size_t(m * k));
  for (int64_t px = 0; px < m; ++px) {
    const int64_t top = (px / ofmapWidth) * layer.strideHeight, left = (px % ofmapWidth) * layer.strideWidth;
    const int64_t windowAddr = (top * layer.ifmapWidth + left) * channels;
    int64_t *row = &mats.ifmap[size_t(px * k)];
    for (int64_t j = 0; j < k; ++j) {
      const int64_t dy = j / windowRow, rest = j % windowRow, dx = rest / channels, ch = rest % channels;
      const bool inside = top + dy < layer.ifmapHeight && left + dx < layer.ifmapWidth;
      row[j] = inside ? (dy * layer.ifmapWidth + dx) * channels + ch + windowAddr + config.ifmapOffset : -1;
    }
  }
  mats.filter.resize(size_t(k * n));
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) mats.filter[size_t(i * n + j)] = j * k + i + config.filterOffset;
  mats.ofmap.resize(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) mats.ofmap[size_t(i * n + j)] = n * i + j + config.ofmapOffset;

  mats.ifmapFirst = config.ifmapOffset;
  mats.ifmapEnd = config.ifmapOffset + layer.ifmapHeight * layer.ifmapWidth * channels;
  mats.filterFirst = config.filterOffset;
  mats.filterEnd = config.filterOffset + k * n;
  return mats;
}

} // namespace tessera::systolic::scalesim
