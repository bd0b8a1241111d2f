// The references' OpenBLAS (kernels/Blas.cpp) leaves the host's cores to the simulation and the golden model. With
// one thread of its own it must also leave no worker threads behind: the ones OpenBLAS starts when it is loaded
// spun on sched_yield for about 0.1 s, a quarter of the CPU samples of `tessera run conv2d` on a 2-core host.

#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <sched.h>

namespace {

size_t threadsOfThisProcess() {
  return static_cast<size_t>(
      std::distance(std::filesystem::directory_iterator("/proc/self/task"), std::filesystem::directory_iterator{}));
}

TEST(BlasWorkers, NoneAreLeftWhenTheReferencesUseOneThread) {
  for (const char *variable : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"})
    if (std::getenv(variable)) GTEST_SKIP() << variable << " is set: OpenBLAS's threads are the user's choice";
  cpu_set_t cpus;
  ASSERT_EQ(sched_getaffinity(0, sizeof cpus, &cpus), 0);
  // Blas.cpp leaves two cores of OpenBLAS's default (one thread per core it may use) to the simulation and the
  // golden model, and at least one thread: one thread up to 3 cores.
  if (CPU_COUNT(&cpus) > 3) GTEST_SKIP() << CPU_COUNT(&cpus) << " cores: the references use several threads";

  const tsr::KernelInfo &matmul = *tsr::Registry::instance().find("matmul"); // its reference calls sgemm
  const tsr::Params params = matmul.resolve({{"M", 128}, {"N", 128}, {"K", 128}});
  std::vector<tsr::HostTensor> inputs = {tsr::HostTensor(128 * 128, 1.0f), tsr::HostTensor(128 * 128, 1.0f)};
  std::vector<tsr::HostTensor> outputs = {tsr::HostTensor(128 * 128)};
  const size_t before = threadsOfThisProcess();
  matmul.reference(params, inputs, outputs); // loads OpenBLAS in this process (one test a process under ctest)
  EXPECT_EQ(outputs[0][0], 128.0f);
  EXPECT_EQ(threadsOfThisProcess(), before);
}

} // namespace
