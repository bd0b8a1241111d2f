// The simulator's speed against the host's own limit, measured in one run (issues 9 and 22; docs/performance.md):
//  1. functional: `tessera run matmul --target trn2 --shape M=2048,N=2048,K=2048` (bf16, FP32 PSUM) - its
//     sim_seconds against OpenBLAS sgemm of the same 2048^3 FLOPs on one thread and on all of them;
//     goal: sim_seconds <= 1.5x sgemm on one thread.
//  2. timing only: simulated instructions per host second of large compiled programs, with and without the
//     kernel-bug checks; goals: >= 10 million per second without them, >= 5 million with them.
// The lines that start with "done-when:" are issue 22's goals, which bench/run.sh gathers at the end.
//   build/bench/bench-sim-speed [--quick] [--timing | --functional]   (bench/run.sh runs it with the others)
// Times are the best of several repeats, host wall time. Never a test: nothing here gates CI.

#include "tessera/Driver.h"
#include "tessera/HostData.h"
#include "tessera/isa/Gemm.h"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

extern "C" void openblas_set_num_threads(int threads);

namespace {

using namespace tessera;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

/// Best wall time of `repeats` calls of `f`.
template <typename F> double bestOf(int repeats, F &&f) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    f();
    best = std::min(best, seconds(start));
  }
  return best;
}

/// OpenBLAS sgemm C = A B (row-major, beta 1: accumulating, as PSUM does) of n^3 on `threads` threads.
double sgemmSeconds(int64_t n, int threads, int repeats) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(size_t(n * n)), b(size_t(n * n)), c(size_t(n * n), 0.0f);
  for (float &x : a) x = uniform(rng);
  for (float &x : b) x = uniform(rng);
  openblas_set_num_threads(threads);
  const int ni = int(n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, a.data(), ni, b.data(), ni, 1.0f,
              c.data(), ni); // warm-up: thread pool, pages
  return bestOf(repeats, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, a.data(), ni, b.data(), ni, 1.0f,
                c.data(), ni);
  });
}

/// Tessera's own tile GEMM (isa/Gemm.h) alone over the same FLOPs: n^3 as the 128 x 128 x 512 tiles the
/// matmul kernel issues, bf16-valued operands (so the FMA path).
double tileGemmSeconds(int64_t n, int repeats) {
  const int64_t k = 128, m = 128, nn = 512;
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(size_t(k * m)), b(size_t(k * nn)), c(size_t(m * nn), 0.0f);
  for (float &x : a) x = uniform(rng);
  for (float &x : b) x = uniform(rng);
  const int64_t tiles = (n / k) * (n / m) * (n / nn);
  return bestOf(repeats, [&] {
    for (int64_t t = 0; t < tiles; ++t)
      isa::accumulateProducts(c.data(), nn, a.data(), b.data(), k, m, nn, /*exactProducts=*/true);
  });
}

void functionalTable(bool quick) {
  const int64_t n = 2048;
  const double gflop = 2.0 * double(n) * double(n) * double(n) / 1e9;
  const int repeats = quick ? 1 : 3;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

  // What `tessera run matmul --target trn2 --shape M=2048,N=2048,K=2048 --json` does, reference and golden model
  // included; then the simulation alone again (same program, same inputs) for the best of `repeats`.
  driver::RunRequest request;
  request.kernel = "matmul";
  request.target = "trn2";
  request.shape = {{"M", n}, {"N", n}, {"K", n}};
  const driver::RunReport report = driver::runKernel(request);
  double simSeconds = report.sim.hostSeconds;
  for (int i = 1; i < repeats; ++i) {
    sim::HbmImage hbm = driver::makeInputs(*report.program, request.seed);
    simSeconds = std::min(simSeconds, sim::simulate(*report.program, report.target, hbm, request.simOptions()).hostSeconds);
  }
  const double one = sgemmSeconds(n, 1, repeats), all = sgemmSeconds(n, int(cores), repeats);
  const double tile = tileGemmSeconds(n, repeats);

  fmt::print("Functional speed: matmul bf16 M=N=K={} on trn2, {:.2f} GFLOP ({} instructions, outputs {})\n", n,
             gflop, report.instructions, report.ok ? "match golden model and reference" : "DO NOT MATCH");
  fmt::print("  {:<52} {:>9} {:>9} {:>8}\n", "", "seconds", "GFLOP/s", "ratio");
  fmt::print("  {:<52} {:>9.3f} {:>9.1f} {:>8.2f}\n", "tessera run sim_seconds (1 thread)", simSeconds,
             gflop / simSeconds, 1.0);
  fmt::print("  {:<52} {:>9.3f} {:>9.1f} {:>8.2f}\n",
             fmt::format("  its tile GEMM alone ({} kernel, 128x128x512 tiles)", isa::gemmKernelName()), tile,
             gflop / tile, tile / simSeconds);
  fmt::print("  {:<52} {:>9.3f} {:>9.1f} {:>8.2f}\n", "OpenBLAS sgemm, 1 thread", one, gflop / one,
             one / simSeconds);
  fmt::print("  {:<52} {:>9.3f} {:>9.1f} {:>8.2f}\n", fmt::format("OpenBLAS sgemm, {} threads", cores), all,
             gflop / all, all / simSeconds);
  fmt::print("  sim_seconds / sgemm(1 thread) = {:.2f}x; / sgemm({} threads) = {:.2f}x\n", simSeconds / one, cores,
             simSeconds / all);
  fmt::print("done-when: functional sim_seconds of matmul bf16 2048^3 on trn2 / OpenBLAS sgemm on 1 thread = {:.2f}x "
             "(goal <= 1.5x: {})\n\n",
             simSeconds / one, simSeconds / one <= 1.5 ? "met" : "NOT met");
}

