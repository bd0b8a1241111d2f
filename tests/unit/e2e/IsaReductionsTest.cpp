// The reduction, scan, statistics and top-8 instructions as tsr::isa calls (tensor_partition_reduce,
// tensor_tensor_scan, bn_stats, bn_aggr, max8, nc_find_index8, nc_match_replace8), each in a small registered
// kernel run end to end through driver::runKernel on trn1 and trn2 against a plain C++ reference; and their
// misuse, reported at the kernel's line.

#include "../dsl/DslTesting.h"

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace {

using namespace tessera;
using tsr::dsltest::expectAt;
using tsr::dsltest::kernelOf;
using tsr::dsltest::traceError;

constexpr isa::DType kU32 = isa::DType::U32;
constexpr int64_t kTop = 8;         ///< the 8 of max8 and friends
constexpr float kReplaced = -9.0f;  ///< what nc_match_replace8 writes; below every input (inputs are in (-1, 1))

/// Runs `kernel` on trn1 and trn2 with `kernelParams` and expects both runs to match the kernel's reference.
void expectMatchesOnTrn1AndTrn2(const std::string &kernel, std::map<std::string, int64_t> kernelParams = {}) {
  for (const char *target : {"trn1", "trn2"}) {
    driver::RunReport r = driver::runKernel({.kernel = kernel, .target = target, .kernelParams = kernelParams});
    EXPECT_TRUE(r.ok) << kernel << " on " << target << "\n" << driver::toText(r);
    EXPECT_EQ(r.reference, "reference") << kernel;
  }
}

/// The indices of row[0, n) from the largest value down (inputs are random floats: no ties).
std::vector<int64_t> descendingOrder(const float *row, int64_t n) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a] > row[b]; });
  return order;
}

/// The input x ([P, N], f32), then `more`.
std::vector<tsr::TensorSpec> rowsOf(const tsr::Params &p, std::vector<tsr::TensorSpec> more) {
  std::vector<tsr::TensorSpec> specs{tsr::input("x", {p["P"], p["N"]}, tsr::f32)};
  specs.insert(specs.end(), more.begin(), more.end());
  return specs;
}

// ---- tensor_partition_reduce --------------------------------------------------------------------------------

// y[0, f] = op over p of x[p, f]; kernel parameter op: 1 = add, 2 = max.
const tsr::Registration partitionReduceKernel{{
    .name = "test_isa_tensor_partition_reduce",
    .summary = "tsr::isa::tensor_partition_reduce with add or max across 32 partitions",
    .params = {{"P", 32}, {"N", 40}},
    .kernelParams = {{"op", 1}},
    .signature = [](const tsr::Params &p) { return rowsOf(p, {tsr::output("y", {1, p["N"]}, tsr::f32)}); },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm y) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile reduced = tsr::ndarray<tsr::f32>({1, N});
      tsr::isa::tensor_partition_reduce(reduced, p["op"] == 1 ? tsr::op::add : tsr::op::maximum, loaded);
      tsr::store(y.tile(0, 0, {1, N}), reduced);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t c = 0; c < N; ++c) {
            double sum = 0, largest = -INFINITY;
            for (int64_t r = 0; r < P; ++r) {
              sum += in[0][r * N + c];
              largest = std::max<double>(largest, in[0][r * N + c]);
            }
            out[0][c] = static_cast<float>(p["op"] == 1 ? sum : largest);
          }
        },
}};

TEST(IsaReductions, TensorPartitionReduceAddsOrTakesTheMaxAcrossPartitions) {
  expectMatchesOnTrn1AndTrn2("test_isa_tensor_partition_reduce", {{"op", 1}});
  expectMatchesOnTrn1AndTrn2("test_isa_tensor_partition_reduce", {{"op", 2}});
}

// ---- tensor_tensor_scan -------------------------------------------------------------------------------------

