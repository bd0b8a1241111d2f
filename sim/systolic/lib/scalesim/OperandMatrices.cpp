#include "tessera/systolic/scalesim/OperandMatrices.h"

#include <algorithm>

namespace tessera::systolic::scalesim {

bool ifmapNeedsTable(const Layer &layer) {
  // A is affine when output pixel i reads the K words from i * K on: a window as wide as the ifmap and one row high
  // moving a row at a time (a GEMM row), or a 1 x 1 window moving a pixel at a time.
  const bool unitStride = layer.strideHeight == 1 && layer.strideWidth == 1;
  const bool rowWindow = layer.filterHeight == 1 && layer.filterWidth == layer.ifmapWidth && layer.strideHeight == 1;
  const bool pixelWindow = layer.filterHeight == 1 && layer.filterWidth == 1 && unitStride;
  return !rowWindow && !pixelWindow;
}

OperandMatrices buildOperandMatrices(const Layer &layer, const Config &config) {
  OperandMatrices mats;
  mats.m = layer.gemmM(), mats.n = layer.gemmN(), mats.k = layer.gemmK();
  mats.ifmapOffset = config.ifmapOffset, mats.filterOffset = config.filterOffset;
  mats.ofmapOffset = config.ofmapOffset;
  mats.ifmapFirst = config.ifmapOffset;
  mats.ifmapEnd = config.ifmapOffset + layer.ifmapHeight * layer.ifmapWidth * layer.channels;
  mats.filterFirst = config.filterOffset;
  mats.filterEnd = config.filterOffset + mats.k * mats.n;
  mats.filterDistinct = mats.k * mats.n;
  mats.ifmapDistinct = mats.m * mats.k;
  if (!ifmapNeedsTable(layer)) return mats;

  const int64_t k = mats.k, ofmapWidth = layer.ofmapWidth(), channels = layer.channels;
  mats.ifmap.resize(size_t(mats.m * k));
  int64_t *out = mats.ifmap.data();
  // Windows overlap (and may run off the ifmap): count the ifmap elements some window reads.
  std::vector<uint8_t> read(size_t(mats.ifmapEnd - mats.ifmapFirst), 0);
  for (int64_t px = 0; px < mats.m; ++px) {
    const int64_t top = (px / ofmapWidth) * layer.strideHeight, left = (px % ofmapWidth) * layer.strideWidth;
    for (int64_t dy = 0; dy < layer.filterHeight; ++dy)
      for (int64_t dx = 0; dx < layer.filterWidth; ++dx) {
        const bool inside = top + dy < layer.ifmapHeight && left + dx < layer.ifmapWidth;
        const int64_t pixel = ((top + dy) * layer.ifmapWidth + left + dx) * channels + config.ifmapOffset;
        for (int64_t ch = 0; ch < channels; ++ch) *out++ = inside ? pixel + ch : -1;
        if (inside) std::fill_n(&read[size_t(pixel - config.ifmapOffset)], channels, uint8_t(1));
      }
  }
  mats.ifmapDistinct = std::count(read.begin(), read.end(), uint8_t(1));
  return mats;
}

} // namespace tessera::systolic::scalesim
