#pragma once
/// \file
/// GoogleTest checks of a kernel on a target, in one line:
///   EXPECT_TESSERA_MATCHES_REFERENCE("my_kernel", "trn2");
///   EXPECT_TESSERA_MATCHES_REFERENCE("my_kernel", "tpu-v5e", {{"M", 256}, {"N", 1024}});   // shape
///   EXPECT_TESSERA_MATCHES_REFERENCE("my_kernel", "trn2", {{"M", 256}}, {{"bm", 128}});     // and --param
/// each runs the kernel on random inputs, simulates it, and checks every output against the golden model (the
/// kernel JIT-compiled for this CPU) and the kernel's own plain C++ reference, within the tolerance of the
/// output's dtype. A failure names the output and its error, or the kernel bug or error that stopped the run.
/// Header-only, so it compiles against your GoogleTest: link Tessera::gtest (or Tessera::tessera and GTest::gtest).

#include "tessera/Driver.h"
#include "tessera/HostData.h"
#include "tessera/sim/KernelBug.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>

namespace tessera::driver {

namespace detail {
/// "my_kernel on trn2 (shape M=256,N=512)".
inline std::string describeRun(const RunRequest &request, const RunReport *report) {
  std::ostringstream s;
  s << request.kernel << " on " << (request.machine ? request.machine->name : request.target);
  if (report) s << " (shape " << report->params.str() << (report->params.kernelStr().empty() ? "" : ", ")
                << report->params.kernelStr() << ")";
  return s.str();
}

/// "max rel err 0.5 (tolerance 0.0156)".
inline std::string describeError(double maxRel, double maxAbs, double tolerance) {
  std::ostringstream s;
  s << "max rel err " << maxRel << ", max abs err " << maxAbs << " (tolerance " << tolerance << ")";
  return s.str();
}
} // namespace detail

/// Runs `request` and checks that every output matches its references: the golden model and the kernel's own
/// reference (RunReport::checks). Fails when a check fails, when the run stops with an error or a kernel bug, and
/// when nothing could be checked (a timing-only request, a kernel with neither reference).
inline ::testing::AssertionResult matchesReference(const RunRequest &request) {
  RunReport report;
  try {
    report = runKernel(request);
  } catch (const sim::KernelBugError &e) {
    return ::testing::AssertionFailure() << detail::describeRun(request, nullptr)
                                         << ": the simulator found a kernel bug\n" << e.what();
  } catch (const Error &e) {
    return ::testing::AssertionFailure() << detail::describeRun(request, nullptr) << ": " << e.what();
  }
  const std::string run = detail::describeRun(request, &report);
  if (report.timingOnly) return ::testing::AssertionFailure() << run << ": a timing-only run checks no outputs";
  if (report.checks.empty())
    return ::testing::AssertionFailure() << run << ": nothing to check the outputs against (no golden model: "
                                         << report.goldenUnavailable << "; and the kernel has no .reference)";
  ::testing::AssertionResult result = report.ok ? ::testing::AssertionSuccess() : ::testing::AssertionFailure();
  result << run << (report.ok ? " matches " : " does not match ") << report.reference << ", "
         << report.timeUs() << " us simulated";
  for (const TensorCheck &c : report.checks) {
    result << "\n  output " << c.name << (c.ok ? " ok: " : " DIFFERS: ")
           << detail::describeError(c.maxRelErr, c.maxAbsErr, c.tolerance);
    if (c.vsGolden)
      result << "\n    vs golden     " << detail::describeError(c.vsGolden->maxRelErr, c.vsGolden->maxAbsErr,
                                                                c.vsGolden->tolerance);
    if (c.vsReference)
      result << "\n    vs reference  " << detail::describeError(c.vsReference->maxRelErr, c.vsReference->maxAbsErr,
                                                                c.vsReference->tolerance);
    if (c.unwritten) result << "\n    never written: " << describe(*c.unwritten);
  }
  return result;
}

/// matchesReference for kernel `kernel` on `target` (a name or a .toml file), with shape parameters `shape` and
/// kernel parameters `params` over the kernel's defaults.
inline ::testing::AssertionResult matchesReference(const std::string &kernel, const std::string &target,
                                                   const std::map<std::string, int64_t> &shape = {},
                                                   const std::map<std::string, int64_t> &params = {}) {
  RunRequest request;
  request.kernel = kernel;
  request.target = target;
  request.shape = shape;
  request.kernelParams = params;
  return matchesReference(request);
}

/// Whether output `name` of `report` matches `expected` (computed by your test) within the tolerance of the
/// output's dtype, or the kernel's referenceTolerance: max |out - expected| / max(|expected|, rms(expected)), as
/// every run checks its outputs.
inline ::testing::AssertionResult outputMatches(const RunReport &report, const std::string &name,
                                                const HostArray &expected) {
  const auto out = report.outputs.find(name);
  if (out == report.outputs.end())
    return ::testing::AssertionFailure() << report.kernel << " has no output '" << name
                                         << "' in this report (a timing-only run keeps none)";
  if (out->second.shape != expected.shape || out->second.values.size() != expected.values.size())
    return ::testing::AssertionFailure() << "output '" << name << "' has " << out->second.values.size()
                                         << " values, the expected array " << expected.values.size()
                                         << " (or another shape)";
  isa::DType dtype = isa::DType::F32;
  for (const isa::TensorInfo &t : report.program->tensors)
    if (t.name == name) dtype = t.dtype;
  const tsr::KernelInfo *kernel = tsr::Registry::instance().find(report.kernel);
  const TensorCheck c =
      compare(name, dtype, out->second.values, expected.values, kernel ? kernel->referenceTolerance : 0);
  ::testing::AssertionResult result = c.ok ? ::testing::AssertionSuccess() : ::testing::AssertionFailure();
  return result << report.kernel << " output " << name << (c.ok ? " matches: " : " DIFFERS: ")
                << detail::describeError(c.maxRelErr, c.maxAbsErr, c.tolerance);
}

} // namespace tessera::driver

/// EXPECT_TESSERA_MATCHES_REFERENCE(kernel, target[, shape[, params]]): matchesReference in a GoogleTest check.
#define EXPECT_TESSERA_MATCHES_REFERENCE(kernel, ...)                                                              \
  EXPECT_TRUE(::tessera::driver::matchesReference(kernel, __VA_ARGS__))
/// The same, stopping the test when it fails.
#define ASSERT_TESSERA_MATCHES_REFERENCE(kernel, ...)                                                              \
  ASSERT_TRUE(::tessera::driver::matchesReference(kernel, __VA_ARGS__))
