#pragma once
/// \file
/// Helpers for the DSL tests: a kernel made of a signature and a body written in the test, the error a piece of
/// DSL code throws, and a check that an error points at a given line of the test file.

#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <source_location>
#include <string>
#include <utility>
#include <vector>

namespace tsr::dsltest {

/// A kernel named "test" with the HBM tensors `tensors` and the body `f` (a lambda taking one tsr::Hbm per
/// tensor). It is not registered; pass it to tsr::trace.
template <class F> KernelInfo kernelOf(std::vector<TensorSpec> tensors, F f) {
  KernelInfo k;
  k.name = "test";
  k.signature = [tensors](const Params &) { return tensors; };
  k.body = tsr::body(std::move(f));
  return k;
}

/// The tessera::Error that `f()` throws; a test failure (and an empty error) if it throws none.
template <class F> tessera::Error errorOf(F &&f) {
  try {
    f();
  } catch (const tessera::Error &e) {
    return e;
  }
  ADD_FAILURE() << "expected a tessera::Error, none was thrown";
  return tessera::Error("(no error was thrown)");
}

/// The tessera::Error that tracing `kernel` throws.
inline tessera::Error traceError(const KernelInfo &kernel, const Params &params = {}) {
  return errorOf([&] { (void)trace(kernel, params); });
}

/// Expects `e` to be reported at line `line` of the file that calls this (the test file).
inline void expectAt(const tessera::Error &e, int line, std::source_location here = std::source_location::current()) {
  EXPECT_EQ(e.where().file, here.file_name()) << e.what();
  EXPECT_EQ(e.where().line, static_cast<uint32_t>(line))
      << e.what() << "\n  (expected at " << here.file_name() << ":" << line << ", checked at line " << here.line()
      << ")";
}

} // namespace tsr::dsltest
