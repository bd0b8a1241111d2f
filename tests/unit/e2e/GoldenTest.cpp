// The golden model (compiler/lib/Golden/): every library kernel checked three ways at its default shape on
// trn2 (simulator vs golden, simulator vs hand-written reference, golden vs reference); a kernel without a
// reference checked by the golden model alone; both checks needed for a verdict of ok; and the golden model's
// number conversions checked bit for bit against isa/'s (which match ml_dtypes), fp8 included.

#include "tessera/Driver.h"
#include "tessera/compiler/Golden.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/NumberFormats.h"

#include "Golden/GoldenRuntime.h"

#include "../dsl/DslTesting.h"
#include "ScopedEnvironment.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace {

using tessera::compiler::runGolden;
using tessera::driver::RunReport;
using tessera::driver::RunRequest;
using tessera::driver::runKernel;
using tessera::isa::DType;

/// The library's working kernels: not the ones tests register (test_*), nor the deliberately broken examples
/// (bug_*, kernels/examples/), which the simulator stops with a kernel-bug report (BugExamplesTest.cpp), nor the NKI
/// tutorial ports (kernels/nki-tutorials/), which call tsr::isa as their tutorials call nki.isa and so have no
/// golden model; tests/nki-tutorials.cmake runs them, against the golden model where it has their ops.
bool isLibraryKernel(const tsr::KernelInfo &k) {
  return !k.name.starts_with("test_") && !k.name.starts_with("bug_") &&
         k.loc.file.find("/kernels/nki-tutorials/") == std::string::npos;
}

// ---- The library, through the driver ----------------------------------------------------------------------

TEST(GoldenLibrary, SimulatorMatchesGoldenAndReference) {
  int kernels = 0;
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) {
    if (!isLibraryKernel(*k)) continue;
    SCOPED_TRACE(k->name);
    ++kernels;
    RunReport r = runKernel({.kernel = k->name, .target = "trn2", .seed = 11});
    EXPECT_EQ(r.reference, k->reference ? "golden+reference" : "golden");
    EXPECT_TRUE(r.goldenUnavailable.empty()) << r.goldenUnavailable;
    ASSERT_FALSE(r.checks.empty());
    for (const auto &c : r.checks) {
      ASSERT_TRUE(c.vsGolden.has_value()) << c.name;
      EXPECT_TRUE(c.vsGolden->ok) << c.name << ": max rel err " << c.vsGolden->maxRelErr;
      EXPECT_EQ(c.vsReference.has_value(), static_cast<bool>(k->reference)) << c.name;
      if (c.vsReference) EXPECT_TRUE(c.vsReference->ok) << c.name << ": max rel err " << c.vsReference->maxRelErr;
    }
    EXPECT_TRUE(r.ok);
  }
  EXPECT_GE(kernels, 4); // add, matmul, matmul_tiled, softmax at least
}

TEST(GoldenLibrary, GoldenMatchesReference) {
  const tessera::isa::Target trn2 = tessera::isa::Target::find("trn2");
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) {
    if (!isLibraryKernel(*k) || !k->reference) continue;
    SCOPED_TRACE(k->name);
    tsr::Params params = k->resolve({});
    tsr::graph::KernelGraph graph = tsr::trace(*k, params);
    tessera::isa::Program program = tessera::compiler::compile(graph, trn2).program; // for the tensor table
    tessera::sim::HbmImage golden = tessera::driver::makeInputs(program, 5);
    std::vector<tsr::HostTensor> inputs, expected;
    for (size_t i = 0; i < program.tensors.size(); ++i) {
      if (program.tensors[i].isOutput) expected.emplace_back(program.tensors[i].elements());
      else inputs.push_back(tessera::driver::decodeTensor(program, golden, i));
    }
    runGolden(graph, golden);
    k->reference(params, inputs, expected);
    for (size_t i = 0, out = 0; i < program.tensors.size(); ++i) {
      const tessera::isa::TensorInfo &t = program.tensors[i];
      if (!t.isOutput) continue;
      auto check = tessera::driver::compare(t.name, t.dtype, tessera::driver::decodeTensor(program, golden, i),
                                            expected[out++]);
      EXPECT_TRUE(check.ok) << t.name << ": max rel err " << check.maxRelErr << " > " << check.tolerance;
    }
  }
}

