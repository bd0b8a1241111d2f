// The elementwise and position-driven tsr::isa calls (tessera/dsl/isa/Elementwise.h), end to end: each has a
// registered kernel that loads inputs, calls the instruction, stores the result and carries a plain C++
// reference, run on trn1 and trn2 (range_select, from NeuronCore-v3, must be refused on trn1 at the kernel's
// line); and misuse is reported at the kernel's line with what was expected.

#include "../dsl/DslTesting.h"

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <cmath>

namespace {

using namespace tessera;
using tsr::dsltest::expectAt;
using tsr::dsltest::kernelOf;
using tsr::dsltest::traceError;

/// Runs `kernel` on trn1 and trn2 and expects its outputs to match its reference.
void expectRunsOnBoth(const char *kernel) {
  for (const char *target : {"trn1", "trn2"}) {
    driver::RunReport r = driver::runKernel({.kernel = kernel, .target = target});
    EXPECT_TRUE(r.ok) << kernel << " on " << target << "\n" << driver::toText(r);
    EXPECT_EQ(r.reference, "reference") << kernel << " on " << target;
  }
}

// ---- tensor_scalar ----------------------------------------------------------------------------------------

// y1 = x * 2 + b[p] (two stages, a number then a tile); y2 = b[p] - x on GpSimd (one stage, reversed).
const tsr::Registration tensorScalarKernel{{
    .name = "test_isa_tensor_scalar",
    .summary = "tsr::isa::tensor_scalar with a number, a [P, 1] tile, two stages and a reversed one",
    .params = {{"P", 64}, {"F", 96}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{
              tsr::input("x", {p["P"], p["F"]}, tsr::f32), tsr::input("b", {p["P"], 1}, tsr::f32),
              tsr::output("y1", {p["P"], p["F"]}, tsr::f32), tsr::output("y2", {p["P"], p["F"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm b, tsr::Hbm y1, tsr::Hbm y2) {
      const int64_t P = x.dim(0), F = x.dim(1);
      tsr::Tile data = tsr::load(x.tile(0, 0, {P, F}));
      tsr::Tile bias = tsr::load(b.tile(0, 0, {P, 1}));
      tsr::Tile twoStages = tsr::ndarray<tsr::f32>({P, F});
      tsr::isa::tensor_scalar(twoStages, data, tsr::op::multiply, 2.0f, false, tsr::op::add, bias);
      tsr::Tile reversed = tsr::ndarray<tsr::f32>({P, F});
      tsr::isa::tensor_scalar(reversed, data, tsr::op::subtract, bias, /*reverse0=*/true, std::nullopt, std::nullopt,
                              false, tsr::isa::vector_engine);
      tsr::store(y1.tile(0, 0, {P, F}), twoStages);
      tsr::store(y2.tile(0, 0, {P, F}), reversed);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], F = p["F"];
          for (int64_t r = 0; r < P; ++r)
            for (int64_t c = 0; c < F; ++c) {
              const float x = in[0][r * F + c], b = in[1][r];
              out[0][r * F + c] = x * 2.0f + b;
              out[1][r * F + c] = b - x;
            }
        },
}};

TEST(IsaElementwise, TensorScalarMatchesItsReference) { expectRunsOnBoth("test_isa_tensor_scalar"); }

// ---- scalar_tensor_tensor ---------------------------------------------------------------------------------

// y1 = (x - b[p]) * z; y2 = z - (x * 0.5) (operand1 on the left: reverse1).
const tsr::Registration scalarTensorTensorKernel{{
    .name = "test_isa_scalar_tensor_tensor",
    .summary = "tsr::isa::scalar_tensor_tensor with a [P, 1] tile and with a number, reversed",
    .params = {{"P", 64}, {"F", 80}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{
              tsr::input("x", {p["P"], p["F"]}, tsr::f32), tsr::input("b", {p["P"], 1}, tsr::f32),
              tsr::input("z", {p["P"], p["F"]}, tsr::f32), tsr::output("y1", {p["P"], p["F"]}, tsr::f32),
              tsr::output("y2", {p["P"], p["F"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm b, tsr::Hbm z, tsr::Hbm y1, tsr::Hbm y2) {
      const int64_t P = x.dim(0), F = x.dim(1);
      tsr::Tile data = tsr::load(x.tile(0, 0, {P, F}));
      tsr::Tile bias = tsr::load(b.tile(0, 0, {P, 1}));
      tsr::Tile other = tsr::load(z.tile(0, 0, {P, F}));
      tsr::Tile first = tsr::ndarray<tsr::f32>({P, F});
      tsr::isa::scalar_tensor_tensor(first, data, tsr::op::subtract, bias, tsr::op::multiply, other);
      tsr::Tile second = tsr::ndarray<tsr::f32>({P, F});
      tsr::isa::scalar_tensor_tensor(second, data, tsr::op::multiply, 0.5f, tsr::op::subtract, other, false,
                                     /*reverse1=*/true);
      tsr::store(y1.tile(0, 0, {P, F}), first);
      tsr::store(y2.tile(0, 0, {P, F}), second);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], F = p["F"];
          for (int64_t r = 0; r < P; ++r)
            for (int64_t c = 0; c < F; ++c) {
              const float x = in[0][r * F + c], b = in[1][r], z = in[2][r * F + c];
              out[0][r * F + c] = (x - b) * z;
              out[1][r * F + c] = z - x * 0.5f;
            }
        },
}};

TEST(IsaElementwise, ScalarTensorTensorMatchesItsReference) { expectRunsOnBoth("test_isa_scalar_tensor_tensor"); }

// ---- reciprocal -------------------------------------------------------------------------------------------

const tsr::Registration reciprocalKernel{{
    .name = "test_isa_reciprocal",
    .summary = "tsr::isa::reciprocal",
    .params = {{"P", 32}, {"F", 64}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["F"]}, tsr::f32),
                                              tsr::output("y", {p["P"], p["F"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      const int64_t P = x.dim(0), F = x.dim(1);
      tsr::Tile data = tsr::load(x.tile(0, 0, {P, F}));
      tsr::Tile inverse = tsr::ndarray<tsr::f32>({P, F});
      tsr::isa::reciprocal(inverse, data);
      tsr::store(y.tile(0, 0, {P, F}), inverse);
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      for (size_t i = 0; i < in[0].size(); ++i) out[0][i] = 1.0f / in[0][i];
    },
}};

TEST(IsaElementwise, ReciprocalMatchesItsReference) { expectRunsOnBoth("test_isa_reciprocal"); }

// ---- tensor_copy_predicated -------------------------------------------------------------------------------

// The predicate x > 0 is computed on chip (1.0 or 0.0) and converted to u8. y1 = x > 0 ? x : z (a tile source);
// y2 = x > 0 ? z : -5 (a number, where the predicate is false: reverse_pred).
const tsr::Registration copyPredicatedKernel{{
    .name = "test_isa_tensor_copy_predicated",
    .summary = "tsr::isa::tensor_copy_predicated with a tile source and with a number, reversed",
    .params = {{"P", 64}, {"F", 48}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{
              tsr::input("x", {p["P"], p["F"]}, tsr::f32), tsr::input("z", {p["P"], p["F"]}, tsr::f32),
              tsr::output("y1", {p["P"], p["F"]}, tsr::f32), tsr::output("y2", {p["P"], p["F"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm z, tsr::Hbm y1, tsr::Hbm y2) {
      const int64_t P = x.dim(0), F = x.dim(1);
      tsr::Tile data = tsr::load(x.tile(0, 0, {P, F}));
      tsr::Tile positive = tsr::ndarray<tsr::f32>({P, F});
      tsr::isa::tensor_scalar(positive, data, tsr::op::greater, 0.0f);
      tsr::Tile predicate = tsr::ndarray<tsr::u8>({P, F});
      tsr::isa::tensor_copy(predicate, positive);
      tsr::Tile fromTile = tsr::load(z.tile(0, 0, {P, F}));
      tsr::isa::tensor_copy_predicated(fromTile, data, predicate);
      tsr::Tile fromNumber = tsr::load(z.tile(0, 0, {P, F}));
      tsr::isa::tensor_copy_predicated(fromNumber, -5.0f, predicate, /*reverse_pred=*/true);
      tsr::store(y1.tile(0, 0, {P, F}), fromTile);
      tsr::store(y2.tile(0, 0, {P, F}), fromNumber);
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      for (size_t i = 0; i < in[0].size(); ++i) {
        const bool positive = in[0][i] > 0.0f;
        out[0][i] = positive ? in[0][i] : in[1][i];
        out[1][i] = positive ? in[1][i] : -5.0f;
      }
    },
}};

TEST(IsaElementwise, TensorCopyPredicatedMatchesItsReference) {
  expectRunsOnBoth("test_isa_tensor_copy_predicated");
}

// ---- iota -------------------------------------------------------------------------------------------------

// y1[p, i] = 7 + 32 p + i as int32, from a two-dimensional pattern that flattens to step 1; y2[p, i] = 100 - p - 2i
// converted to f32. No inputs: iota writes every element itself.
const tsr::Registration iotaKernel{{
    .name = "test_isa_iota",
    .summary = "tsr::isa::iota into i32 and f32 tiles",
    .params = {{"P", 64}, {"F", 32}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::output("y1", {p["P"], p["F"]}, tsr::i32),
                                              tsr::output("y2", {p["P"], p["F"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm y1, tsr::Hbm y2) {
      const int64_t P = y1.dim(0), F = y1.dim(1);
      tsr::Tile ints = tsr::ndarray<tsr::i32>({P, F});
      tsr::isa::iota(ints, {{F / 2, 2}, {1, F / 2}}, 7, 32);
      tsr::Tile floats = tsr::ndarray<tsr::f32>({P, F});
      tsr::isa::iota(floats, {{-2, F}}, 100, -1);
      tsr::store(y1.tile(0, 0, {P, F}), ints);
      tsr::store(y2.tile(0, 0, {P, F}), floats);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &,
                    std::vector<tsr::HostTensor> &out) {
      const int64_t P = p["P"], F = p["F"];
      for (int64_t r = 0; r < P; ++r)
        for (int64_t c = 0; c < F; ++c) {
          out[0][r * F + c] = static_cast<float>(7 + 32 * r + c);
          out[1][r * F + c] = static_cast<float>(100 - r - 2 * c);
        }
    },
}};

TEST(IsaElementwise, IotaMatchesItsReference) { expectRunsOnBoth("test_isa_iota"); }

// ---- affine_select ----------------------------------------------------------------------------------------

// A causal mask: y[p, i] = x[p, i] where p - i >= 0, else -30.
const tsr::Registration affineSelectKernel{{
    .name = "test_isa_affine_select",
    .summary = "tsr::isa::affine_select as a causal mask",
    .params = {{"P", 64}, {"F", 64}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["F"]}, tsr::f32),
                                              tsr::output("y", {p["P"], p["F"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      const int64_t P = x.dim(0), F = x.dim(1);
      tsr::Tile data = tsr::load(x.tile(0, 0, {P, F}));
      tsr::Tile masked = tsr::ndarray<tsr::f32>({P, F});
      tsr::isa::affine_select(masked, {{-1, F}}, 0, 1, data, -30.0f, tsr::op::greater_equal);
      tsr::store(y.tile(0, 0, {P, F}), masked);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      const int64_t P = p["P"], F = p["F"];
      for (int64_t r = 0; r < P; ++r)
        for (int64_t c = 0; c < F; ++c) out[0][r * F + c] = r - c >= 0 ? in[0][r * F + c] : -30.0f;
    },
}};

TEST(IsaElementwise, AffineSelectMatchesItsReference) { expectRunsOnBoth("test_isa_affine_select"); }

// ---- range_select -----------------------------------------------------------------------------------------

int rangeSelectLine = 0; // the kernel's range_select call, set while it is traced

// Bounds from iota: lo[p] = p, hi[p] = p + 20. y[p, i] = (i + 2 >= lo[p]) and (i + 2 < hi[p]) ? x : -50;
// m[p] = max_i y[p, i].
const tsr::Registration rangeSelectKernel{{
    .name = "test_isa_range_select",
    .summary = "tsr::isa::range_select with bounds from iota and the row maxima",
    .params = {{"P", 64}, {"F", 64}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["F"]}, tsr::f32),
                                              tsr::output("y", {p["P"], p["F"]}, tsr::f32),
                                              tsr::output("m", {p["P"], 1}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y, tsr::Hbm m) {
      const int64_t P = x.dim(0), F = x.dim(1);
      tsr::Tile data = tsr::load(x.tile(0, 0, {P, F}));
      tsr::Tile lo = tsr::ndarray<tsr::f32>({P, 1});
      tsr::isa::iota(lo, {{0, 1}}, 0, 1);
      tsr::Tile hi = tsr::ndarray<tsr::f32>({P, 1});
      tsr::isa::iota(hi, {{0, 1}}, 20, 1);
      tsr::Tile selected = tsr::ndarray<tsr::f32>({P, F});
      tsr::Tile maxima = tsr::ndarray<tsr::f32>({P, 1});
      rangeSelectLine = __LINE__ + 1;
      tsr::isa::range_select(selected, data, tsr::op::greater_equal, tsr::op::less, lo, hi, maxima, 2,
                             std::numeric_limits<float>::lowest());
      tsr::store(y.tile(0, 0, {P, F}), selected);
      tsr::store(m.tile(0, 0, {P, 1}), maxima);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      const int64_t P = p["P"], F = p["F"];
      for (int64_t r = 0; r < P; ++r) {
        float largest = -INFINITY;
        for (int64_t c = 0; c < F; ++c) {
          const bool inRange = c + 2 >= r && c + 2 < r + 20;
          const float v = inRange ? in[0][r * F + c] : std::numeric_limits<float>::lowest();
          out[0][r * F + c] = v;
          largest = std::max(largest, v);
        }
        out[1][r] = largest;
      }
    },
}};

TEST(IsaElementwise, RangeSelectMatchesItsReferenceOnTrn2AndIsRefusedOnTrn1) {
  driver::RunReport r = driver::runKernel({.kernel = "test_isa_range_select", .target = "trn2"});
  EXPECT_TRUE(r.ok) << driver::toText(r);
  EXPECT_EQ(r.reference, "reference");
  try {
    (void)driver::runKernel({.kernel = "test_isa_range_select", .target = "trn1"});
    FAIL() << "range_select compiled for trn1 (NeuronCore-v2)";
  } catch (const tessera::Error &e) {
    EXPECT_NE(std::string(e.what()).find("exists from NeuronCore-v3 on; target trn1 is NeuronCore-v2"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.where().line, static_cast<uint32_t>(rangeSelectLine)) << e.what();
    EXPECT_NE(e.where().file.find("IsaElementwiseTest.cpp"), std::string::npos) << e.what();
  }
}

// ---- local_gather -----------------------------------------------------------------------------------------

// index[p, j] = 3p + j (u32, from iota). Each GpSimd core (16 partitions) gathers, for every partition r of the
// core, v-th index (partition first) idx = index[first + v % 16, v / 16]: y1 with 2 elements per index and every
// index, y2 with 1 element per index and the first 20.
const tsr::Registration localGatherKernel{{
    .name = "test_isa_local_gather",
    .summary = "tsr::isa::local_gather with 2 elements per index, and with fewer valid indices",
    .params = {{"P", 32}, {"F", 128}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["P"], p["F"]}, tsr::f32),
                                              tsr::output("y1", {p["P"], 64}, tsr::f32),
                                              tsr::output("y2", {p["P"], 20}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y1, tsr::Hbm y2) {
      const int64_t P = x.dim(0), F = x.dim(1);
      tsr::Tile data = tsr::load(x.tile(0, 0, {P, F}));
      tsr::Tile index = tsr::ndarray<tsr::u32>({P, 2});
      tsr::isa::iota(index, {{1, 2}}, 0, 3);
      tsr::Tile pairs = tsr::ndarray<tsr::f32>({P, 64});
      tsr::isa::local_gather(pairs, data, index, 2);
      tsr::Tile firstTwenty = tsr::ndarray<tsr::f32>({P, 20});
      tsr::isa::local_gather(firstTwenty, data, index, 1, 20);
      tsr::store(y1.tile(0, 0, {P, 64}), pairs);
      tsr::store(y2.tile(0, 0, {P, 20}), firstTwenty);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      const int64_t P = p["P"], F = p["F"], core = 16;
      auto gather = [&](tsr::HostTensor &dst, int64_t elements, int64_t valid) {
        for (int64_t r = 0; r < P; ++r) {
          const int64_t first = r / core * core;
          for (int64_t v = 0; v < valid; ++v) {
            const int64_t idx = 3 * (first + v % core) + v / core;
            for (int64_t e = 0; e < elements; ++e)
              dst[r * valid * elements + v * elements + e] = in[0][r * F + idx + e];
          }
        }
      };
      gather(out[0], 2, 32);
      gather(out[1], 1, 20);
    },
}};

TEST(IsaElementwise, LocalGatherMatchesItsReference) { expectRunsOnBoth("test_isa_local_gather"); }

// ---- misuse -----------------------------------------------------------------------------------------------

/// The error tracing `kernel` throws, expected at `line` (read after the trace: the kernel sets it) and to contain
/// `text`.
void expectTraceError(const tsr::KernelInfo &kernel, const int &line, const std::string &text) {
  tessera::Error e = traceError(kernel);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "expected: " << text << "\n got: " << e.what();
}

/// The error compiling `kernel` for `target` throws (it traces first), expected at `line` and to contain `text`.
void expectCompileError(const tsr::KernelInfo &kernel, const char *target, const int &line,
                        const std::string &text) {
  tsr::graph::KernelGraph graph = tsr::trace(kernel, {});
  try {
    (void)compiler::compile(graph, isa::Target::find(target));
    ADD_FAILURE() << "compiled for " << target << "; expected: " << text;
  } catch (const tessera::Error &e) {
    expectAt(e, line);
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "expected: " << text << "\n got: " << e.what();
  }
}

TEST(IsaElementwiseMisuse, TensorScalar) {
  int line = 0;
  auto wideOperand = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_scalar(d, a, tsr::op::add, a);
  });
  expectTraceError(wideOperand, line, "tsr::isa::tensor_scalar: operand0 must be a [64, 1] tile");

  auto onTensorEngine = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_scalar(d, a, tsr::op::add, 1.0f, false, std::nullopt, std::nullopt, false, tsr::isa::tensor_engine);
  });
  expectTraceError(onTensorEngine, line, "tsr::isa::tensor_scalar: cannot run on the tensor engine");

  auto opWithoutOperand = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_scalar(d, a, tsr::op::add, 1.0f, false, tsr::op::multiply);
  });
  expectTraceError(opWithoutOperand, line, "tsr::isa::tensor_scalar: op1 without operand1");

  auto hbmOperand = kernelOf({tsr::input("x", {64, 32}, tsr::f32), tsr::input("b", {64, 1}, tsr::f32)},
                             [&](tsr::Hbm x, tsr::Hbm b) {
                               tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
                               tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
                               line = __LINE__ + 1;
                               tsr::isa::tensor_scalar(d, a, tsr::op::add, b.tile(0, 0, {64, 1}));
                             });
  expectTraceError(hbmOperand, line, "tsr::isa::tensor_scalar: the second operand is in HBM");
}

TEST(IsaElementwiseMisuse, ScalarTensorTensorAndReciprocal) {
  int line = 0;
  auto shortOperand1 = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::scalar_tensor_tensor(d, a, tsr::op::add, 1.0f, tsr::op::multiply, a.slice(0, 16));
  });
  expectTraceError(shortOperand1, line, "tsr::isa::scalar_tensor_tensor: operand1 is [64, 16] but data is [64, 32]");

  auto bypass = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::scalar_tensor_tensor(d, a, tsr::op::add, 1.0f, tsr::op::bypass, a);
  });
  expectTraceError(bypass, line, "op1 must be an arithmetic operation, not bypass");

  auto reciprocalShape = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({32, 32});
    line = __LINE__ + 1;
    tsr::isa::reciprocal(d, a);
  });
  expectTraceError(reciprocalShape, line, "tsr::isa::reciprocal: dst is [32, 32] but data is [64, 32]");
}

TEST(IsaElementwiseMisuse, TensorCopyPredicated) {
  int line = 0;
  auto floatPredicate = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::load(x.tile(0, 0, {64, 32}));
    line = __LINE__ + 1;
    tsr::isa::tensor_copy_predicated(d, a, a);
  });
  expectTraceError(floatPredicate, line, "tsr::isa::tensor_copy_predicated: predicate must be u8 or u32, not f32");

  auto otherDtype = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::bf16>({64, 32});
    tsr::Tile predicate = tsr::ndarray<tsr::u8>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_copy_predicated(d, a, predicate);
  });
  expectTraceError(otherDtype, line, "src and dst must share a dtype, not f32 and bf16");
}