// Kernel parameter form: 1 = y[i] = a[i] * y[i-1] + b[i] from the [P, 1] tile init (a linear recurrence, as in a
// Mamba-style scan); 2 = y[i] = b[i] - (y[i-1] - a[i]) from the immediate 0.5 (both operators reversed).
constexpr float kScanInitial = 0.5f;
const tsr::Registration scanKernel{{
    .name = "test_isa_tensor_tensor_scan",
    .summary = "tsr::isa::tensor_tensor_scan: a linear recurrence from a tile, or reversed subtractions from a number",
    .params = {{"P", 32}, {"N", 40}},
    .kernelParams = {{"form", 1}},
    .signature =
        [](const tsr::Params &p) {
          return rowsOf(p, {tsr::input("b", {p["P"], p["N"]}, tsr::f32), tsr::input("init", {p["P"], 1}, tsr::f32),
                            tsr::output("y", {p["P"], p["N"]}, tsr::f32)});
        },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm a, tsr::Hbm b, tsr::Hbm init, tsr::Hbm y) {
      const int64_t P = a.dim(0), N = a.dim(1);
      tsr::Tile data0 = tsr::load(a.tile(0, 0, {P, N}));
      tsr::Tile data1 = tsr::load(b.tile(0, 0, {P, N}));
      tsr::Tile scanned = tsr::ndarray<tsr::f32>({P, N});
      if (p["form"] == 1)
        tsr::isa::tensor_tensor_scan(scanned, data0, data1, tsr::load(init.tile(0, 0, {P, 1})), tsr::op::multiply,
                                     tsr::op::add);
      else
        tsr::isa::tensor_tensor_scan(scanned, data0, data1, kScanInitial, tsr::op::subtract, tsr::op::subtract,
                                     /*reverse0=*/true, /*reverse1=*/true);
      tsr::store(y.tile(0, 0, {P, N}), scanned);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            double prev = p["form"] == 1 ? in[2][r] : kScanInitial;
            for (int64_t c = 0; c < N; ++c) {
              const double a = in[0][r * N + c], b = in[1][r * N + c];
              prev = p["form"] == 1 ? a * prev + b : b - (prev - a);
              out[0][r * N + c] = static_cast<float>(prev);
            }
          }
        },
}};

TEST(IsaReductions, TensorTensorScanRunsTheRecurrenceFromATileOrANumber) {
  expectMatchesOnTrn1AndTrn2("test_isa_tensor_tensor_scan", {{"form", 1}});
  expectMatchesOnTrn1AndTrn2("test_isa_tensor_tensor_scan", {{"form", 2}});
}

// ---- bn_stats / bn_aggr -------------------------------------------------------------------------------------

/// Count, mean and M2 of row[first], row[first + 2], ... (< n), in double.
void statsOf(const float *row, int64_t n, int64_t first, float *triple) {
  double count = 0, sum = 0, m2 = 0;
  for (int64_t i = first; i < n; i += 2, ++count)
    sum += row[i];
  const double mean = sum / count;
  for (int64_t i = first; i < n; i += 2)
    m2 += (row[i] - mean) * (row[i] - mean);
  triple[0] = static_cast<float>(count);
  triple[1] = static_cast<float>(mean);
  triple[2] = static_cast<float>(m2);
}

// stats[p] = (count, mean, M2) of x[p, even], then of x[p, odd].
const tsr::Registration bnStatsKernel{{
    .name = "test_isa_bn_stats",
    .summary = "tsr::isa::bn_stats: count, mean and M2 of each row's even and odd elements",
    .params = {{"P", 32}, {"N", 48}},
    .signature = [](const tsr::Params &p) { return rowsOf(p, {tsr::output("stats", {p["P"], 6}, tsr::f32)}); },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm stats) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile s = tsr::ndarray<tsr::f32>({P, 6});
      tsr::isa::bn_stats(s, loaded);
      tsr::store(stats.tile(0, 0, {P, 6}), s);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            statsOf(&in[0][r * N], N, 0, &out[0][r * 6]);
            statsOf(&in[0][r * N], N, 1, &out[0][r * 6 + 3]);
          }
        },
}};

TEST(IsaReductions, BnStatsGivesEachRowsEvenAndOddStatistics) { expectMatchesOnTrn1AndTrn2("test_isa_bn_stats"); }

// mv[p] = (mean, population variance) of x[p, :]: bn_stats of each half of the row into one [P, 12] tile, then
// bn_aggr of its four triples (the NKI idiom for rows longer than bn_stats takes).
const tsr::Registration bnAggrKernel{{
    .name = "test_isa_bn_aggr",
    .summary = "tsr::isa::bn_aggr: a row's mean and variance from bn_stats of its two halves",
    .params = {{"P", 32}, {"N", 64}},
    .signature = [](const tsr::Params &p) { return rowsOf(p, {tsr::output("mv", {p["P"], 2}, tsr::f32)}); },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm mv) {
      const int64_t P = x.dim(0), N = x.dim(1), half = N / 2;
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile stats = tsr::ndarray<tsr::f32>({P, 12});
      tsr::isa::bn_stats(stats.slice(0, 6), loaded.slice(0, half));
      tsr::isa::bn_stats(stats.slice(6, 6), loaded.slice(half, half));
      tsr::Tile result = tsr::ndarray<tsr::f32>({P, 2});
      tsr::isa::bn_aggr(result, stats);
      tsr::store(mv.tile(0, 0, {P, 2}), result);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            const float *row = &in[0][r * N];
            const double mean = std::accumulate(row, row + N, 0.0) / static_cast<double>(N);
            double m2 = 0;
            for (int64_t i = 0; i < N; ++i)
              m2 += (row[i] - mean) * (row[i] - mean);
            out[0][r * 2] = static_cast<float>(mean);
            out[0][r * 2 + 1] = static_cast<float>(m2 / static_cast<double>(N));
          }
        },
}};