// The simulator and the golden model follow the same numerics (f32 inside, k-ordered sums without fused
// multiply-adds, round to nearest even): for the library they agree to the bit, but where a target has no
// instruction for a language op. A NeuronCore divides by multiplying with a reciprocal (it has no divide), one
// more FP32 rounding: softmax agrees to the bit on a TPU, whose VPU divides, and within two FP32 roundings on trn2.
TEST(GoldenLibrary, BitExactWithTheSimulator) {
  for (auto [kernel, target] : {std::pair{"add", "trn2"}, std::pair{"matmul", "trn2"}, std::pair{"softmax", "tpu-v5e"}}) {
    SCOPED_TRACE(kernel);
    RunReport r = runKernel({.kernel = kernel, .target = target, .seed = 2});
    for (const auto &c : r.checks) {
      ASSERT_TRUE(c.vsGolden);
      EXPECT_EQ(c.vsGolden->maxAbsErr, 0.0) << c.name;
    }
  }
  RunReport softmax = runKernel({.kernel = "softmax", .target = "trn2", .seed = 2});
  for (const auto &c : softmax.checks) {
    ASSERT_TRUE(c.vsGolden);
    EXPECT_GT(c.vsGolden->maxAbsErr, 0.0) << c.name << ": the reciprocal's rounding shows";
    EXPECT_LE(c.vsGolden->maxRelErr, 2 * 0x1p-23) << c.name;
  }
}

// ---- Kernels with and without references ------------------------------------------------------------------

// No hand-written reference: bf16 and f16 tiles, a broadcast, row reductions, exp and a memset; the golden model
// alone checks the simulator.
const tsr::Registration goldenOnly{{
    .name = "test_golden_only",
    .summary = "a softmax-like mix of bf16/f16/f32 ops, with no reference",
    .params = {{"C", 384}},
    .signature = [](const tsr::Params &p) {
      return std::vector<tsr::TensorSpec>{tsr::input("x", {256, p["C"]}, tsr::bf16),
                                          tsr::input("y", {256, p["C"]}, tsr::f32),
                                          tsr::output("z", {256, p["C"]}, tsr::f16)};
    },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y, tsr::Hbm z) {
      const int64_t c = x.dim(1);
      for (auto i : tsr::affine_range(2)) {
        tsr::Tile a = tsr::load(x.tile(i, 0, {128, c}));          // bf16
        tsr::Tile b = tsr::load(y.tile(i, 0, {128, c}));          // f32
        tsr::Tile e = tsr::exp(a - tsr::max(a));                  // bf16 arithmetic, [P, 1] broadcast
        tsr::Tile m = tsr::maximum(b, tsr::full(tsr::f32, {128, c}, 0.25f));
        tsr::Tile s = e / tsr::sum(e) + m;                        // f32 row sum of bf16 values
        tsr::store(z.tile(i, 0, {128, c}), tsr::copy<tsr::f16>(s));
      }
    }),
}};

TEST(GoldenVerdict, KernelWithoutReferenceIsCheckedByTheGoldenModel) {
  RunReport r = runKernel({.kernel = "test_golden_only", .target = "trn2", .seed = 4});
  EXPECT_EQ(r.reference, "golden");
  ASSERT_EQ(r.checks.size(), 1u);
  ASSERT_TRUE(r.checks[0].vsGolden);
  EXPECT_FALSE(r.checks[0].vsReference);
  EXPECT_TRUE(r.checks[0].vsGolden->ok) << r.checks[0].vsGolden->maxRelErr;
  EXPECT_EQ(r.checks[0].vsGolden->maxAbsErr, 0.0);
  EXPECT_TRUE(r.ok);

  // Without the golden model there is nothing to check against: simulated, not verified.
  RunReport alone = runKernel({.kernel = "test_golden_only", .target = "trn2", .seed = 4, .golden = false});
  EXPECT_EQ(alone.reference, "none");
  EXPECT_TRUE(alone.checks.empty());
}

