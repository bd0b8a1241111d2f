#include "Blas.h"

#include "tessera/isa/Error.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <thread>
#include <fmt/format.h>

namespace tessera::kernels::blas {
namespace {

void leaveCoresToTheSimulation(void *openblas);

void *library() {
  static void *const handle = [] {
    void *opened = dlopen(TESSERA_OPENBLAS, RTLD_NOW | RTLD_LOCAL);
    if (!opened)
      throw Error(fmt::format("cannot load OpenBLAS ({}), which the kernels' references use: {}", TESSERA_OPENBLAS,
                              dlerror()),
                  {}, "install it (libopenblas0 on Debian: scripts/install-deps.sh)");
    leaveCoresToTheSimulation(opened);
    return opened;
  }();
  return handle;
}

/// A reference runs beside the simulation and the golden model, each on a thread of its own
/// (tools/tessera/ReferenceRun.h), so OpenBLAS gets the cores they leave, at least one: with its default of one
/// thread per core, on a 2-core host its two threads spun (sched_yield) against the other two, and a whole
/// `tessera run` of matmul_blocked 2048^3 waited for them. OPENBLAS_NUM_THREADS, when set, wins.
void leaveCoresToTheSimulation(void *openblas) {
  if (std::getenv("OPENBLAS_NUM_THREADS") || std::getenv("OMP_NUM_THREADS")) return;
  auto *setThreads = reinterpret_cast<void (*)(int)>(dlsym(openblas, "openblas_set_num_threads"));
  if (!setThreads) return; // another BLAS under the soname: its own default
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  setThreads(std::max(1, cores - 2));
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
