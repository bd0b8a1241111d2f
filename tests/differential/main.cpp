// tessera-difftest: longer differential runs than the test suite's fixed batch.
//
//   tessera-difftest --seeds 1..5000 [--target trn1] [--no-minimise] [--show SEED]
//
// Runs each seed's random kernel on the simulator and on the golden model and compares the outputs; prints each
// failure with its kernel, minimised, as C++ to paste into tests/unit/e2e/DifferentialTest.cpp as a regression
// test. `--show SEED` prints a seed's kernel and runs it alone. Exit status: 0 all agreed, 1 a failure, 2 bad usage.

#include "RandomKernel.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

bool parseRange(const std::string &s, uint64_t &first, uint64_t &last) {
  try {
    size_t dots = s.find("..");
    if (dots == std::string::npos) first = last = std::stoull(s);
    else {
      first = std::stoull(s.substr(0, dots));
      last = std::stoull(s.substr(dots + 2));
    }
    return first <= last;
  } catch (const std::exception &) {
    return false;
  }
}

int usage() {
  std::cerr << "usage: tessera-difftest [--seeds A..B] [--target NAME] [--no-minimise] [--show SEED]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  uint64_t first = 1, last = 1000;
  std::string target = "trn2";
  bool minimise = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--seeds") {
      const char *v = next();
      if (!v || !parseRange(v, first, last)) return usage();
    } else if (a == "--target") {
      const char *v = next();
      if (!v) return usage();
      target = v;
    } else if (a == "--no-minimise") {
      minimise = false;
    } else if (a == "--show") {
      const char *v = next();
      uint64_t seed, unused;
      if (!v || !parseRange(v, seed, unused)) return usage();
      tessera::difftest::KernelSpec spec = tessera::difftest::generate(seed);
      tessera::difftest::Outcome r = tessera::difftest::run(spec, target);
      std::cout << spec.str() << spec.cpp() << fmt::format("{} ops, {} instructions: {}{}\n", r.ops, r.instructions,
                                                            r.ok ? "ok" : "FAILED\n", r.message);
      return r.ok ? 0 : 1;
    } else {
      return usage();
    }
  }
  auto start = std::chrono::steady_clock::now();
  tessera::difftest::BatchResult b = tessera::difftest::runSeeds(first, last, target, minimise);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const std::string &f : b.failureReports) std::cout << f << "\n";
  std::cout << fmt::format("seeds {}..{} on {}: {} kernels, {} ops, {} instructions; {} failed, {} bit-exact with the "
                           "golden model ({:.1f} s)\n",
                           first, last, target, b.kernels, b.ops, b.instructions, b.failures, b.bitExact, seconds);
  return b.failures == 0 ? 0 : 1;
}