// fp8 operands of both formats, an fp8 output: the golden model stores fp8 as bytes and converts with integer
// code; it must agree with the simulator to the bit and with the reference within fp8's tolerance.
const tsr::Registration fp8Matmul{{
    .name = "test_golden_fp8_matmul",
    .summary = "C[128, 512] = A_t^T @ B with fp8 e4m3 A_t, fp8 e5m2 B, fp8 e4m3 C",
    .params = {{"K", 256}},
    .signature = [](const tsr::Params &p) {
      return std::vector<tsr::TensorSpec>{tsr::input("a_t", {p["K"], 128}, tsr::f8e4m3),
                                          tsr::input("b", {p["K"], 512}, tsr::f8e5m2),
                                          tsr::output("c", {128, 512}, tsr::f8e4m3)};
    },
    .body = tsr::body([](tsr::Hbm a_t, tsr::Hbm b, tsr::Hbm c) {
      tsr::Tile acc = tsr::psum<tsr::f32>({128, 512});
      for (auto k : tsr::affine_range(a_t.dim(0) / 128))
        acc += tsr::matmul(tsr::load(a_t.tile(k, 0, {128, 128})), tsr::load(b.tile(k, 0, {128, 512})));
      tsr::store(c.tile(0, 0, {128, 512}), tsr::copy<tsr::f8e4m3>(acc));
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      const int64_t K = p["K"];
      for (int64_t m = 0; m < 128; ++m)
        for (int64_t n = 0; n < 512; ++n) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k) s += double(in[0][k * 128 + m]) * in[1][k * 512 + n];
          out[0][m * 512 + n] = static_cast<float>(s);
        }
    },
}};

TEST(GoldenVerdict, Fp8MatmulAgreesWithSimulatorAndReference) {
  RunReport r = runKernel({.kernel = "test_golden_fp8_matmul", .target = "trn2", .seed = 9});
  EXPECT_EQ(r.reference, "golden+reference");
  ASSERT_EQ(r.checks.size(), 1u);
  ASSERT_TRUE(r.checks[0].vsGolden && r.checks[0].vsReference);
  EXPECT_EQ(r.checks[0].vsGolden->maxAbsErr, 0.0);
  EXPECT_TRUE(r.checks[0].vsReference->ok) << r.checks[0].vsReference->maxRelErr;
  EXPECT_TRUE(r.ok);
}

// A wrong hand-written reference fails the run even though the simulator matches the golden model.
const tsr::Registration wrongReference{{
    .name = "test_golden_wrong_reference",
    .summary = "copies its input, but its reference doubles it",
    .params = {},
    .signature = [](const tsr::Params &) {
      return std::vector<tsr::TensorSpec>{tsr::input("x", {128, 64}, tsr::f32), tsr::output("y", {128, 64}, tsr::f32)};
    },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      tsr::store(y.tile(0, 0, {128, 64}), tsr::load(x.tile(0, 0, {128, 64})));
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      for (size_t i = 0; i < in[0].size(); ++i) out[0][i] = 2 * in[0][i];
    },
}};

TEST(GoldenVerdict, BothChecksMustPass) {
  RunReport r = runKernel({.kernel = "test_golden_wrong_reference", .target = "trn2"});
  ASSERT_EQ(r.checks.size(), 1u);
  const auto &c = r.checks[0];
  ASSERT_TRUE(c.vsGolden && c.vsReference);
  EXPECT_TRUE(c.vsGolden->ok);
  EXPECT_FALSE(c.vsReference->ok);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.maxRelErr, c.vsReference->maxRelErr); // the worst of the two
  EXPECT_FALSE(r.ok);

  // --no-golden: the reference alone (and the same failure).
  RunReport noGolden = runKernel({.kernel = "test_golden_wrong_reference", .target = "trn2", .golden = false});
  EXPECT_EQ(noGolden.reference, "reference");
  ASSERT_EQ(noGolden.checks.size(), 1u);
  EXPECT_FALSE(noGolden.checks[0].vsGolden);
  EXPECT_FALSE(noGolden.ok);
}

// ---- The golden model's numerics, against isa/'s conversions ----------------------------------------------

using tsr::dsltest::kernelOf;

std::vector<std::byte> bytesOf(DType t, const std::vector<float> &values) {
  std::vector<std::byte> bytes(values.size() * tessera::isa::byteSize(t));
  tessera::isa::encode(t, values.data(), bytes.data(), values.size());
  return bytes;
}

std::vector<float> valuesOf(DType t, const std::vector<std::byte> &bytes) {
  std::vector<float> values(bytes.size() / tessera::isa::byteSize(t));
  tessera::isa::decode(t, bytes.data(), values.data(), values.size());
  return values;
}

/// Equal bit patterns, or both NaN (NaN payloads are not part of the DSL's semantics).
bool sameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

