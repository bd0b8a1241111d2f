// tessera-difftest: longer differential runs than the test suite's fixed batch.
//
//   tessera-difftest --seeds 1..5000 [--target trn1] [--no-minimise] [--show SEED]
//   tessera-difftest --seeds 1..600 --target tpu-v5e --pallas DIR [--pallas-style manual,grid,auto]
//
// Runs each seed's random kernel on the simulator and on the golden model and compares the outputs; prints each
// failure with its kernel, minimised, as C++ to paste into tests/unit/e2e/DifferentialTest.cpp as a regression
// test. `--show SEED` prints a seed's kernel and runs it alone. With --pallas (a TPU target), each seed's kernel
// runs through the driver and its Pallas deploy bundle is written per style into DIR/<seed>-<style>/ (PallasBundles.h)
// for hw-backends/check/pallas_differential.py DIR; refusals are counted by reason. Exit status: 0 all agreed
// (with --pallas: every seed ran and was written or refused), 1 a failure, 2 bad usage.

#include "PallasBundles.h"
#include "RandomKernel.h"

#include "tessera/DeviceCode.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

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
  std::cerr << "usage: tessera-difftest [--seeds A..B] [--target NAME] [--no-minimise] [--show SEED]\n"
               "       tessera-difftest [--seeds A..B] --target TPU-TARGET --pallas DIR "
               "[--pallas-style manual,grid,auto]\n";
  return 2;
}

std::vector<std::string> splitStyles(const std::string &list) {
  std::vector<std::string> styles;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = std::min(list.find(',', start), list.size());
    styles.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return styles;
}

/// --pallas: the bundles of seeds [first, last], and the counts.
int writeBundles(uint64_t first, uint64_t last, const std::string &target, const std::vector<std::string> &styles,
                 const std::string &dir) {
  namespace td = tessera::difftest;
  try {
    if (tessera::driver::deviceBackendOf(tessera::driver::loadTarget(target)) != "pallas") {
      std::cerr << fmt::format("tessera-difftest: --pallas needs a TPU target, not '{}' (try --target tpu-v5e)\n",
                               target);
      return 2;
    }
    for (const std::string &style : styles) tessera::driver::pallasStyle(style);
  } catch (const tessera::Error &e) {
    std::cerr << "tessera-difftest: " << e.message() << (e.hint().empty() ? "" : " (" + e.hint() + ")") << "\n";
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  td::PallasBatch b;
  try {
    b = td::writePallasBatch(first, last, target, styles, dir);
  } catch (const tessera::driver::InputError &e) {
    std::cerr << "tessera-difftest: " << e.message() << (e.hint().empty() ? "" : " (" + e.hint() + ")") << "\n";
    return 2;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const std::string &f : b.failureReports) std::cout << f << "\n";
  int refused = 0;
  for (const auto &[style, kinds] : b.refusals)
    for (const auto &[kind, n] : kinds) {
      std::cout << fmt::format("refused by {} ({}x): {}\n", style, n, kind);
      refused += n;
    }
  std::cout << fmt::format("seeds {}..{} on {}: {} kernels, {} failed; {} Pallas bundles in {}, {} refused ({:.1f} s)\n",
                           first, last, target, b.kernels, b.failures, b.bundles, dir, refused, seconds);
  return b.failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  uint64_t first = 1, last = 1000;
  std::string target = "trn2";
  bool minimise = true;
  std::string pallasDir, styles = "manual,grid,auto";
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
    } else if (a == "--pallas") {
      const char *v = next();
      if (!v) return usage();
      pallasDir = v;
    } else if (a == "--pallas-style") {
      const char *v = next();
      if (!v) return usage();
      styles = v;
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
  if (!pallasDir.empty()) return writeBundles(first, last, target, splitStyles(styles), pallasDir);
  auto start = std::chrono::steady_clock::now();
  tessera::difftest::BatchResult b = tessera::difftest::runSeeds(first, last, target, minimise);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const std::string &f : b.failureReports) std::cout << f << "\n";
  std::cout << fmt::format("seeds {}..{} on {}: {} kernels, {} ops, {} instructions; {} failed, {} bit-exact with the "
                           "golden model ({:.1f} s)\n",
                           first, last, target, b.kernels, b.ops, b.instructions, b.failures, b.bitExact, seconds);
  return b.failures == 0 ? 0 : 1;
}
