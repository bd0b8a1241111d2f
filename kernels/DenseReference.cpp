#include "DenseReference.h"

#include "Blas.h"

#include <algorithm>
#include <cmath>

namespace tessera::kernels {

DenseMatrix denseRows(const tsr::HostTensor &t, int64_t cols, int64_t row0, int64_t rows) {
  DenseMatrix m(rows, cols);
  const auto first = t.begin() + row0 * cols;
  std::copy(first, first + rows * cols, m.values.begin());
  return m;
}

void gemm(const DenseMatrix &a, bool transposeA, const DenseMatrix &b, bool transposeB, DenseMatrix &c, double alpha,
          double beta) {
  const int64_t k = transposeA ? a.rows : a.cols;
  blas::dgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(c.rows), static_cast<blasint>(c.cols), static_cast<blasint>(k), alpha,
              a.values.data(), static_cast<blasint>(a.cols), b.values.data(), static_cast<blasint>(b.cols), beta,
              c.values.data(), static_cast<blasint>(c.cols));
}

void softmaxRows(DenseMatrix &m) {
  for (int64_t r = 0; r < m.rows; ++r) {
    double mx = m.at(r, 0), sum = 0;
    for (int64_t c = 1; c < m.cols; ++c) mx = std::max(mx, m.at(r, c));
    for (int64_t c = 0; c < m.cols; ++c) sum += m.at(r, c) = std::exp(m.at(r, c) - mx);
    for (int64_t c = 0; c < m.cols; ++c) m.at(r, c) /= sum;
  }
}

} // namespace tessera::kernels