/// Values that probe each format: zeros, ties at every scale, subnormals, the largest finite numbers, overflow,
/// infinities, NaN, and random values over a wide range.
std::vector<float> probeValues(size_t n) {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 1.0625f, 1.125f, 1.1875f, 1.5f, 448.0f, 464.0f, 480.0f,
                          57344.0f, 61440.0f, 65504.0f, 65520.0f, 3.0e38f, 1e-3f, 1e-5f, 1.5e-5f, 0.001953125f,
                          0.0029296875f, 0.0009765625f, 1.52587890625e-05f, 2.288818359375e-05f, 1e-40f, 3.4e38f,
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()};
  // Every fp8 value, and the midpoints between neighbours (ties), for both formats.
  for (DType t : {DType::F8E4M3, DType::F8E5M2})
    for (uint32_t bits = 0; bits < 256; ++bits) {
      std::byte lo{uint8_t(bits)}, hi{uint8_t(bits + 1)};
      float a, b;
      tessera::isa::decode(t, &lo, &a, 1);
      tessera::isa::decode(t, &hi, &b, 1);
      v.push_back(a);
      if (std::isfinite(a) && std::isfinite(b) && (bits & 0x7f) != 0x7f) v.push_back(a + (b - a) / 2);
    }
  uint32_t state = 12345;
  while (v.size() < n) {
    state = state * 1664525u + 1013904223u;
    float mantissa = float(state >> 8) / float(1u << 24) * 2 - 1;
    v.push_back(std::ldexp(mantissa, int(state % 48) - 30));
  }
  v.resize(n);
  return v;
}

class GoldenConversions : public testing::TestWithParam<DType> {};

// f32 -> T -> f32 through tiles: the golden model's rounding (bf16: arith-expand's integer code; f16: the CPU;
// fp8: tile-to-linalg's integer code) must equal isa::roundTo bit for bit.
TEST_P(GoldenConversions, RoundTripThroughATileMatchesIsa) {
  const DType t = GetParam();
  tsr::KernelInfo k = kernelOf({tsr::input("x", {128, 64}, tsr::f32), tsr::output("y", {128, 64}, tsr::f32)},
                               [t](tsr::Hbm x, tsr::Hbm y) {
                                 tsr::Tile narrow = tsr::copy(tsr::load(x.tile(0, 0, {128, 64})), t);
                                 tsr::store(y.tile(0, 0, {128, 64}), tsr::copy<tsr::f32>(narrow));
                               });
  std::vector<float> x = probeValues(128 * 64);
  std::vector<std::vector<std::byte>> tensors{bytesOf(DType::F32, x), std::vector<std::byte>(x.size() * 4)};
  runGolden(tsr::trace(k, {}), tensors);
  std::vector<float> y = valuesOf(DType::F32, tensors[1]);
  int mismatches = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float expected = tessera::isa::roundTo(t, x[i]);
    if (!sameFloat(y[i], expected) && ++mismatches <= 5)
      ADD_FAILURE() << "x = " << x[i] << " (0x" << std::hex << std::bit_cast<uint32_t>(x[i]) << "): golden "
                    << y[i] << ", isa " << expected << std::dec;
  }
  EXPECT_EQ(mismatches, 0);
}

// A tensor of type T in HBM (fp8: bytes the golden model reads as i8) decodes like isa::decode, every pattern.
TEST_P(GoldenConversions, TensorsOfTheTypeDecodeLikeIsa) {
  const DType t = GetParam();
  tsr::KernelInfo k = kernelOf({tsr::input("x", {128, 512}, t), tsr::output("y", {128, 512}, tsr::f32)},
                               [](tsr::Hbm x, tsr::Hbm y) {
                                 tsr::Tile wide = tsr::copy<tsr::f32>(tsr::load(x.tile(0, 0, {128, 512})));
                                 tsr::store(y.tile(0, 0, {128, 512}), wide);
                               });
  const size_t n = 128 * 512, size = tessera::isa::byteSize(t);
  std::vector<std::byte> x(n * size);
  for (size_t i = 0; i < n; ++i) { // every bit pattern: n = 65536 elements of 1 or 2 bytes
    const uint16_t pattern = static_cast<uint16_t>(i);
    std::memcpy(&x[i * size], &pattern, size);
  }
  std::vector<std::vector<std::byte>> tensors{x, std::vector<std::byte>(n * 4)};
  runGolden(tsr::trace(k, {}), tensors);
  std::vector<float> y = valuesOf(DType::F32, tensors[1]), expected = valuesOf(t, x);
  int mismatches = 0;
  for (size_t i = 0; i < n; ++i)
    if (!sameFloat(y[i], expected[i]) && ++mismatches <= 5)
      ADD_FAILURE() << "element " << i << ": golden " << y[i] << ", isa " << expected[i];
  EXPECT_EQ(mismatches, 0);
}

