/// \file
/// Kernel parameters (`--param`): declared with defaults beside the shape parameters, resolved with overrides,
/// read by the body at trace time, and rejected with a message naming the kernel's parameters when unknown or
/// not positive.

#include "DslTesting.h"

#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

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

} // namespace
} // namespace tsr
