// The language-level activation functions (tsr::exp, tsr::log, ... as NKI's nl.exp, nl.log, ...): each records
// an Activation op, so the golden model (the kernel JIT-compiled for the CPU) checks it as well as the kernel's
// plain C++ reference, on trn1 and trn2.

#include "../dsl/DslTesting.h"

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <variant>
#include <vector>

namespace {

using namespace tessera;
using tsr::dsltest::expectAt;
using tsr::dsltest::kernelOf;
using tsr::dsltest::traceError;

/// One language-level function: its name, the call, and its definition in double.
struct LanguageOp {
  const char *name;
  tsr::Tile (*call)(const tsr::Operand &, tsr::Loc);
  double (*reference)(double);
  bool positiveDomain; ///< defined (and finite) only for positive inputs: the kernel feeds it exp(x)
};

double sigmoidOf(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const LanguageOp kOps[] = {
    {"exp", tsr::exp, [](double x) { return std::exp(x); }, false},
    {"log", tsr::log, [](double x) { return std::log(x); }, true},
    {"tanh", tsr::tanh, [](double x) { return std::tanh(x); }, false},
    {"gelu", tsr::gelu, [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)); }, false},
    {"gelu_apprx_tanh", tsr::gelu_apprx_tanh,
     [](double x) {
       return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
     },
     false},
    {"silu", tsr::silu, [](double x) { return x * sigmoidOf(x); }, false},
    {"sigmoid", tsr::sigmoid, sigmoidOf, false},
    {"relu", tsr::relu, [](double x) { return x > 0 ? x : 0.0; }, false},
    {"rsqrt", tsr::rsqrt, [](double x) { return 1.0 / std::sqrt(x); }, true},
    {"square", tsr::square, [](double x) { return x * x; }, false},
    {"sqrt", tsr::sqrt, [](double x) { return std::sqrt(x); }, true},
    {"reciprocal", tsr::reciprocal, [](double x) { return 1.0 / x; }, true},
};
constexpr int64_t kOpCount = static_cast<int64_t>(std::size(kOps));

const LanguageOp &opOf(const tsr::Params &p) { return kOps[p["op"] - 1]; }

// y = f(x), or f(exp(x)) for functions defined only for positive inputs; f given by kernel parameter op (1 = exp,
// in kOps's order).
const tsr::Registration languageOpsKernel{{
    .name = "test_tsr_activations",
    .summary = "tsr::exp, tsr::log, ... tsr::reciprocal, chosen by kernel parameter op (1 to 12)",
    .params = {{"P", 32}, {"N", 40}},
    .kernelParams = {{"op", 1}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["N"]}, tsr::f32),
                                              tsr::output("y", {p["P"], p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm y) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::require(p["op"] <= kOpCount, "op is 1 to 12");
      const LanguageOp &op = opOf(p);
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile input = op.positiveDomain ? tsr::exp(loaded) : loaded;
      tsr::store(y.tile(0, 0, {P, N}), op.call(input, tsr::Loc::current()));
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const LanguageOp &op = opOf(p);
          for (size_t i = 0; i < in[0].size(); ++i) {
            const double x = in[0][i];
            out[0][i] = static_cast<float>(op.reference(op.positiveDomain ? std::exp(x) : x));
          }
        },
}};

TEST(ActivationOps, EachMatchesTheGoldenModelAndTheReference) {
  for (int64_t op = 1; op <= kOpCount; ++op)
    for (const char *target : {"trn1", "trn2"}) {
      driver::RunReport r =
          driver::runKernel({.kernel = "test_tsr_activations", .target = target, .kernelParams = {{"op", op}}});
      EXPECT_TRUE(r.ok) << "tsr::" << kOps[op - 1].name << " on " << target << "\n" << driver::toText(r);
      EXPECT_EQ(r.reference, "golden+reference") << kOps[op - 1].name << ": " << r.goldenUnavailable;
    }
}

// y = exp(x * s[row] + b[row]) with its row sums added back in, s and b [P, 1] tiles (NKI's activation with a
// vector scale and bias): one activation on a NeuronCore, a multiply, an add and the function on a TPU.
const tsr::Registration scaleTileKernel{{
    .name = "test_tsr_activation_scales",
    .summary = "tsr::activation with a [P, 1] tile of scales, a bias tile and row sums",
    .params = {{"P", 64}, {"N", 96}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{
              tsr::input("x", {p["P"], p["N"]}, tsr::f32), tsr::input("s", {p["P"], 1}, tsr::f32),
              tsr::input("b", {p["P"], 1}, tsr::f32), tsr::output("y", {p["P"], p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm s, tsr::Hbm b, tsr::Hbm y) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::Tile sums = tsr::ndarray<tsr::f32>({P, 1});
      tsr::Tile e = tsr::activation(tsr::act::exp, tsr::load(x.tile(0, 0, {P, N})),
                                    {.bias = tsr::load(b.tile(0, 0, {P, 1})), .scale = tsr::load(s.tile(0, 0, {P, 1})),
                                     .sum = sums});
      tsr::store(y.tile(0, 0, {P, N}), e + sums);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            double sum = 0;
            std::vector<double> e(N);
            for (int64_t c = 0; c < N; ++c) sum += e[c] = std::exp(double(in[0][r * N + c]) * in[1][r] + in[2][r]);
            for (int64_t c = 0; c < N; ++c) out[0][r * N + c] = static_cast<float>(e[c] + sum);
          }
        },
}};

TEST(ActivationOps, ATileOfScalesMatchesTheGoldenModelAndTheReference) {
  for (const char *target : {"trn1", "trn2", "tpu-v5e"}) {
    driver::RunReport r = driver::runKernel({.kernel = "test_tsr_activation_scales", .target = target});
    EXPECT_TRUE(r.ok) << target << "\n" << driver::toText(r);
    EXPECT_EQ(r.reference, "golden+reference") << target << ": " << r.goldenUnavailable;
  }
}

TEST(ActivationOps, RecordTheirOwnFunction) {
  // Each call is one activation of its own function on the scalar engine: a swapped table entry would fail here.
  for (int64_t op = 1; op <= kOpCount; ++op) {
    tsr::Params params;
    tsr::graph::KernelGraph graph =
        driver::traceKernel(driver::findKernel("test_tsr_activations"), {}, params, {{"op", op}});
    size_t found = 0;
    for (const tsr::graph::Stmt &stmt : graph.body.stmts) // the kernel has no loops: every op is at the top
      if (const auto *o = std::get_if<tsr::graph::Op>(&stmt))
        found += o->kind == tsr::graph::OpKind::Activation && isa::name(o->func) == kOps[op - 1].name;
    EXPECT_EQ(found, 1u) << kOps[op - 1].name;
  }
}

TEST(ActivationOps, AnHbmOperandIsReportedAtTheKernelLine) {
  int line = 0;
  auto fromHbm = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    line = __LINE__ + 1;
    (void)tsr::gelu(x);
  });
  tessera::Error e = traceError(fromHbm);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("gelu"), std::string::npos) << e.what();
}

} // namespace