// A memset's value is rounded into the tile's type at compile time (APFloat): the same value as isa::roundTo.
TEST_P(GoldenConversions, MemsetRoundsLikeIsa) {
  const DType t = GetParam();
  static const std::vector<float> values = {0.3f, -0.0f, 1.0625f, 448.0f, 460.0f, 464.0f,
                                            500.0f, 1e-9f, 65520.0f, -1e5f, 3.4e38f};
  const int64_t n = static_cast<int64_t>(values.size());
  // Column j of y holds memset(values[j]) read back as f32.
  tsr::KernelInfo k = kernelOf({tsr::output("y", {128, n}, tsr::f32)}, [t, n](tsr::Hbm y) {
    for (int64_t j = 0; j < n; ++j)
      tsr::store(y.tile(0, j, {128, 1}), tsr::copy<tsr::f32>(tsr::full(t, {128, 1}, values[j])));
  });
  std::vector<std::vector<std::byte>> tensors{std::vector<std::byte>(128 * n * 4)};
  runGolden(tsr::trace(k, {}), tensors);
  std::vector<float> y = valuesOf(DType::F32, tensors[0]);
  for (int64_t j = 0; j < n; ++j) {
    float expected = tessera::isa::roundTo(t, values[j]);
    EXPECT_TRUE(sameFloat(y[j], expected)) << values[j] << ": golden " << y[j] << ", isa " << expected;
    EXPECT_TRUE(sameFloat(y[127 * n + j], y[j])) << values[j];
  }
}

INSTANTIATE_TEST_SUITE_P(Types, GoldenConversions,
                         testing::Values(DType::BF16, DType::F16, DType::F8E4M3, DType::F8E5M2),
                         [](const testing::TestParamInfo<DType> &info) {
                           return std::string(tessera::isa::name(info.param));
                         });

// ---- The interface ---------------------------------------------------------------------------------------

TEST(GoldenModel, WrongBuffersAreAnError) {
  tsr::KernelInfo k = kernelOf({tsr::input("x", {128, 8}, tsr::f32), tsr::output("y", {128, 8}, tsr::f32)},
                               [](tsr::Hbm x, tsr::Hbm y) {
                                 tsr::store(y.tile(0, 0, {128, 8}), tsr::load(x.tile(0, 0, {128, 8})));
                               });
  tsr::graph::KernelGraph g = tsr::trace(k, {});
  std::vector<std::vector<std::byte>> one{std::vector<std::byte>(128 * 8 * 4)};
  EXPECT_THROW(runGolden(g, one), tessera::Error);
  std::vector<std::vector<std::byte>> small{std::vector<std::byte>(128 * 8 * 4), std::vector<std::byte>(16)};
  EXPECT_THROW(runGolden(g, small), tessera::Error);
}

// Every linalg op becomes a call of a function that holds it, shared by the ops that differ only in their operands
// (lib/Golden/OutlineOps.h): 512 column copies at 512 offsets are one function, not 512 loop nests in the kernel's.
TEST(GoldenModel, OpsThatDifferOnlyInOperandsShareOneFunction) {
  tsr::KernelInfo k = kernelOf({tsr::input("x", {128, 512}, tsr::f32), tsr::output("y", {128, 512}, tsr::f32)},
                               [](tsr::Hbm x, tsr::Hbm y) {
                                 tsr::Tile t = tsr::load(x.tile(0, 0, {128, 512}));
                                 tsr::Tile u = tsr::ndarray<tsr::f32>({128, 512});
                                 for (int64_t c = 0; c < 512; ++c) tsr::assign(u.slice(c, 1), t.slice(511 - c, 1));
                                 tsr::store(y.tile(0, 0, {128, 512}), u);
                               });
  const tsr::graph::KernelGraph g = tsr::trace(k, {});
  const std::string llvm = tessera::compiler::goldenToText(g, tessera::compiler::GoldenStage::Llvm);
  size_t functions = 0;
  for (size_t at = llvm.find("llvm.func @__golden_op_"); at != std::string::npos;
       at = llvm.find("llvm.func @__golden_op_", at + 1))
    ++functions;
  EXPECT_GE(functions, 1u);
  EXPECT_LE(functions, 3u) << llvm.substr(0, 4000); // the load, the copies, the store
  std::vector<float> x(128 * 512);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 4093) - 2000.0f;
  std::vector<std::vector<std::byte>> tensors{bytesOf(DType::F32, x), std::vector<std::byte>(x.size() * 4)};
  runGolden(g, tensors);
  const std::vector<float> y = valuesOf(DType::F32, tensors[1]);
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t c = 0; c < 512; ++c) ASSERT_EQ(y[r * 512 + c], x[r * 512 + 511 - c]) << r << ", " << c;
}