/// Simulated instructions per host second of `kernel` at `shape` on `target`, timing only, without and with the
/// kernel-bug checks (goals: 10 and 5 million per second); `doneWhen`: print the rates as issue 22's goal lines.
void timingRow(const std::string &kernel, const std::string &target, std::map<std::string, int64_t> shape,
               int repeats, bool doneWhen = false) {
  driver::RunRequest request;
  request.kernel = kernel;
  request.target = target;
  request.shape = shape;
  request.timingOnly = true;
  const driver::CompiledKernel compiled = driver::compileKernel(request);
  const isa::Program &program = compiled.compiled.program;
  std::string shapeText;
  for (auto &[name, value] : shape) shapeText += fmt::format("{}{}={}", shapeText.empty() ? "" : ",", name, value);
  for (bool checks : {false, true}) {
    double best = 1e30;
    for (int i = 0; i < repeats; ++i) {
      sim::HbmImage empty;
      best = std::min(best, sim::simulate(program, compiled.target, empty,
                                          {.computeValues = false, .checks = checks, .progress = {}})
                                .hostSeconds);
    }
    const double rate = double(program.instructionCount()) / best / 1e6, goal = checks ? 5.0 : 10.0;
    const char *verdict = rate >= goal ? "met" : "NOT met";
    fmt::print("  {:<14} {:<8} {:<22} {:>12} {:>7} {:>10.4f} {:>9.2f}  {:>4.0f}  {}\n", kernel, target, shapeText,
               program.instructionCount(), checks ? "on" : "off", best, rate, goal, verdict);
    if (doneWhen)
      fmt::print("done-when: timing-only {} {} {}, checks {}: {:.2f} M simulated instructions/s (goal >= {:.0f} M: "
                 "{})\n",
                 kernel, target, shapeText, checks ? "on" : "off", rate, goal, verdict);
  }
}

void timingTable(bool quick) {
  const int repeats = quick ? 1 : 5;
  fmt::print("Timing speed (--timing-only): simulated instructions per host second, building the machine included\n");
  fmt::print("  {:<14} {:<8} {:<22} {:>12} {:>7} {:>10} {:>9}  {:>4}\n", "kernel", "target", "shape",
             "instructions", "checks", "seconds", "M/s", "goal");
  timingRow("matmul", "trn1", {{"M", 4096}, {"N", 8192}, {"K", 8192}}, repeats);
  timingRow("matmul", "trn2", {{"M", 8192}, {"N", 8192}, {"K", 8192}}, repeats, /*doneWhen=*/true);
  timingRow("matmul_tiled", "trn2", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, repeats);
  timingRow("softmax", "trn2", {{"R", 65536}, {"C", 2048}}, repeats);
  timingRow("matmul_blocked", "tpu-v5e", {{"M", 8192}, {"N", 8192}, {"K", 8192}}, repeats);
  fmt::print("\n");
}

} // namespace

int main(int argc, char **argv) {
  bool quick = false, functional = true, timing = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--timing") == 0) functional = false;
    else if (std::strcmp(argv[i], "--functional") == 0) timing = false;
    else {
      fmt::print(stderr, "usage: bench-sim-speed [--quick] [--timing | --functional]\n");
      return 2;
    }
  }
  try {
    if (functional) functionalTable(quick);
    if (timing) timingTable(quick);
  } catch (const std::exception &e) {
    fmt::print(stderr, "bench-sim-speed: {}\n", e.what());
    return 1;
  }
  return 0;
}
