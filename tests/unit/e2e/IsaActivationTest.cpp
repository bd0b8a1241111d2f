// tsr::isa::activation with every activation function (with a [P, 1] bias tile and with an immediate bias) and
// tsr::isa::activation_reduce, end to end through driver::runKernel against plain C++ references, on trn1 and
// trn2; and their misuse, reported at the kernel's line.

#include "../dsl/DslTesting.h"

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace {

using namespace tessera;
using tsr::dsltest::expectAt;
using tsr::dsltest::kernelOf;
using tsr::dsltest::traceError;

constexpr int64_t kFunctions = 13; ///< ActFunc::Identity .. ActFunc::Reciprocal, as kernel parameter 1 .. 13
constexpr float kScale = 0.75f;
constexpr float kImmediateBias = 0.125f;

isa::ActFunc funcOf(const tsr::Params &p) { return static_cast<isa::ActFunc>(p["func"] - 1); }

/// Whether `f` is defined (and finite) only for positive inputs: the kernels feed those exp(x) instead of x.
bool positiveDomain(isa::ActFunc f) {
  return f == isa::ActFunc::Log || f == isa::ActFunc::Rsqrt || f == isa::ActFunc::Sqrt ||
         f == isa::ActFunc::Reciprocal;
}

/// f(x) in double, from the functions' definitions (independent of the simulator's isa::apply).
double activationOf(isa::ActFunc f, double x) {
  const double sigmoid = 1.0 / (1.0 + std::exp(-x));
  switch (f) {
  case isa::ActFunc::Identity: return x;
  case isa::ActFunc::Exp: return std::exp(x);
  case isa::ActFunc::Log: return std::log(x);
  case isa::ActFunc::Tanh: return std::tanh(x);
  case isa::ActFunc::Gelu: return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
  case isa::ActFunc::GeluApproxTanh:
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
  case isa::ActFunc::Silu: return x * sigmoid;
  case isa::ActFunc::Sigmoid: return sigmoid;
  case isa::ActFunc::Relu: return x > 0 ? x : 0.0;
  case isa::ActFunc::Rsqrt: return 1.0 / std::sqrt(x);
  case isa::ActFunc::Square: return x * x;
  case isa::ActFunc::Sqrt: return std::sqrt(x);
  case isa::ActFunc::Reciprocal: return 1.0 / x;
  }
  ADD_FAILURE() << "unknown activation function";
  return 0;
}

// y = func(x * 0.75 + b[p]); functions defined only for positive inputs get func(exp(x) * 0.75 + 0.125) instead,
// exp on the scalar engine first and the bias as an immediate.
const tsr::Registration activationFuncsKernel{{
    .name = "test_isa_activation_funcs",
    .summary = "tsr::isa::activation with the activation function given as kernel parameter func (1 = identity)",
    .params = {{"P", 32}, {"N", 40}},
    .kernelParams = {{"func", 2}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["N"]}, tsr::f32),
                                              tsr::input("b", {p["P"], 1}, tsr::f32),
                                              tsr::output("y", {p["P"], p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm b, tsr::Hbm y) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::require(p["func"] <= kFunctions, "func is 1 to 13");
      const isa::ActFunc func = funcOf(p);
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile result = tsr::ndarray<tsr::f32>({P, N});
      if (positiveDomain(func)) {
        tsr::Tile e = tsr::ndarray<tsr::f32>({P, N});
        tsr::isa::activation(e, tsr::act::exp, loaded);
        tsr::isa::activation(result, func, e, kImmediateBias, kScale);
      } else {
        tsr::Tile bias = tsr::load(b.tile(0, 0, {P, 1}));
        tsr::isa::activation(result, func, loaded, bias, kScale);
      }
      tsr::store(y.tile(0, 0, {P, N}), result);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          const isa::ActFunc func = funcOf(p);
          for (int64_t r = 0; r < P; ++r)
            for (int64_t c = 0; c < N; ++c) {
              const double x = in[0][r * N + c];
              const double v = positiveDomain(func) ? std::exp(x) * kScale + kImmediateBias : x * kScale + in[1][r];
              out[0][r * N + c] = static_cast<float>(activationOf(func, v));
            }
        },
}};