// A load, `copies` column copies from one SBUF tile into another (column c from column copies - 1 - c), a store:
// the shape of a transpose written with element copies (issue 21), one op per copy.
tsr::KernelInfo columnCopies(int64_t copies) {
  return kernelOf({tsr::input("x", {128, copies}, tsr::f32), tsr::output("y", {128, copies}, tsr::f32)},
                  [copies](tsr::Hbm x, tsr::Hbm y) {
                    tsr::Tile t = tsr::load(x.tile(0, 0, {128, copies}));
                    tsr::Tile u = tsr::ndarray<tsr::f32>({128, copies});
                    for (int64_t c = 0; c < copies; ++c) tsr::assign(u.slice(c, 1), t.slice(copies - 1 - c, 1));
                    tsr::store(y.tile(0, 0, {128, copies}), u);
                  });
}

/// Runs columnCopies(copies) through the golden model, checks its output, and returns what it compiled.
tessera::compiler::GoldenWork columnCopiesWork(int64_t copies) {
  std::vector<float> x(128 * copies);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 4093) - 2000.0f;
  std::vector<std::vector<std::byte>> tensors{bytesOf(DType::F32, x), std::vector<std::byte>(x.size() * 4)};
  tessera::compiler::GoldenWork work;
  runGolden(tsr::trace(columnCopies(copies), {}), tensors, {}, &work);
  const std::vector<float> y = valuesOf(DType::F32, tensors[1]);
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t c = 0; c < copies; ++c) EXPECT_EQ(y[r * copies + c], x[r * copies + copies - 1 - c]) << r << ", " << c;
  return work;
}

// A compiled golden model runs on any inputs of its kernel's shapes, as often as asked, each time as runGolden
// would; buffers that do not fit are refused at every run.
TEST(GoldenModel, CompiledOnceRunsOnAnyInputs) {
  const tsr::graph::KernelGraph g = tsr::trace(columnCopies(8), {});
  const std::unique_ptr<tessera::compiler::GoldenModel> model = tessera::compiler::compileGolden(g);
  for (const float base : {0.0f, -1000.5f, 3e30f}) {
    std::vector<float> x(128 * 8);
    for (size_t i = 0; i < x.size(); ++i) x[i] = base + float(i);
    std::vector<std::vector<std::byte>> once{bytesOf(DType::F32, x), std::vector<std::byte>(x.size() * 4)};
    std::vector<std::vector<std::byte>> fresh = once;
    model->run(once);
    runGolden(g, fresh);
    EXPECT_EQ(once[1], fresh[1]) << base;
    const std::vector<float> y = valuesOf(DType::F32, once[1]);
    for (int64_t r = 0; r < 128; ++r)
      for (int64_t c = 0; c < 8; ++c) ASSERT_EQ(y[r * 8 + c], x[r * 8 + 7 - c]) << base << ": " << r << ", " << c;
  }
  std::vector<std::vector<std::byte>> one{std::vector<std::byte>(128 * 8 * 4)};
  EXPECT_THROW(model->run(one), tessera::Error);
}

// The golden model's work is linear in a kernel's ops, counted, not timed (issue 21: 1,026 column copies took 71 s
// as one optimised function of 1,026 loop nests). 16 times the copies: the functions compiled with optimisation,
// whose cost grows faster than their size, are the same ones of the same size; only the glue grows, at most 16
// times (FastISel compiles it in one pass).
TEST(GoldenModel, WorkIsLinearInTheKernelsOps) {
  const tessera::compiler::GoldenWork small = columnCopiesWork(64), large = columnCopiesWork(1024);
  EXPECT_EQ(small.outlinedOps, 64u); // the copies (the load and the store call the runtime)
  EXPECT_EQ(large.outlinedOps, 1024u);
  EXPECT_GE(small.functions, 1u);
  EXPECT_LE(small.functions, 3u);
  EXPECT_EQ(large.functions, small.functions);
  EXPECT_EQ(large.optimizedOps, small.optimizedOps);
  EXPECT_GT(large.glueOps, small.glueOps);
  EXPECT_LE(large.glueOps, 16 * small.glueOps);
}