TEST(IsaElementwiseMisuse, IotaAndAffineSelectPatterns) {
  int line = 0;
  auto wrongCount = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm) {
    tsr::Tile d = tsr::ndarray<tsr::i32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::iota(d, {{1, 16}}, 0);
  });
  expectTraceError(wrongCount, line, "tsr::isa::iota: pattern [[1, 16]] covers 16 elements per partition, but dst "
                                     "[64, 32] has 32");

  auto notFlat = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm) {
    tsr::Tile d = tsr::ndarray<tsr::i32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::iota(d, {{0, 2}, {1, 16}}, 0);
  });
  expectTraceError(notFlat, line, "does not flatten to one free dimension");

  auto inPsum = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm) {
    tsr::Tile d = tsr::ndarray(tsr::f32, {64, 32}, isa::MemSpace::Psum);
    line = __LINE__ + 1;
    tsr::isa::iota(d, {{1, 32}}, 0);
  });
  expectTraceError(inPsum, line, "tsr::isa::iota: dst must be in SBUF, not PSUM");

  auto notAComparison = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::affine_select(d, {{-1, 32}}, 0, 1, a, 0.0f, tsr::op::add);
  });
  expectTraceError(notAComparison, line, "tsr::isa::affine_select: cmp_op must be a comparison");
}