TEST(IsaActivation, EveryFunctionMatchesItsDefinitionOnTrn1AndTrn2) {
  for (int64_t f = 1; f <= kFunctions; ++f)
    for (const char *target : {"trn1", "trn2"}) {
      const isa::ActFunc fn = static_cast<isa::ActFunc>(f - 1);
      const std::string func(isa::name(fn));
      if (positiveDomain(fn) && std::string(target) == "trn1") {
        // NeuronCore-v2 adds a bias from an [N, 1] tile only, and none to a reciprocal (NKI): refused at the line.
        tessera::Error e = tsr::dsltest::errorOf([&] {
          (void)driver::runKernel(
              {.kernel = "test_isa_activation_funcs", .target = target, .kernelParams = {{"func", f}}});
        });
        const std::string expected = fn == isa::ActFunc::Reciprocal
                                         ? "the reciprocal activation takes no bias on NeuronCore-v2 (trn1)"
                                         : "a bias on NeuronCore-v2 (trn1) must be a [P, 1] tile, not the number 0.125";
        EXPECT_NE(std::string(e.what()).find(expected + " [rule activation.bias-v2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("IsaActivationTest.cpp"), std::string::npos) << e.what();
        continue;
      }
      driver::RunReport r =
          driver::runKernel({.kernel = "test_isa_activation_funcs", .target = target, .kernelParams = {{"func", f}}});
      EXPECT_TRUE(r.ok) << func << " on " << target << "\n" << driver::toText(r);
      EXPECT_EQ(r.reference, "reference") << func;
    }
}

// y = exp(x * 0.5 + bias) in bf16; s[p] = reduce over y's row p, from the FP32 values before y's rounding. Kernel
// parameters: bias 1 = the [P, 1] tile b, 2 = the immediate 0.125; reduce 1 = add, 2 = max.
const tsr::Registration activationReduceKernel{{
    .name = "test_isa_activation_reduce",
    .summary = "tsr::isa::activation_reduce: exp with a bias tile or immediate, reduced with add or max",
    .params = {{"P", 32}, {"N", 40}},
    .kernelParams = {{"bias", 1}, {"reduce", 1}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{
              tsr::input("x", {p["P"], p["N"]}, tsr::f32), tsr::input("b", {p["P"], 1}, tsr::f32),
              tsr::output("y", {p["P"], p["N"]}, tsr::bf16), tsr::output("s", {p["P"], 1}, tsr::f32)};
        },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm b, tsr::Hbm y, tsr::Hbm s) {
      const int64_t P = x.dim(0), N = x.dim(1);
      const isa::AluOp reduce = p["reduce"] == 1 ? tsr::op::add : tsr::op::maximum;
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile result = tsr::ndarray<tsr::bf16>({P, N});
      tsr::Tile reduced = tsr::ndarray<tsr::f32>({P, 1});
      if (p["bias"] == 1)
        tsr::isa::activation_reduce(result, tsr::act::exp, loaded, reduce, reduced, tsr::load(b.tile(0, 0, {P, 1})),
                                    0.5f);
      else
        tsr::isa::activation_reduce(result, tsr::act::exp, loaded, reduce, reduced, kImmediateBias, 0.5f);
      tsr::store(y.tile(0, 0, {P, N}), result);
      tsr::store(s.tile(0, 0, {P, 1}), reduced);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            const double bias = p["bias"] == 1 ? in[1][r] : kImmediateBias;
            double sum = 0, largest = -INFINITY;
            for (int64_t c = 0; c < N; ++c) {
              const double v = std::exp(in[0][r * N + c] * 0.5 + bias);
              out[0][r * N + c] = static_cast<float>(v);
              sum += v;
              largest = std::max(largest, v);
            }
            out[1][r] = static_cast<float>(p["reduce"] == 1 ? sum : largest);
          }
        },
}};

TEST(IsaActivation, ActivationReduceSumsWithABiasTileOrImmediate) {
  for (int64_t bias : {1, 2})
    for (const char *target : {"trn1", "trn2", "trn3"}) {
      if (bias == 2 && std::string(target) == "trn1") continue; // an immediate bias is NeuronCore-v3's (below)
      driver::RunReport r = driver::runKernel(
          {.kernel = "test_isa_activation_reduce", .target = target, .kernelParams = {{"bias", bias}}});
      EXPECT_TRUE(r.ok) << "bias " << bias << " on " << target << "\n" << driver::toText(r);
      EXPECT_EQ(r.reference, "reference");
    }
  tessera::Error e = tsr::dsltest::errorOf([] {
    (void)driver::runKernel({.kernel = "test_isa_activation_reduce", .target = "trn1", .kernelParams = {{"bias", 2}}});
  });
  EXPECT_NE(std::string(e.what()).find("a bias on NeuronCore-v2 (trn1) must be a [P, 1] tile"), std::string::npos)
      << e.what();
}

