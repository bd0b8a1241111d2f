/// \file
/// Kernel parameters (`--param`): declared with defaults beside the shape parameters, resolved with overrides,
/// read by the body at trace time, and rejected with a message naming the kernel's parameters when unknown or
/// not positive. Scalar parameters (real numbers: a scale, a 0/1 flag) likewise, rejected when not finite.

#include "DslTesting.h"

#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <limits>
#include <variant>

namespace tsr {
namespace {

using dsltest::errorOf;

/// A kernel with shape parameter N and kernel parameter `tiles`: it loads the first `tiles` 128-row tiles of x,
/// in a loop of that many iterations.
KernelInfo tiled() {
  KernelInfo k;
  k.name = "tiles";
  k.params = {{"N", 1024}};
  k.kernelParams = {{"tiles", 2}, {"unroll", 1}};
  k.signature = [](const Params &p) {
    require(p["tiles"] * 128 <= p["N"], "tiles: more tiles than x has rows");
    return std::vector<TensorSpec>{input("x", {p["N"], 64}, f32)};
  };
  k.body = body([](const Params &p, Hbm x) {
    for (auto i : affine_range(p["tiles"])) (void)load(x.tile(i, 0, {128, 64}));
  });
  return k;
}

int64_t firstLoopTrips(const graph::KernelGraph &g) {
  for (const graph::Stmt &s : g.body.stmts)
    if (auto *loop = std::get_if<graph::Loop>(&s)) return loop->tripCount;
  return -1;
}

TEST(KernelParams, DefaultsAndOverridesReachTheBody) {
  KernelInfo k = tiled();
  Params defaults = k.resolve({});
  EXPECT_EQ(defaults["tiles"], 2);
  EXPECT_EQ(defaults["N"], 1024);
  EXPECT_EQ(firstLoopTrips(trace(k, defaults)), 2);

  Params set = k.resolve({{"N", 512}}, {{"tiles", 4}});
  EXPECT_EQ(set["tiles"], 4);
  EXPECT_EQ(set["unroll"], 1);
  EXPECT_EQ(firstLoopTrips(trace(k, set)), 4);
}

TEST(KernelParams, ShapeAndKernelValuesAreKeptApart) {
  Params p = tiled().resolve({{"N", 512}}, {{"unroll", 3}});
  EXPECT_EQ(p.str(), "N=512");
  EXPECT_EQ(p.kernelStr(), "tiles=2,unroll=3");
  EXPECT_EQ(p.values().size(), 1u);
  EXPECT_EQ(p.kernelValues().size(), 2u);
  tessera::Error e = errorOf([&] { (void)p["K"]; });
  EXPECT_EQ(e.message(), "parameter 'K' is not defined (have: N=512,tiles=2,unroll=3)");
}

TEST(KernelParams, UnknownNameIsRejectedNamingTheKernelsParameters) {
  KernelInfo k = tiled();
  tessera::Error e = errorOf([&] { (void)k.resolve({}, {{"tile", 3}}); });
  EXPECT_EQ(e.message(), "kernel 'tiles' has no kernel parameter 'tile' (its kernel parameters: tiles=2, unroll=1)");
  EXPECT_EQ(e.hint(), "");

  // A shape parameter given as a kernel parameter, and the other way round, say which flag to use.
  e = errorOf([&] { (void)k.resolve({}, {{"N", 3}}); });
  EXPECT_EQ(e.hint(), "'N' is a shape parameter: set it with --shape");
  e = errorOf([&] { (void)k.resolve({{"tiles", 3}}); });
  EXPECT_EQ(e.message(), "kernel 'tiles' has no shape parameter 'tiles' (it has: N)");
  EXPECT_EQ(e.hint(), "'tiles' is a kernel parameter: set it with --param");

  KernelInfo none;
  none.name = "plain";
  e = errorOf([&] { (void)none.resolve({}, {{"bm", 1}}); });
  EXPECT_EQ(e.message(), "kernel 'plain' has no kernel parameter 'bm' (its kernel parameters: none)");
}

TEST(KernelParams, NonPositiveValueIsRejected) {
  KernelInfo k = tiled();
  tessera::Error e = errorOf([&] { (void)k.resolve({}, {{"tiles", 0}}); });
  EXPECT_EQ(e.message(), "kernel parameter tiles=0 must be positive (kernel 'tiles' has: tiles=2, unroll=1)");
  e = errorOf([&] { (void)k.resolve({}, {{"unroll", -4}}); });
  EXPECT_EQ(e.message(), "kernel parameter unroll=-4 must be positive (kernel 'tiles' has: tiles=2, unroll=1)");
}

TEST(KernelParams, TheSignatureSeesKernelParameters) {
  KernelInfo k = tiled();
  EXPECT_NO_THROW((void)k.signature(k.resolve({{"N", 512}}, {{"tiles", 4}})));
  tessera::Error e = errorOf([&] { (void)k.signature(k.resolve({{"N", 512}}, {{"tiles", 5}})); });
  EXPECT_EQ(e.message(), "tiles: more tiles than x has rows");
}

TEST(KernelParams, ANameCannotBeBothShapeAndKernelParameter) {
  KernelInfo k;
  k.name = "ambiguous_params_test";
  k.params = {{"M", 128}};
  k.kernelParams = {{"M", 2}};
  tessera::Error e = errorOf([&] { Registration r{k}; });
  EXPECT_EQ(e.message(),
            "kernel 'ambiguous_params_test' declares 'M' both as a shape parameter and as a kernel parameter");
  EXPECT_EQ(Registry::instance().find("ambiguous_params_test"), nullptr);
}

/// A kernel with a scalar parameter `scale` (default 0.5) beside its kernel parameter: it fills a tile with the
/// scale, so the traced graph shows the value the body read.
KernelInfo scaled() {
  KernelInfo k;
  k.name = "scaled";
  k.params = {{"N", 128}};
  k.kernelParams = {{"tiles", 1}};
  k.scalarParams = {{"scale", 0.5}, {"causal", 0.0}};
  k.signature = [](const Params &p) { return std::vector<TensorSpec>{output("y", {128, p["N"]}, f32)}; };
  k.body = body([](const Params &p, Hbm y) {
    store(y.tile(0, 0, {128, y.dim(1)}), full(f32, {128, y.dim(1)}, static_cast<float>(p.scalar("scale"))));
  });
  return k;
}

/// The value of the first memset of `g` (the body's fill).
float firstFill(const graph::KernelGraph &g) {
  for (const graph::Stmt &s : g.body.stmts)
    if (auto *op = std::get_if<graph::Op>(&s); op && op->kind == graph::OpKind::Memset) return op->value;
  ADD_FAILURE() << "no memset";
  return 0;
}

TEST(ScalarParams, DefaultsAndOverridesReachTheBody) {
  KernelInfo k = scaled();
  Params defaults = k.resolve({});
  EXPECT_EQ(defaults.scalar("scale"), 0.5);
  EXPECT_EQ(firstFill(trace(k, defaults)), 0.5f);
  Params set = k.resolve({}, {}, {{"scale", -0.125}});
  EXPECT_EQ(set.scalar("scale"), -0.125);
  EXPECT_EQ(set.scalar("causal"), 0.0);
  EXPECT_EQ(firstFill(trace(k, set)), -0.125f);
}

TEST(ScalarParams, ShownWithTheKernelParametersAndReadOnlyAsScalars) {
  KernelInfo k = scaled();
  Params p = k.resolve({}, {{"tiles", 2}}, {{"scale", 0.25}});
  EXPECT_EQ(p.kernelStr(), "causal=0,scale=0.25,tiles=2");
  EXPECT_EQ(k.describeKernelParams(), "tiles=1, scale=0.5, causal=0");
  EXPECT_TRUE(k.isScalarParam("scale"));
  EXPECT_FALSE(k.isScalarParam("tiles"));
  tessera::Error e = errorOf([&] { (void)p["scale"]; });
  EXPECT_EQ(e.message(), "parameter 'scale' is a scalar parameter: read it with p.scalar(\"scale\")");
  e = errorOf([&] { (void)p.scalar("tiles"); });
  EXPECT_EQ(e.message(), "parameter 'tiles' is an integer parameter: read it with p[\"tiles\"]");
  e = errorOf([&] { (void)p.scalar("eps"); });
  EXPECT_EQ(e.message(), "scalar parameter 'eps' is not defined (have: causal=0,scale=0.25)");
}

TEST(ScalarParams, UnknownOrNotFiniteIsRejected) {
  KernelInfo k = scaled();
  tessera::Error e = errorOf([&] { (void)k.resolve({}, {}, {{"scal", 1.0}}); });
  EXPECT_EQ(e.message(),
            "kernel 'scaled' has no scalar parameter 'scal' (its kernel parameters: tiles=1, scale=0.5, causal=0)");
  e = errorOf([&] { (void)k.resolve({}, {}, {{"scale", std::numeric_limits<double>::infinity()}}); });
  EXPECT_EQ(e.message(),
            "scalar parameter scale=inf must be a finite number (kernel 'scaled' has: tiles=1, scale=0.5, causal=0)");
}

TEST(ScalarParams, ANameCannotBeBothScalarAndShapeOrKernelParameter) {
  KernelInfo k = scaled();
  k.name = "ambiguous_scalar_test";
  k.scalarParams = {{"tiles", 1.0}};
  tessera::Error e = errorOf([&] { Registration r{k}; });
  EXPECT_EQ(e.message(),
            "kernel 'ambiguous_scalar_test' declares 'tiles' both as a scalar parameter and as a kernel parameter");
  k.scalarParams = {{"N", 1.0}};
  e = errorOf([&] { Registration r{k}; });
  EXPECT_EQ(e.message(),
            "kernel 'ambiguous_scalar_test' declares 'N' both as a scalar parameter and as a shape parameter");
  EXPECT_EQ(Registry::instance().find("ambiguous_scalar_test"), nullptr);
}

} // namespace
} // namespace tsr