// The stages a progress line shows while a run waits for the golden model, in order.
TEST(GoldenModel, TellsEachStageAsItBegins) {
  const tessera::scratch::ScopedEnvironment noCache("TESSERA_CACHE_DIR", "off"); // compiled, not loaded
  std::vector<std::string> stages;
  std::vector<float> x(128 * 8, 1.0f);
  std::vector<std::vector<std::byte>> tensors{bytesOf(DType::F32, x), std::vector<std::byte>(x.size() * 4)};
  runGolden(tsr::trace(columnCopies(8), {}), tensors, [&](const std::string &s) { stages.push_back(s); });
  EXPECT_EQ(stages, (std::vector<std::string>{"lowering 10 ops to host code", "compiling for the host", "running"}));
}

// Two ops of one shape whose bodies use their operands differently (a - b and b - a) are not one function.
TEST(GoldenModel, OpsThatUseTheirOperandsDifferentlyStayApart) {
  tsr::KernelInfo k = kernelOf({tsr::input("a", {128, 64}, tsr::f32), tsr::input("b", {128, 64}, tsr::f32),
                                tsr::output("y", {128, 64}, tsr::f32), tsr::output("z", {128, 64}, tsr::f32)},
                               [](tsr::Hbm a, tsr::Hbm b, tsr::Hbm y, tsr::Hbm z) {
                                 tsr::Tile ta = tsr::load(a.tile(0, 0, {128, 64}));
                                 tsr::Tile tb = tsr::load(b.tile(0, 0, {128, 64}));
                                 tsr::store(y.tile(0, 0, {128, 64}), ta - tb);
                                 tsr::store(z.tile(0, 0, {128, 64}), tb - ta);
                               });
  std::vector<float> a(128 * 64), b(128 * 64);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 97), b[i] = float(i % 31) * 3.0f;
  std::vector<std::vector<std::byte>> tensors{bytesOf(DType::F32, a), bytesOf(DType::F32, b),
                                              std::vector<std::byte>(a.size() * 4), std::vector<std::byte>(a.size() * 4)};
  runGolden(tsr::trace(k, {}), tensors);
  const std::vector<float> y = valuesOf(DType::F32, tensors[2]), z = valuesOf(DType::F32, tensors[3]);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(y[i], a[i] - b[i]) << i;
    ASSERT_EQ(z[i], b[i] - a[i]) << i;
  }
}