TEST(IsaElementwiseMisuse, RangeSelect) {
  int line = 0;
  auto wideBound = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile bound = tsr::ndarray<tsr::f32>({64, 1});
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::range_select(d, a, tsr::op::greater_equal, tsr::op::less, a, bound);
  });
  expectTraceError(wideBound, line, "tsr::isa::range_select: bound0 must be a [64, 1] tile");

  auto notEqual = kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile bound = tsr::ndarray<tsr::f32>({64, 1});
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::range_select(d, a, tsr::op::not_equal, tsr::op::less, bound, bound);
  });
  expectTraceError(notEqual, line, "comp_op0 and comp_op1 must be is_equal, is_lt, is_le, is_gt or is_ge");
}

TEST(IsaElementwiseMisuse, LocalGather) {
  int line = 0;
  auto floatIndex = kernelOf({tsr::input("x", {32, 64}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {32, 64}));
    tsr::Tile index = tsr::ndarray<tsr::f32>({32, 2});
    tsr::Tile d = tsr::ndarray<tsr::f32>({32, 32});
    line = __LINE__ + 1;
    tsr::isa::local_gather(d, a, index);
  });
  expectTraceError(floatIndex, line, "tsr::isa::local_gather: index must hold integers (NKI: uint16), not f32");

  auto zeroPerIndex = kernelOf({tsr::input("x", {32, 64}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {32, 64}));
    tsr::Tile index = tsr::ndarray<tsr::u32>({32, 2});
    tsr::Tile d = tsr::ndarray<tsr::f32>({32, 32});
    line = __LINE__ + 1;
    tsr::isa::local_gather(d, a, index, 0);
  });
  expectTraceError(zeroPerIndex, line, "tsr::isa::local_gather: num_elem_per_idx must be at least 1, not 0");

  // A core gathers within its 16 partitions (the target's gpsimd_engine.partitions_per_core): 24 partitions
  // split a core, which only the target knows, so the compiler reports it, still at the kernel's line.
  auto splitCore = kernelOf({tsr::input("x", {24, 64}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {24, 64}));
    tsr::Tile index = tsr::ndarray<tsr::u32>({24, 2});
    tsr::isa::iota(index, {{1, 2}}, 0, 1);
    tsr::Tile d = tsr::ndarray<tsr::f32>({24, 32});
    line = __LINE__ + 1;
    tsr::isa::local_gather(d, a, index);
  });
  expectCompileError(splitCore, "trn2", line, "each GpSimd core gathers within its 16 partitions");
}

} // namespace
