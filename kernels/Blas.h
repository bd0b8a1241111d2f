#pragma once
/// \file
/// The host's OpenBLAS for the kernels' references, loaded the first time a reference multiplies (dlopen of its
/// soname, found when Tessera was configured): linked up front, it was loaded and its thread pool started by every
/// tessera command, about half of `tessera --help`'s start-up. The functions the references use, with cblas.h's
/// arguments.

#include <cblas.h>

namespace tessera::kernels::blas {

void sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transposeA, CBLAS_TRANSPOSE transposeB, blasint m, blasint n,
           blasint k, float alpha, const float *a, blasint lda, const float *b, blasint ldb, float beta, float *c,
           blasint ldc);
void dgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transposeA, CBLAS_TRANSPOSE transposeB, blasint m, blasint n,
           blasint k, double alpha, const double *a, blasint lda, const double *b, blasint ldb, double beta,
           double *c, blasint ldc);

} // namespace tessera::kernels::blas