// LLVM computes a select or a phi of bf16 values in f32 on a host without bf16 instructions (AVX2) and truncates with
// compiler-rt's __truncsfbf2, which the JIT resolves to tessera_truncsfbf2 (GoldenRuntime.h): round to nearest even
// as isa's conversion (ml_dtypes'), a NaN kept a NaN. Before it, a fill by position of a bf16 tile (avgpool2d,
// conv2d, mlp, mamba_scan) stopped the golden model on such hosts with "Symbols not found: [ __truncsfbf2 ]".
TEST(GoldenModel, Bf16TruncationTheJitCallsRoundsAsIsaDoes) {
  auto bitsOf = [](float x) {
    return static_cast<uint16_t>(std::bit_cast<uint32_t>(tessera::compiler::golden::tessera_truncsfbf2(x)) & 0xffff);
  };
  for (float x : {0.0f, -0.0f, 1.0f, 1.00390625f, 1.01171875f, 1.0078125f, -3.14159f, 1e-40f, 3.4e38f,
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()})
    EXPECT_EQ(bitsOf(x), tessera::isa::floatToBf16(x)) << x;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += 0x10001u) { // ties (0x8000 below) among them
    const float x = std::bit_cast<float>(bits | 0x8000u);
    ASSERT_EQ(bitsOf(x), tessera::isa::floatToBf16(x)) << std::hex << bits;
  }
  EXPECT_TRUE(std::isnan(tessera::isa::bf16ToFloat(bitsOf(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(tessera::isa::bf16ToFloat(bitsOf(std::bit_cast<float>(0x7f800001u))))); // signalling
}

// A matmul's operands reach the golden model's runtime as stored (GoldenRuntime.h, StoredMatrix): the runtime
// decodes them as isa::decode does, from any offset and strides, and accumulates k ascending into acc's rows. Here a
// bf16 operand every other element of its rows, an fp8 one from an offset, an accumulator with padded rows: the
// result is a plain loop's over isa's decoded values, bit for bit (every product of bf16 and fp8 is exact, so the
// GEMM's FMA gives the plain loop's bits).
TEST(GoldenModel, MatmulDecodesOperandsAsStored) {
  constexpr int64_t k = 3, m = 5, n = 4, sRow = 12, mRow = 6, mOffset = 2, accRow = 7;
  std::vector<uint16_t> stationary(k * sRow);
  std::vector<uint8_t> moving(mOffset + k * mRow);
  std::vector<float> sValues(k * sRow), mValues(moving.size());
  for (size_t i = 0; i < stationary.size(); ++i) {
    stationary[i] = tessera::isa::floatToBf16(0.25f * float(int(i % 11) - 5));
    sValues[i] = tessera::isa::bf16ToFloat(stationary[i]);
  }
  for (size_t i = 0; i < moving.size(); ++i) {
    const float v = 0.5f * float(int(i % 7) - 3);
    tessera::isa::encode(DType::F8E4M3, &v, reinterpret_cast<std::byte *>(&moving[i]), 1);
    tessera::isa::decode(DType::F8E4M3, reinterpret_cast<const std::byte *>(&moving[i]), &mValues[i], 1);
  }
  std::vector<float> acc(m * accRow, 1.5f), expected = acc;
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t mm = 0; mm < m; ++mm)
      for (int64_t nn = 0; nn < n; ++nn) {
        const float product = sValues[1 + kk * sRow + 2 * mm] * mValues[mOffset + kk * mRow + nn];
        expected[mm * accRow + nn] = expected[mm * accRow + nn] + product;
      }
  using tessera::compiler::golden::StoredMatrix;
  const StoredMatrix s{reinterpret_cast<int64_t>(stationary.data()), 1, sRow, 2, DType::BF16},
      mv{reinterpret_cast<int64_t>(moving.data()), mOffset, mRow, 1, DType::F8E4M3};
  tessera::compiler::golden::matmul(acc.data(), accRow, m, n, k, s, mv);
  for (size_t i = 0; i < acc.size(); ++i) EXPECT_EQ(std::bit_cast<uint32_t>(acc[i]), std::bit_cast<uint32_t>(expected[i])) << i;
}

// avgpool2d's pooling matrix: a bf16 tile of ones and two fills by position (a band), which share one outlined
// function with the offset a parameter: its select of bf16 values needs __truncsfbf2 on an AVX2 host.
TEST(GoldenModel, FillsByPositionOfABf16TileRun) {
  tsr::KernelInfo k = kernelOf({tsr::input("x", {128, 64}, tsr::bf16), tsr::output("y", {128, 64}, tsr::bf16)},
                               [](tsr::Hbm x, tsr::Hbm y) {
                                 tsr::Tile t = tsr::full(tsr::bf16, {128, 64}, 1.0f);
                                 tsr::fill(t, 0.0f, {.partition = 1, .free = -2, .offset = 0, .cmp = tsr::op::less});
                                 tsr::fill(t, 0.0f, {.partition = 1, .free = -2, .offset = -1, .cmp = tsr::op::greater});
                                 tsr::store(y.tile(0, 0, {128, 64}), t * tsr::load(x.tile(0, 0, {128, 64})));
                               });
  std::vector<float> x(128 * 64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 251) - 100.0f;
  std::vector<std::vector<std::byte>> tensors{bytesOf(DType::BF16, x), std::vector<std::byte>(x.size() * 2)};
  runGolden(tsr::trace(k, {}), tensors);
  const std::vector<float> y = valuesOf(DType::BF16, tensors[1]);
  for (int64_t p = 0; p < 128; ++p)
    for (int64_t f = 0; f < 64; ++f) { // ones where 2 f <= p <= 2 f + 1
      const bool one = p - 2 * f >= 0 && p - 2 * f <= 1;
      ASSERT_EQ(y[p * 64 + f], one ? x[p * 64 + f] : 0.0f) << p << ", " << f;
    }
}

TEST(GoldenModel, StagesPrintAsMlir) {
  const tsr::KernelInfo &softmax = *tsr::Registry::instance().find("softmax");
  tsr::graph::KernelGraph g = tsr::trace(softmax, softmax.resolve({}));
  std::string linalg = tessera::compiler::goldenToText(g, tessera::compiler::GoldenStage::Linalg);
  EXPECT_NE(linalg.find("linalg.generic"), std::string::npos);
  EXPECT_NE(linalg.find("math.exp"), std::string::npos);
  EXPECT_EQ(linalg.find("tile."), linalg.find("tile.name")); // no tile op left, only argument names
  std::string llvm = tessera::compiler::goldenToText(g, tessera::compiler::GoldenStage::Llvm);
  EXPECT_NE(llvm.find("llvm.func @_mlir_ciface_softmax"), std::string::npos);
  EXPECT_EQ(llvm.find("linalg."), std::string::npos);
}

} // namespace
