// Two ways a plugin's own code throws (issue 24: both aborted tessera, exit 134): a static initialiser throws while
// the plugin loads, which must fail the load with the message; with TESSERA_TEST_THROW_IN_BODY set, the
// initialiser is quiet and kernel plugin_throws_int's body throws an int, which must be an error naming no
// internal failure, exit 2.

#include "tessera/dsl/tsr.h"

#include <cstdlib>
#include <stdexcept>

namespace {

using namespace tsr;

const bool kSetUp = [] {
  if (!std::getenv("TESSERA_TEST_THROW_IN_BODY")) throw std::runtime_error("the plugin's own set-up failed");
  return true;
}();

const Registration registration{{
    .name = "plugin_throws_int",
    .summary = "a kernel whose body throws an int (a test plugin's kernel)",
    .params = {{"R", 128}},
    .signature = [](const Params &p) {
      return std::vector<TensorSpec>{input("x", {p["R"], 128}, f32), output("y", {p["R"], 128}, f32)};
    },
    .body = body([](Hbm, Hbm) { throw 42; }),
}};

} // namespace
