#pragma once
/// \file
/// The C++ API for a program of your own, such as your kernels' tests: what `tessera run` and `tessera compare`
/// do, as calls. Link Tessera::tessera (find_package(Tessera)); docs/user-kernels.md walks through it.
///
///   using namespace tessera::driver;
///   RunRequest request{.kernel = "my_kernel", .target = "trn2", .shape = {{"M", 256}}};
///   request.inputs["x"] = HostArray{{256, 512}, values};   // the others random, from request.seed
///   RunReport report = runKernel(request);                 // trace, compile, simulate, check
///   report.ok, report.timeUs(), report.outputs.at("y").values, report.checks[0].maxRelErr
///
/// - runKernel (Driver.h): one kernel on one target, outputs and the report; errors are tessera::Error, bad
///   input an InputError, a kernel bug found while simulating a sim::KernelBugError.
/// - loadTarget (Driver.h): a target by name or file, to change in code and pass as RunRequest::machine.
/// - compareTargets (Compare.h): one kernel on several targets with the same inputs.
/// - loadPlugin (Plugin.h): kernels from a plugin, as `--plugin` loads them.
/// - tessera/KernelTest.h: EXPECT_TESSERA_MATCHES_REFERENCE for GoogleTest.

#include "tessera/Compare.h"
#include "tessera/Driver.h"
#include "tessera/HostData.h"
#include "tessera/Plugin.h"
#include "tessera/dsl/Kernel.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/KernelBug.h"