TEST(IsaReductions, BnAggrCombinesChunksIntoTheRowsMeanAndVariance) { expectMatchesOnTrn1AndTrn2("test_isa_bn_aggr"); }

// ---- max8 / nc_find_index8 / nc_match_replace8 --------------------------------------------------------------

// top[p] = the 8 largest values of x[p, :], descending.
const tsr::Registration max8Kernel{{
    .name = "test_isa_max8",
    .summary = "tsr::isa::max8: each row's 8 largest values",
    .params = {{"P", 32}, {"N", 40}},
    .signature = [](const tsr::Params &p) { return rowsOf(p, {tsr::output("top", {p["P"], kTop}, tsr::f32)}); },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm top) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile largest = tsr::ndarray<tsr::f32>({P, kTop});
      tsr::isa::max8(largest, loaded);
      tsr::store(top.tile(0, 0, {P, kTop}), largest);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            const std::vector<int64_t> order = descendingOrder(&in[0][r * N], N);
            for (int64_t k = 0; k < kTop; ++k)
              out[0][r * kTop + k] = in[0][r * N + order[k]];
          }
        },
}};

TEST(IsaReductions, Max8GivesTheEightLargestDescending) { expectMatchesOnTrn1AndTrn2("test_isa_max8"); }

// idx[p, k] (u32) = where the k-th largest value of x[p, :] is: max8, then nc_find_index8 of its values.
const tsr::Registration findIndex8Kernel{{
    .name = "test_isa_nc_find_index8",
    .summary = "tsr::isa::nc_find_index8: the positions of each row's 8 largest values (an argmax-8)",
    .params = {{"P", 32}, {"N", 40}},
    .signature = [](const tsr::Params &p) { return rowsOf(p, {tsr::output("idx", {p["P"], kTop}, kU32)}); },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm idx) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile largest = tsr::ndarray<tsr::f32>({P, kTop});
      tsr::isa::max8(largest, loaded);
      tsr::Tile where = tsr::ndarray(kU32, {P, kTop});
      tsr::isa::nc_find_index8(where, loaded, largest);
      tsr::store(idx.tile(0, 0, {P, kTop}), where);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            const std::vector<int64_t> order = descendingOrder(&in[0][r * N], N);
            for (int64_t k = 0; k < kTop; ++k)
              out[0][r * kTop + k] = static_cast<float>(order[k]);
          }
        },
}};

TEST(IsaReductions, NcFindIndex8FindsWhereTheLargestValuesAre) {
  expectMatchesOnTrn1AndTrn2("test_isa_nc_find_index8");
}

// NKI's top-k idiom, two rounds: y = x with its 16 largest values replaced by -9; idx[p, k] (u32) = where the
// k-th largest was. Round one gives dst_idx, round two (on round one's result) does not.
const tsr::Registration matchReplace8Kernel{{
    .name = "test_isa_nc_match_replace8",
    .summary = "tsr::isa::nc_match_replace8 with and without dst_idx: knock out each row's 16 largest values",
    .params = {{"P", 32}, {"N", 40}},
    .signature =
        [](const tsr::Params &p) {
          return rowsOf(p, {tsr::output("y", {p["P"], p["N"]}, tsr::f32), tsr::output("idx", {p["P"], kTop}, kU32)});
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y, tsr::Hbm idx) {
      const int64_t P = x.dim(0), N = x.dim(1);
      tsr::Tile loaded = tsr::load(x.tile(0, 0, {P, N}));
      tsr::Tile largest = tsr::ndarray<tsr::f32>({P, kTop});
      tsr::isa::max8(largest, loaded);
      tsr::Tile once = tsr::ndarray<tsr::f32>({P, N});
      tsr::Tile where = tsr::ndarray(kU32, {P, kTop});
      tsr::isa::nc_match_replace8(once, loaded, largest, kReplaced, where);
      tsr::Tile next = tsr::ndarray<tsr::f32>({P, kTop});
      tsr::isa::max8(next, once);
      tsr::Tile twice = tsr::ndarray<tsr::f32>({P, N});
      tsr::isa::nc_match_replace8(twice, once, next, kReplaced);
      tsr::store(y.tile(0, 0, {P, N}), twice);
      tsr::store(idx.tile(0, 0, {P, kTop}), where);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t P = p["P"], N = p["N"];
          for (int64_t r = 0; r < P; ++r) {
            const std::vector<int64_t> order = descendingOrder(&in[0][r * N], N);
            std::copy(&in[0][r * N], &in[0][r * N] + N, &out[0][r * N]);
            for (int64_t k = 0; k < 2 * kTop; ++k)
              out[0][r * N + order[k]] = kReplaced;
            for (int64_t k = 0; k < kTop; ++k)
              out[1][r * kTop + k] = static_cast<float>(order[k]);
          }
        },
}};

