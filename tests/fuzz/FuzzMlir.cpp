/// \file
/// libFuzzer target: a `.mlir` file through the loader, the verifiers and the compiler's remaining stages
/// (compiler::compileFile, as `tessera sim` reads it), then the simulator with its kernel-bug checks on.
/// A tessera::Error (a parse or verifier error, a kernel bug the simulator reports) is the expected answer to a
/// bad file; a crash, a hang, another exception or an abort is a bug.
///
/// The work per input is bounded so the fuzzer spends its time on many inputs: inputs over kMaxInputBytes are
/// skipped, and a program over kMaxInstructions instructions or kMaxHbmBytes of tensors is not simulated. A short
/// input may stand for a long one (expand(): "//repeat N" repeats its next line N times), so that what only size
/// exposes stays within reach: brackets nested 10,000 deep once crashed the parser.
///
/// This file is compiled by clang with -fsanitize=fuzzer-no-link; the libraries it calls are the g++-built ones
/// of the normal build, which carry no coverage instrumentation. So that libFuzzer still sees which paths an
/// input reached, the target sets extra counters from the outcome: the stage and the wording of the error
/// (digits dropped), and the opcodes, engines and size classes of a program that compiled.

#include "tessera/compiler/Compiler.h"
#include "tessera/isa/Error.h"
#include "tessera/isa/NumberFormats.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <unistd.h>

#include <bit>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <limits>
#include <vector>

namespace {

using namespace tessera;

constexpr size_t kMaxInputBytes = 8192;
constexpr size_t kMaxRepeats = 100'000, kMaxExpandedBytes = 1 << 20;
constexpr size_t kMaxInstructions = 10'000;
constexpr int64_t kMaxHbmBytes = 16 << 20;

constexpr size_t kCounters = 4096;
__attribute__((section("__libfuzzer_extra_counters"))) uint8_t extraCounters[kCounters];

void bump(uint64_t feature) {
  uint8_t &c = extraCounters[(feature * 0x9e3779b97f4a7c15ull >> 40) % kCounters];
  if (c < 255) ++c;
}

/// A feature for an error message: its words up to the first quote, without numbers, so "line 3" and "line 4"
/// count once.
uint64_t messageFeature(uint64_t stage, std::string_view message) {
  uint64_t h = 1469598103934665603ull ^ stage;
  for (char c : message.substr(0, 120)) {
    if (c == '\'' || c == '"' || c == '`') break; // what follows quotes the input: not a new path
    if (std::isdigit(static_cast<unsigned char>(c))) continue;
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return h;
}

const std::string &scratchPath() {
  static const std::string path = [] {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/tessera-fuzz-mlir-" + std::to_string(getpid()) + ".mlir";
  }();
  return path;
}

/// HBM contents like the driver's makeInputs (tools/tessera/HostData.h, which clang 14 cannot compile: the DSL
/// headers need std::source_location): inputs uniform in [-1, 1), outputs NaN.
sim::HbmImage makeInputs(const isa::Program &program) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  sim::HbmImage hbm;
  for (const isa::TensorInfo &t : program.tensors) {
    std::vector<float> values(static_cast<size_t>(t.elements()), std::numeric_limits<float>::quiet_NaN());
    if (!t.isOutput)
      for (float &v : values) v = uniform(rng);
    std::vector<std::byte> bytes(static_cast<size_t>(t.bytes()));
    isa::encode(t.dtype, values.data(), bytes.data(), values.size());
    hbm.push_back(std::move(bytes));
  }
  return hbm;
}

/// `input` itself, or, when it starts "//repeat N\n", its next line N times (N <= kMaxRepeats, the whole at most
/// kMaxExpandedBytes) followed by the rest: "//repeat 10000\n[\n" is 10,000 nested brackets.
std::string expand(std::string_view input) {
  constexpr std::string_view kRepeat = "//repeat ";
  if (!input.starts_with(kRepeat)) return std::string(input);
  const size_t countEnd = input.find('\n');
  const size_t lineEnd = input.find('\n', countEnd == std::string_view::npos ? input.size() : countEnd + 1);
  if (countEnd == std::string_view::npos || lineEnd == std::string_view::npos) return std::string(input);
  size_t count = 0;
  for (char c : input.substr(kRepeat.size(), countEnd - kRepeat.size())) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::string(input);
    count = std::min(kMaxRepeats + 1, count * 10 + static_cast<size_t>(c - '0'));
  }
  const std::string_view line = input.substr(countEnd + 1, lineEnd - countEnd - 1), rest = input.substr(lineEnd + 1);
  if (count > kMaxRepeats || count * line.size() + rest.size() > kMaxExpandedBytes) return std::string(input);
  std::string text;
  text.reserve(count * line.size() + rest.size());
  for (size_t i = 0; i < count; ++i) text += line;
  text += rest;
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes) return -1; // not added to the corpus
  {
    const std::string text = expand({reinterpret_cast<const char *>(data), size});
    std::ofstream out(scratchPath(), std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  compiler::CompileResult compiled;
  try {
    compiled = compiler::compileFile(scratchPath());
  } catch (const Error &e) {
    bump(messageFeature(1, e.message()));
    return 0;
  }
  const isa::Program &program = compiled.program;
  bump(0x100 + std::bit_width(program.instructionCount()));
  for (const isa::Stream &s : program.streams) {
    bump(0x200 + static_cast<uint64_t>(s.engine) * 64 + std::bit_width(s.instructions.size()));
    for (const isa::Instruction &i : s.instructions)
      bump(0x1000 + static_cast<uint64_t>(s.engine) * 256 + static_cast<uint64_t>(i.op) * 16 +
           static_cast<uint64_t>(i.alu) * 2 + i.accumulate);
  }
  if (program.instructionCount() > kMaxInstructions) return 0;
  int64_t hbmBytes = 0;
  for (const isa::TensorInfo &t : program.tensors) {
    if (t.elements() < 0 || t.bytes() > kMaxHbmBytes) return 0;
    hbmBytes += t.bytes();
  }
  if (hbmBytes > kMaxHbmBytes) return 0;
  try {
    const isa::Target target = isa::Target::find(program.target);
    sim::HbmImage hbm = makeInputs(program);
    const sim::SimResult result = sim::simulate(program, target, hbm, {.computeValues = true, .checks = true});
    bump(0x3000 + std::bit_width(static_cast<uint64_t>(result.timeNs)));
  } catch (const Error &e) {
    bump(messageFeature(2, e.message()));
  }
  return 0;
}
