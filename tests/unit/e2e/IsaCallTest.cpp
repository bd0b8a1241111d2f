// tsr::isa calls through the generic path: the DSL checks each call against its instruction's definition at the
// kernel's line, the compiler carries it as tile.inst and nc.inst (exactly one instruction, on the engine the
// kernel chose), and the simulator runs the definition's semantics. The golden model says plainly that it does
// not implement them; the kernel's own reference checks the numbers.

#include "../dsl/DslTesting.h"

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/NumberFormats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace tessera;
using tsr::dsltest::expectAt;
using tsr::dsltest::kernelOf;
using tsr::dsltest::traceError;

// y[p, :] = exp(x[p, :] * 0.5 + b[p]) - x[p, :] in bf16; s[p] = -max_f y[p, f]; x copied through GpSimd first.
const tsr::Registration isaCallKernel{{
    .name = "test_isa_calls",
    .summary = "tensor_copy, activation with a bias tile, tensor_tensor and tensor_reduce as tsr::isa calls",
    .params = {{"P", 64}, {"N", 96}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{
              tsr::input("x", {p["P"], p["N"]}, tsr::f32), tsr::input("b", {p["P"], 1}, tsr::f32),
              tsr::output("y", {p["P"], p["N"]}, tsr::bf16), tsr::output("s", {p["P"], 1}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm b, tsr::Hbm y, tsr::Hbm s) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile bias = tsr::load(b.tile(0, 0, {P, 1}));
      tsr::Tile copied = tsr::ndarray<tsr::f32>({P, N});
      tsr::isa::tensor_copy(copied, loaded, tsr::isa::gpsimd_engine);
      tsr::Tile e = tsr::ndarray<tsr::f32>({P, N});
      tsr::isa::activation(e, tsr::act::exp, copied, bias, 0.5f);
      tsr::Tile d = tsr::ndarray<tsr::bf16>({P, N});
      tsr::isa::tensor_tensor(d, e, copied, tsr::op::subtract);
      tsr::Tile m = tsr::ndarray<tsr::f32>({P, 1});
      tsr::isa::tensor_reduce(m, tsr::op::maximum, d, /*negate=*/true);
      tsr::store(y.tile(0, 0, {P, N}), d);
      tsr::store(s.tile(0, 0, {P, 1}), m);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            float largest = -INFINITY;
            for (int64_t c = 0; c < N; ++c) {
              const float x = in[0][r * N + c];
              const float y = std::exp(x * 0.5f + in[1][r]) - x;
              out[0][r * N + c] = y;
              largest = std::max(largest, isa::roundTo(isa::DType::BF16, y)); // the reduction reads bf16 d
            }
            out[1][r] = -largest;
          }
        },
}};

// Regression: an instruction reading a zero-filled PSUM tile in place (dst == a source) must see the zeros; the
// lowering once treated the tile only as written, so the fill was never emitted and the read was uninitialised.
const tsr::Registration inPlaceOnZeros{{
    .name = "test_isa_in_place_on_zeros",
    .summary = "acc = psum zeros; acc = acc + x in place with tsr::isa::tensor_tensor",
    .params = {{"P", 32}, {"N", 64}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["N"]}, tsr::f32),
                                              tsr::output("y", {p["P"], p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::Tile acc = tsr::psum<tsr::f32>({P, N});
      tsr::Tile t = tsr::load(x.tile(0, 0, {P, N}));
      tsr::isa::tensor_tensor(acc, acc, t, tsr::op::add);
      tsr::store(y.tile(0, 0, {P, N}), tsr::copy<tsr::f32>(acc));
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) { out[0] = in[0]; },
}};

TEST(IsaCalls, InPlaceOnAZeroFilledTileReadsTheZeros) {
  driver::RunReport r = driver::runKernel({.kernel = "test_isa_in_place_on_zeros", .target = "trn2"});
  EXPECT_TRUE(r.ok) << driver::toText(r);
}

TEST(IsaCalls, RunThroughTheGenericPathAndMatchTheReference) {
  for (const char *target : {"trn1", "trn2"}) {
    driver::RunReport r = driver::runKernel({.kernel = "test_isa_calls", .target = target});
    EXPECT_TRUE(r.ok) << target << "\n" << driver::toText(r);
    EXPECT_EQ(r.reference, "reference") << target;
    EXPECT_NE(r.goldenUnavailable.find("tsr::isa::tensor_copy"), std::string::npos) << r.goldenUnavailable;
  }
}

TEST(IsaCalls, BecomeOneNcInstEachOnTheChosenEngine) {
  tsr::Params params;
  tsr::graph::KernelGraph graph = driver::traceKernel(driver::findKernel("test_isa_calls"), {}, params);
  compiler::CompileOptions options;
  options.keepTileIr = options.keepNcIr = true;
  compiler::CompileResult c = compiler::compile(graph, isa::Target::find("trn2"), options);
  EXPECT_NE(c.tileIr.find("tile.inst \"tensor_copy\""), std::string::npos) << c.tileIr;
  EXPECT_NE(c.tileIr.find("engine = \"gpsimd\""), std::string::npos) << c.tileIr;
  EXPECT_NE(c.ncIr.find("nc.inst \"tensor_reduce\""), std::string::npos) << c.ncIr;
  EXPECT_NE(c.ncIr.find("negate"), std::string::npos) << c.ncIr;
  size_t gpsimd = 0, scalar = 0;
  for (const isa::Stream &stream : c.program.streams)
    for (const isa::Instruction &inst : stream.instructions) {
      if (inst.op == isa::Opcode::TensorCopy) gpsimd += stream.engine == isa::Engine::GpSimd;
      if (inst.op == isa::Opcode::Activation) scalar += stream.engine == isa::Engine::Scalar && inst.scale == 0.5f;
    }
  EXPECT_EQ(gpsimd, 1u);
  EXPECT_EQ(scalar, 1u);
}

TEST(IsaCalls, MisuseIsReportedAtTheKernelLine) {
  int line = 0;
  auto mismatch = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 16});
    line = __LINE__ + 1;
    tsr::isa::tensor_tensor(d, a, a, tsr::op::add);
  });
  tessera::Error e = traceError(mismatch);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("tsr::isa::tensor_tensor: dst is [64, 16] but data1 is [64, 32]"),
            std::string::npos)
      << e.what();

  auto wrongEngine = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_copy(d, a, tsr::isa::tensor_engine);
  });
  e = traceError(wrongEngine);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("cannot run on the tensor engine"), std::string::npos) << e.what();

  auto badBias = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::activation(d, tsr::act::gelu, a, a);
  });
  e = traceError(badBias);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("bias must be a [64, 1] tile"), std::string::npos) << e.what();

  auto psumOnGpSimd = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray(tsr::f32, {64, 32}, isa::MemSpace::Psum);
    line = __LINE__ + 1;
    tsr::isa::tensor_copy(d, a, tsr::isa::gpsimd_engine);
  });
  e = traceError(psumOnGpSimd);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("PSUM, which the GpSimd engine cannot reach"), std::string::npos) << e.what();
}

} // namespace
