#pragma once
/// \file
/// Dense algebra for the kernels' references: OpenBLAS's dgemm on row-major double matrices, so that a reference
/// at a large shape takes a fraction of the simulation's time, not minutes of loops (mlp at T=2048, D=2048,
/// F=4096: 24.7 s of loops). Double, as the loops were: a reference's own error stays far below bf16's.

#include "tessera/dsl/Kernel.h"

#include <cstdint>
#include <vector>

namespace tessera::kernels {

/// A row-major matrix of `rows` x `cols` doubles.
struct DenseMatrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> values;

  DenseMatrix(int64_t r, int64_t c) : rows(r), cols(c), values(static_cast<size_t>(r * c)) {}
  double &at(int64_t r, int64_t c) { return values[static_cast<size_t>(r * cols + c)]; }
  double at(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
};

/// Rows [row0, row0 + rows) of `t`, a row-major [*, cols] tensor, as doubles.
DenseMatrix denseRows(const tsr::HostTensor &t, int64_t cols, int64_t row0, int64_t rows);

/// c = alpha op(a) op(b) + beta c, where op(x) is x or its transpose (`transposeA`, `transposeB`).
void gemm(const DenseMatrix &a, bool transposeA, const DenseMatrix &b, bool transposeB, DenseMatrix &c,
          double alpha = 1.0, double beta = 0.0);

/// Each row of m replaced by its softmax, exp(x - max) / sum, in place (the attention tutorials' references).
void softmaxRows(DenseMatrix &m);

} // namespace tessera::kernels
