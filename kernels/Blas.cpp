#include "Blas.h"

#include "tessera/isa/Error.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace tessera::kernels::blas {
namespace {

void *library() {
  static void *const handle = [] {
    void *opened = dlopen(TESSERA_OPENBLAS, RTLD_NOW | RTLD_LOCAL);
    if (!opened)
      throw Error(fmt::format("cannot load OpenBLAS ({}), which the kernels' references use: {}", TESSERA_OPENBLAS,
                              dlerror()),
                  {}, "install it (libopenblas0 on Debian: scripts/install-deps.sh)");
    return opened;
  }();
  return handle;
}

/// `name` in OpenBLAS, as a pointer of type F.
template <typename F> F function(const char *name) {
  void *found = dlsym(library(), name);
  if (!found)
    throw Error(fmt::format("OpenBLAS ({}) has no {}", TESSERA_OPENBLAS, name));
  return reinterpret_cast<F>(found);
}

} // namespace

void sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transposeA, CBLAS_TRANSPOSE transposeB, blasint m, blasint n,
           blasint k, float alpha, const float *a, blasint lda, const float *b, blasint ldb, float beta, float *c,
           blasint ldc) {
  static const auto call = function<decltype(&cblas_sgemm)>("cblas_sgemm");
  call(order, transposeA, transposeB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void dgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transposeA, CBLAS_TRANSPOSE transposeB, blasint m, blasint n,
           blasint k, double alpha, const double *a, blasint lda, const double *b, blasint ldb, double beta,
           double *c, blasint ldc) {
  static const auto call = function<decltype(&cblas_dgemm)>("cblas_dgemm");
  call(order, transposeA, transposeB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

} // namespace tessera::kernels::blas
