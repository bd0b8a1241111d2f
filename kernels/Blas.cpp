#include "Blas.h"

#include "tessera/isa/Error.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
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
/// thread per core it may use, on a 2-core host its two threads spun (sched_yield) against the other two, and a
/// whole `tessera run` of matmul_blocked 2048^3 waited for them. Its default already counts only the cores this
/// process may run on (affinity, cgroups), which std::thread::hardware_concurrency does not. OPENBLAS_NUM_THREADS
/// (or GOTO_NUM_THREADS, OMP_NUM_THREADS), when set, wins.
///
/// With one thread OpenBLAS computes on the caller's and needs no workers, but the ones it started when loaded
/// (one per core but one) spin on sched_yield for 2^28 cycles before they sleep: on a 2-core host, a core's worth
/// taken from the simulation and the golden model in a run's busiest tenth of a second (a quarter of the samples of
/// `tessera run conv2d`). OpenBLAS's own fork handler stops them with blas_thread_shutdown_, which it exports;
/// the pool starts again should a later call want more threads. It must not run while another thread is inside
/// OpenBLAS: here it runs once, in library()'s initialisation, before any call through this file; code that calls
/// OpenBLAS directly in the same process (a plugin linking it) is not covered.
void leaveCoresToTheSimulation(void *openblas) {
  for (const char *variable : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"})
    if (std::getenv(variable)) return;
  auto *getThreads = reinterpret_cast<int (*)()>(dlsym(openblas, "openblas_get_num_threads"));
  auto *setThreads = reinterpret_cast<void (*)(int)>(dlsym(openblas, "openblas_set_num_threads"));
  if (!getThreads || !setThreads) return; // another BLAS under the soname: its own default
  const int threads = std::max(1, getThreads() - 2);
  setThreads(threads);
  if (threads > 1) return;
  if (auto *stopWorkers = reinterpret_cast<int (*)()>(dlsym(openblas, "blas_thread_shutdown_"))) stopWorkers();
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