TEST(IsaReductions, NcMatchReplace8ReplacesTheMatchesAndGivesTheirIndices) {
  expectMatchesOnTrn1AndTrn2("test_isa_nc_match_replace8");
}

// ---- misuse -------------------------------------------------------------------------------------------------

/// Traces `body` (one [64, 32] f32 input) and expects a tsr::Error at `line` whose message contains `expected`.
template <class F> void expectTraceError(const int &line, const std::string &expected, F body) {
  tessera::Error e = traceError(kernelOf({tsr::input("x", {64, 32}, tsr::f32)}, body));
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
}

TEST(IsaReductions, MisuseIsReportedAtTheKernelLine) {
  int line = 0;
  expectTraceError(line, "tsr::isa::tensor_partition_reduce: dst must be [1, 32]", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({2, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_partition_reduce(d, tsr::op::add, a);
  });
  expectTraceError(line, "op multiply is not a partition reduction: use add or max", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({1, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_partition_reduce(d, tsr::op::multiply, a);
  });
  // The GpSimd engine, the only one that reduces across partitions, cannot read PSUM.
  expectTraceError(line, "tsr::isa::tensor_partition_reduce: data is in PSUM, which the GpSimd engine cannot reach",
                   [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile inPsum = tsr::ndarray(tsr::f32, {64, 32}, isa::MemSpace::Psum);
    tsr::isa::tensor_copy(inPsum, a);
    tsr::Tile d = tsr::ndarray<tsr::f32>({1, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_partition_reduce(d, tsr::op::add, inPsum);
  });
  expectTraceError(line, "tsr::isa::tensor_tensor_scan: data0 is [64, 32] but data1 is [64, 16]", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_tensor_scan(d, a, a.slice(0, 16), 0.0f, tsr::op::multiply, tsr::op::add);
  });
  expectTraceError(line, "initial must be a [64, 1] tile", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::tensor_tensor_scan(d, a, a, a.slice(0, 2), tsr::op::multiply, tsr::op::add);
  });
  expectTraceError(line, "tsr::isa::bn_stats: dst must be [64, 6]", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 4});
    line = __LINE__ + 1;
    tsr::isa::bn_stats(d, a);
  });
  expectTraceError(line, "tsr::isa::bn_aggr: data has 5 elements per partition", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 2});
    line = __LINE__ + 1;
    tsr::isa::bn_aggr(d, a.slice(0, 5));
  });
  expectTraceError(line, "tsr::isa::max8: data has 4 elements per partition; at least 8", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 8});
    line = __LINE__ + 1;
    tsr::isa::max8(d, a.slice(0, 4));
  });
  expectTraceError(line, "tsr::isa::nc_find_index8: dst must be u32 (indices), not f32", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile vals = tsr::ndarray<tsr::f32>({64, 8});
    tsr::isa::max8(vals, a);
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 8});
    line = __LINE__ + 1;
    tsr::isa::nc_find_index8(d, a, vals);
  });
  expectTraceError(line, "tsr::isa::nc_match_replace8: dst_idx must be u32 (indices), not f32", [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 32}));
    tsr::Tile vals = tsr::ndarray<tsr::f32>({64, 8});
    tsr::isa::max8(vals, a);
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 32});
    tsr::Tile indices = tsr::ndarray<tsr::f32>({64, 8});
    line = __LINE__ + 1;
    tsr::isa::nc_match_replace8(d, a, vals, kReplaced, indices);
  });
}

TEST(IsaReductions, BnStatsOverTheTargetsLimitIsAnErrorNamingTheLimit) {
  // 600 elements per partition: over bn_stats_max_elements (512 on trn1 and trn2), which only the target knows.
  tessera::Error e = tsr::dsltest::errorOf(
      [] { (void)driver::runKernel({.kernel = "test_isa_bn_stats", .target = "trn2", .shape = {{"N", 600}}}); });
  EXPECT_NE(std::string(e.what()).find("data has 600 elements per partition; at most 512 (bn_stats_max_elements)"),
            std::string::npos)
      << e.what();
  EXPECT_NE(std::string(e.what()).find("IsaReductionsTest.cpp"), std::string::npos) << e.what();
}

} // namespace
