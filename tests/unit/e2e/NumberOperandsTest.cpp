// Numbers as operands (`x * 0.5f`, `1 - x`, `acc += 1.5f`, as NKI's nl.multiply(x, 0.5)): each is one op with an
// FP32 immediate, checked against the golden model (the kernel JIT-compiled for the CPU) and a plain C++ reference
// on NeuronCore (tensor_scalar; a division by a number becomes a multiply by its reciprocal) and TPU (vpu_binary
// with a splatted scalar) targets, in f32 and bf16.

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <variant>

namespace {

using namespace tessera;

/// One use of a number: its name, the call, and what it computes in double.
struct NumberUse {
  const char *name;
  tsr::Tile (*call)(const tsr::Tile &);
  double (*reference)(double);
};

const NumberUse kUses[] = {
    {"x + 0.25", [](const tsr::Tile &x) { return x + 0.25f; }, [](double x) { return x + 0.25; }},
    {"x - 0.5", [](const tsr::Tile &x) { return x - 0.5; }, [](double x) { return x - 0.5; }},
    {"1 - x", [](const tsr::Tile &x) { return 1 - x; }, [](double x) { return 1 - x; }},
    {"x * 3", [](const tsr::Tile &x) { return x * 3; }, [](double x) { return x * 3; }},
    {"x / 4", [](const tsr::Tile &x) { return x / 4.0f; }, [](double x) { return x / 4; }},
    {"2 / (x + 3)", [](const tsr::Tile &x) { return 2.0f / (x + 3.0f); }, [](double x) { return 2 / (x + 3); }},
    {"maximum(x, 0.1)", [](const tsr::Tile &x) { return tsr::maximum(x, 0.1f); },
     [](double x) { return std::max(x, double(0.1f)); }},
    {"minimum(0.2, x)", [](const tsr::Tile &x) { return tsr::minimum(0.2f, x); },
     [](double x) { return std::min(double(0.2f), x); }},
    {"t += 1.5; t *= -2", [](const tsr::Tile &x) {
       tsr::Tile t = tsr::copy<tsr::f32>(x);
       t += 1.5f;
       t *= -2;
       return t;
     },
     [](double x) { return (x + 1.5) * -2; }},
};
constexpr int64_t kUseCount = static_cast<int64_t>(std::size(kUses));

const NumberUse &useOf(const tsr::Params &p) { return kUses[p["use"] - 1]; }

/// y = use(x) in `dtype`, the use chosen by kernel parameter use.
tsr::KernelInfo numbersKernel(const char *name, tsr::DType dtype) {
  return {
      .name = name,
      .summary = "numbers as operands of the elementwise operations, chosen by kernel parameter use (1 to 9)",
      .params = {{"P", 32}, {"N", 256}},
      .kernelParams = {{"use", 1}},
      .signature =
          [dtype](const tsr::Params &p) {
            return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["N"]}, dtype),
                                                tsr::output("y", {p["P"], p["N"]}, dtype)};
          },
      .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm y) {
        const int64_t P = x.dim(0), N = x.dim(1);
        tsr::require(p["use"] <= kUseCount, "use is 1 to 9");
        tsr::Tile result = useOf(p).call(tsr::load(x.tile(0, 0, {P, N})));
        tsr::store(y.tile(0, 0, {P, N}), result.dtype() == x.dtype() ? result : tsr::copy(result, x.dtype()));
      }),
      .reference =
          [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
            for (size_t i = 0; i < in[0].size(); ++i) out[0][i] = static_cast<float>(useOf(p).reference(in[0][i]));
          },
  };
}

const tsr::Registration f32Kernel{numbersKernel("test_tsr_numbers", tsr::f32)};
const tsr::Registration bf16Kernel{numbersKernel("test_tsr_numbers_bf16", tsr::bf16)};

TEST(NumberOperands, EachMatchesTheGoldenModelAndTheReferenceOnEveryFamily) {
  for (int64_t use = 1; use <= kUseCount; ++use)
    for (const char *kernel : {"test_tsr_numbers", "test_tsr_numbers_bf16"})
      for (const char *target : {"trn1", "trn2", "tpu-v5e"}) {
        driver::RunReport r =
            driver::runKernel({.kernel = kernel, .target = target, .kernelParams = {{"use", use}}});
        EXPECT_TRUE(r.ok) << kUses[use - 1].name << " (" << kernel << ") on " << target << "\n"
                          << driver::toText(r);
        EXPECT_EQ(r.reference, "golden+reference") << kUses[use - 1].name << ": " << r.goldenUnavailable;
      }
}

TEST(NumberOperands, ANumberMakesNoTileAndOneInstruction) {
  // `x * 3` on trn2: a load, one tensor_scalar (no memset of a constant tile), a store.
  driver::RunReport r =
      driver::runKernel({.kernel = "test_tsr_numbers", .target = "trn2", .kernelParams = {{"use", 4}}});
  ASSERT_TRUE(r.ok) << driver::toText(r);
  EXPECT_EQ(r.instructions, 3u) << driver::toText(r);
}

} // namespace
