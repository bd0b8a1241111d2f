#include "tessera/systolic/scalesim/FoldPlan.h"

#include <algorithm>
#include <functional>

namespace tessera::systolic::scalesim {

int64_t Stream::at(int64_t line, int64_t c) const {
  const int64_t r = line - prefix - (skewed ? c : 0);
  if (c >= cols || r < rowLo || r >= rows) return -1;
  const int64_t i = base + r * rowStride + c * colStride;
  return matrix ? matrix[i] : i + offset;
}

void Stream::columns(int64_t line, int64_t &lo, int64_t &hi) const {
  if (skewed) {
    // Column c holds data row line - prefix - c.
    lo = std::max<int64_t>(0, line - prefix - rows + 1);
    hi = std::min(cols, line - prefix - rowLo + 1);
    return;
  }
  const int64_t r = line - prefix;
  lo = 0, hi = r < rowLo || r >= rows ? 0 : cols;
}

int64_t Stream::count(int64_t line) const {
  int64_t lo = 0, hi = 0;
  columns(line, lo, hi);
  return std::max<int64_t>(0, hi - lo);
}

int64_t Stream::line(int64_t line, int64_t *out) const {
  return forEach(line, [&](int64_t a) { *out++ = a; });
}

bool Stream::any(int64_t line) const {
  int64_t lo = 0, hi = 0;
  columns(line, lo, hi);
  if (!matrix) return hi > lo;
  for (int64_t c = lo, i = indexOf(line, lo); c < hi; ++c, i += step())
    if (matrix[i] != -1) return true;
  return false;
}

FoldPlan::FoldPlan(const Config &config, const OperandMatrices &mats)
    : config_(config), mats_(mats), mapping_(mapGemm(config.array(), {mats.m, mats.n, mats.k})) {
  const int64_t R = config.rows, C = config.cols;
  const bool os = config.dataflow == Dataflow::OutputStationary;
  const int64_t T = mapping_.temporal;
  // SCALE-Sim's compute utilisation divides by the length of one fold's unskewed demand block (os: its ofmap,
  // ws/is: the stationary operand's, which is cols - 1 longer than the fold): docs/systolic.md.
  const int64_t utilCycles = os ? R + C + T - 2 : 2 * R + 2 * C + T - 3;

  double mapping = 0, util = 0;
  for (int64_t f = 0; f < foldCount(); ++f) {
    const Fold fd = fold(f);
    const int64_t used = fd.usedRows * fd.usedCols;
    switch (config.dataflow) {
    case Dataflow::WeightStationary:
      requests_[kIfmap] += T * fd.usedRows, requests_[kFilter] += used, requests_[kOfmap] += T * fd.usedCols;
      break;
    case Dataflow::OutputStationary:
      requests_[kIfmap] += T * fd.usedRows, requests_[kFilter] += T * fd.usedCols;
      requests_[kOfmap] += used + R + C;
      break;
    case Dataflow::InputStationary:
      requests_[kIfmap] += used, requests_[kFilter] += T * fd.usedRows, requests_[kOfmap] += T * fd.usedCols;
      break;
    }
    mapping += double(used) / double(R * C);
    util += double(used * T) / double(R * C * utilCycles);
  }
  mappingEfficiency_ = mapping / double(foldCount());
  computeUtilization_ = util / double(foldCount());
}

Fold FoldPlan::fold(int64_t index) const {
  const int64_t R = config_.rows, C = config_.cols;
  const int64_t fc = index / mapping_.rowFolds, fr = index % mapping_.rowFolds;
  const int64_t K = mats_.k, N = mats_.n, T = mapping_.temporal;
  Fold f;
  f.usedRows = std::min(R, mapping_.spatialRows - fr * R);
  f.usedCols = std::min(C, mapping_.spatialCols - fc * C);
  // A's table (or its affine addresses), and B's and C's addresses: B[i][j] = j * K + i, C[i][j] = i * N + j.
  const int64_t *A = mats_.ifmap.empty() ? nullptr : mats_.ifmap.data();
  const int64_t aOff = A ? 0 : mats_.ifmapOffset, bOff = mats_.filterOffset, cOff = mats_.ofmapOffset;
  Stream &in = f.streams[kIfmap], &w = f.streams[kFilter], &out = f.streams[kOfmap];
  switch (config_.dataflow) {
  case Dataflow::WeightStationary:
    // A streams in skewed after R empty lines; B (flipped, last row first) is loaded from line 0; C leaves skewed.
    in = {A, fr * R, K, 1, aOff, R, 0, T, f.usedRows, true};
    w = {nullptr, fc * C * K + fr * R + R - 1, -1, K, bOff, 0, R - f.usedRows, R, f.usedCols, false};
    out = {nullptr, fc * C, N, 1, cOff, 2 * R - 1, 0, T, f.usedCols, true};
    break;
  case Dataflow::OutputStationary:
    // A^T and B stream in skewed from line 0; the C block (flipped) leaves skewed after T - 1 lines.
    in = {A, fr * R * K, 1, K, aOff, 0, 0, T, f.usedRows, true};
    w = {nullptr, fc * C * K, 1, K, bOff, 0, 0, T, f.usedCols, true};
    out = {nullptr, (fr * R + R - 1) * N + fc * C, -N, 1, cOff, T - 1, R - f.usedRows, R, f.usedCols, true};
    break;
  case Dataflow::InputStationary:
    // The A^T block (flipped) is loaded from line 0; B^T streams in skewed after R lines; C^T leaves skewed.
    in = {A, fc * C * K + fr * R + R - 1, -1, K, aOff, 0, R - f.usedRows, R, f.usedCols, false};
    w = {nullptr, fr * R, K, 1, bOff, R, 0, T, f.usedRows, true};
    out = {nullptr, fc * C * N, 1, N, cOff, 2 * R - 1, 0, T, f.usedCols, true};
    break;
  }
  const bool is = config_.dataflow == Dataflow::InputStationary;
  in.width = is ? C : R, w.width = is ? R : C, out.width = C;
  return f;
}

std::vector<int64_t> FoldPlan::prefetchOrder(Operand op) const {
  const int64_t R = config_.rows, C = config_.cols;
  const int64_t M = mats_.m, N = mats_.n, K = mats_.k;
  auto A = [&](int64_t i, int64_t j) {
    return mats_.ifmap.empty() ? mats_.ifmapOffset + i * K + j : mats_.ifmap[size_t(i * K + j)];
  };
  auto B = [&](int64_t i, int64_t j) { return mats_.filterOffset + j * K + i; };
  // The prefetch matrix: `blocks` blocks of `blockRows` x `width`, stacked; element(block, row, c) with c below
  // the block's used width, -1 beyond it.
  int64_t blocks = 0, blockRows = 0, width = 0, total = 0;
  bool diagonal = true;
  std::function<int64_t(int64_t, int64_t, int64_t)> element;
  auto usedOf = [](int64_t extent, int64_t block, int64_t size) { return std::min(size, extent - block * size); };
  const bool ifmap = op == kIfmap;
  switch (config_.dataflow) {
  case Dataflow::WeightStationary:
    if (ifmap) {
      blocks = mapping_.rowFolds, blockRows = M, width = R, total = K;
      element = [&](int64_t b, int64_t r, int64_t c) { return A(r, b * R + c); };
    } else {
      blocks = mapping_.colFolds, blockRows = K, width = C, total = N, diagonal = false;
      element = [&](int64_t b, int64_t r, int64_t c) { return B(r, b * C + c); };
    }
    break;
  case Dataflow::OutputStationary:
    if (ifmap) {
      blocks = mapping_.rowFolds, blockRows = K, width = R, total = M;
      element = [&](int64_t b, int64_t r, int64_t c) { return A(b * R + c, r); };
    } else {
      blocks = mapping_.colFolds, blockRows = K, width = C, total = N;
      element = [&](int64_t b, int64_t r, int64_t c) { return B(r, b * C + c); };
    }
    break;
  case Dataflow::InputStationary:
    if (ifmap) {
      blocks = mapping_.colFolds, blockRows = K, width = C, total = M, diagonal = false;
      element = [&](int64_t b, int64_t r, int64_t c) { return A(b * C + c, r); };
    } else {
      blocks = mapping_.rowFolds, blockRows = N, width = R, total = K;
      element = [&](int64_t b, int64_t r, int64_t c) { return B(b * R + c, r); };
    }
    break;
  }
  const int64_t rows = blocks * blockRows;
  auto at = [&](int64_t row, int64_t c) {
    const int64_t b = row / blockRows;
    return c < usedOf(total, b, width) ? element(b, row % blockRows, c) : int64_t(-1);
  };
  std::vector<int64_t> order;
  order.reserve(size_t(rows * width));
  if (!diagonal) {
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t c = 0; c < width; ++c) order.push_back(at(row, c));
    return order;
  }
  // Anti-diagonals in turn, each from its bottom-left element up (SCALE-Sim's create_*_prefetch_mat).
  for (int64_t d = 0; d < rows + width - 1; ++d)
    for (int64_t row = std::min(d, rows - 1); row >= std::max<int64_t>(0, d - width + 1); --row)
      order.push_back(at(row, d - row));
  return order;
}

} // namespace tessera::systolic::scalesim