TEST(IsaActivation, ActivationReduceOnlySumsAndNamesTheLine) {
  // The scalar engine's reduction registers only sum (NKI 2.33): max is refused on every generation, at the
  // kernel's line, when the kernel is traced.
  for (const char *target : {"trn1", "trn2", "trn3"}) {
    tessera::Error e = tsr::dsltest::errorOf([&] {
      (void)driver::runKernel(
          {.kernel = "test_isa_activation_reduce", .target = target, .kernelParams = {{"reduce", 2}}});
    });
    EXPECT_NE(std::string(e.what()).find("reduce_op must be add, not max"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("IsaActivationTest.cpp"), std::string::npos) << e.what();
  }
}

TEST(IsaActivation, MisuseIsReportedAtTheKernelLine) {
  int line = 0;
  auto wideReduceRes = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    tsr::Tile res = tsr::ndarray<tsr::f32>({64, 2});
    line = __LINE__ + 1;
    tsr::isa::activation_reduce(d, tsr::act::exp, a, tsr::op::add, res);
  });
  tessera::Error e = traceError(wideReduceRes);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("tsr::isa::activation_reduce: reduce_res must be a [64, 1] tile"),
            std::string::npos)
      << e.what();

  auto shapeMismatch = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 16});
    line = __LINE__ + 1;
    tsr::isa::activation(d, tsr::act::tanh, a, 0.5f);
  });
  e = traceError(shapeMismatch);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("tsr::isa::activation: dst is [64, 16] but data is [64, 32]"),
            std::string::npos)
      << e.what();

  auto fromHbm = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    tsr::Tile res = tsr::ndarray<tsr::f32>({64, 1});
    line = __LINE__ + 1;
    tsr::isa::activation_reduce(d, tsr::act::exp, x, tsr::op::add, res, 0.25f);
  });
  e = traceError(fromHbm);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("activation_reduce"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("HBM"), std::string::npos) << e.what();
}

} // namespace

// y = exp(x * s[p]), z = exp(x * s[p] + 0.125): the scale a [P, 1] tile (nisa.activation(..., scale=tile), the
// Mamba tutorial's exp(delta * A)), one instruction each. With bias=1 z's bias is an immediate (the float-bias form
// takes a scale tile too); NeuronCore-v2 takes only a [P, 1] bias tile, so bias=2 gives z a bias tile instead.
namespace {

const tsr::Registration activationScaleTileKernel{{
    .name = "test_isa_activation_scale_tile",
    .summary = "isa::activation with a [P, 1] tile as its scale",
    .params = {{"N", 64}},
    .kernelParams = {{"bias", 1}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {128, p["N"]}, tsr::f32),
                                              tsr::input("s", {128, 1}, tsr::f32),
                                              tsr::output("y", {128, p["N"]}, tsr::f32),
                                              tsr::output("z", {128, p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm s, tsr::Hbm y, tsr::Hbm z) {
      tsr::Tile xt = tsr::load(x.tile(0, 0, {128, x.dim(1)}));
      tsr::Tile st = tsr::load(s.tile(0, 0, {128, 1}));
      tsr::Tile yt = tsr::ndarray<tsr::f32>({128, x.dim(1)}), zt = tsr::ndarray<tsr::f32>({128, x.dim(1)});
      tsr::isa::activation(yt, tsr::act::exp, xt, std::nullopt, st);
      if (p["bias"] == 1)
        tsr::isa::activation(zt, tsr::act::exp, xt, kImmediateBias, st);
      else
        tsr::isa::activation(zt, tsr::act::exp, xt, tsr::full(tsr::f32, {128, 1}, kImmediateBias), st);
      tsr::store(y.tile(0, 0, {128, x.dim(1)}), yt);
      tsr::store(z.tile(0, 0, {128, x.dim(1)}), zt);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t n = p["N"];
          for (int64_t r = 0; r < 128; ++r)
            for (int64_t c = 0; c < n; ++c) {
              const double v = double(in[0][r * n + c]) * in[1][r];
              out[0][r * n + c] = static_cast<float>(std::exp(v));
              out[1][r * n + c] = static_cast<float>(std::exp(v + kImmediateBias));
            }
        },
}};

} // namespace

TEST(IsaActivation, AScaleTileScalesEachPartition) {
  for (const auto &[target, bias] : {std::pair{"trn1", 2}, {"trn2", 1}, {"trn2", 2}}) {
    const driver::RunReport r = driver::runKernel(
        {.kernel = "test_isa_activation_scale_tile", .target = target, .kernelParams = {{"bias", bias}}});
    EXPECT_TRUE(r.ok) << target << " bias=" << bias << "\n" << driver::toText(r);
    EXPECT_EQ(r.instructions, bias == 1 ? 6u : 7u)
        << target << ": two loads, two activations, two stores (and the bias tile's memset)";
  }
  int line = 0;
  auto wideScale = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::activation(d, tsr::act::exp, a, std::nullopt, a);
  });
  tessera::Error e = traceError(wideScale);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("scale"), std::string::npos) << e.what();
}
