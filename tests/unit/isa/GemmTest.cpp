/// \file
/// The tile GEMM (tessera/isa/Gemm.h): the host's register-blocked kernel gives the bits of a plain
/// c = c + a * b loop, k ascending, for every shape (block edges, k chunks), for products that are exact (where it
/// uses FMA) and for those that are not (where FMA would differ); and productsExact() tells them apart.

#include "tessera/isa/Gemm.h"
#include "tessera/isa/NumberFormats.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <random>
#include <vector>

namespace tessera::isa {
namespace {

/// The order of operations every path must reproduce: one rounding after the product, one after the sum.
void referenceGemm(std::vector<float> &c, const std::vector<float> &a, const std::vector<float> &b, int64_t k,
                   int64_t m, int64_t n) {
  for (int64_t mm = 0; mm < m; ++mm)
    for (int64_t nn = 0; nn < n; ++nn) {
      float acc = c[mm * n + nn];
      for (int64_t kk = 0; kk < k; ++kk) {
        volatile float product = a[kk * m + mm] * b[kk * n + nn]; // volatile: never fused into an FMA
        acc = acc + product;
      }
      c[mm * n + nn] = acc;
    }
}

std::vector<float> randomValues(size_t count, std::mt19937 &rng, bool roundToBf16) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(count);
  for (float &x : v)
    x = roundToBf16 ? roundTo(DType::BF16, normal(rng)) : normal(rng);
  return v;
}

::testing::AssertionResult sameBits(const std::vector<float> &expected, const std::vector<float> &actual) {
  for (size_t i = 0; i < expected.size(); ++i)
    if (std::bit_cast<uint32_t>(expected[i]) != std::bit_cast<uint32_t>(actual[i]))
      return ::testing::AssertionFailure() << "element " << i << ": expected " << expected[i] << " (0x" << std::hex
                                           << std::bit_cast<uint32_t>(expected[i]) << "), got " << actual[i]
                                           << " (0x" << std::bit_cast<uint32_t>(actual[i]) << ")";
  return ::testing::AssertionSuccess();
}

/// Runs the kernel and the reference on the same random operands and compares every bit.
void checkShape(int64_t k, int64_t m, int64_t n, bool bf16Operands, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<float> a = randomValues(size_t(k * m), rng, bf16Operands);
  const std::vector<float> b = randomValues(size_t(k * n), rng, bf16Operands);
  std::vector<float> expected = randomValues(size_t(m * n), rng, false), actual = expected;
  const DType t = bf16Operands ? DType::BF16 : DType::F32;
  const bool exact = productsExact(t, rangeOf(a.data(), a.size()), t, rangeOf(b.data(), b.size()));
  EXPECT_EQ(exact, bf16Operands);
  referenceGemm(expected, a, b, k, m, n);
  accumulateProducts(actual.data(), n, a.data(), b.data(), k, m, n, exact);
  EXPECT_TRUE(sameBits(expected, actual)) << "k=" << k << " m=" << m << " n=" << n << " bf16=" << bf16Operands
                                          << " kernel " << gemmKernelName();
}

TEST(GemmTest, EveryShapeGivesThePlainLoopsBits) {
  // Rows around the register blocks (6 and 8), columns around 16 and 32 and their multiples, k across a chunk.
  for (int64_t m : {1, 5, 6, 7, 8, 9, 13, 128})
    for (int64_t n : {1, 15, 16, 17, 31, 32, 33, 70, 512})
      for (int64_t k : {1, 3, 128, 300})
        for (bool bf16 : {true, false})
          checkShape(k, m, n, bf16, uint32_t(m * 7919 + n * 131 + k));
}

TEST(GemmTest, RowsApartUpdateOnlyTheirColumns) {
  // c's rows 40 floats apart (a PSUM tile inside wider partitions): the 33 columns change, the padding does not.
  const int64_t k = 9, m = 11, n = 33, ldc = 40;
  std::mt19937 rng(5);
  const std::vector<float> a = randomValues(size_t(k * m), rng, true), b = randomValues(size_t(k * n), rng, true);
  std::vector<float> packed = randomValues(size_t(m * n), rng, false), wide(size_t(m * ldc), 7.0f);
  for (int64_t r = 0; r < m; ++r)
    std::copy_n(packed.begin() + r * n, n, wide.begin() + r * ldc);
  referenceGemm(packed, a, b, k, m, n);
  accumulateProducts(wide.data(), ldc, a.data(), b.data(), k, m, n, /*exactProducts=*/true);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t col = 0; col < ldc; ++col) {
      const float expected = col < n ? packed[r * n + col] : 7.0f;
      EXPECT_EQ(std::bit_cast<uint32_t>(wide[r * ldc + col]), std::bit_cast<uint32_t>(expected)) << r << "," << col;
    }
}

TEST(GemmTest, Fp32ProductsAreNotFused) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 on its own; fused with c = -(1 + 2^-11) it leaves 2^-24.
  const float x = 1.0f + 0x1p-12f, c0 = -(1.0f + 0x1p-11f);
  volatile float square = x * x;
  ASSERT_NE(std::fma(x, x, c0), c0 + square);
  const std::vector<float> a(1, x), b(1, x);
  EXPECT_FALSE(productsExact(DType::F32, rangeOf(a.data(), 1), DType::F32, rangeOf(b.data(), 1)));
  std::vector<float> c(1, c0);
  accumulateProducts(c.data(), 1, a.data(), b.data(), 1, 1, 1, /*exactProducts=*/false);
  EXPECT_EQ(c[0], 0.0f);
  // Wide enough to reach the vector kernel, not only a scalar edge.
  const std::vector<float> wideA(8, x), wideB(8 * 32, x);
  std::vector<float> wideC(8 * 32, c0);
  accumulateProducts(wideC.data(), 32, wideA.data(), wideB.data(), 1, 8, 32, false);
  for (float v : wideC)
    EXPECT_EQ(v, 0.0f);
}

TEST(GemmTest, OverflowingBf16ProductsAreNotExact) {
  // 2^64 * 2^64 = 2^128 overflows FP32: alone it is Inf, fused with c = -1.5 * 2^127 it would be 2^126.
  const float big = 0x1p64f, c0 = -1.5f * 0x1p127f;
  const std::vector<float> a(8, big), b(8 * 32, big);
  EXPECT_FALSE(productsExact(DType::BF16, rangeOf(a.data(), a.size()), DType::BF16, rangeOf(b.data(), b.size())));
  std::vector<float> c(8 * 32, c0);
  accumulateProducts(c.data(), 32, a.data(), b.data(), 1, 8, 32,
                     productsExact(DType::BF16, rangeOf(a.data(), a.size()), DType::BF16,
                                   rangeOf(b.data(), b.size())));
  for (float v : c)
    EXPECT_TRUE(std::isinf(v) && v > 0);
}

TEST(GemmTest, UnderflowingBf16ProductsAreNotExact) {
  // 2^-75 * (1 + 2^-7) 2^-74 = 2^-149 + 2^-156 is below FP32's normal range: alone it rounds to 2^-149, and
  // 2^-125 + 2^-149 is a tie that goes to 2^-125; fused, the 2^-156 tips it up to 2^-125 + 2^-148.
  const float x = 0x1p-75f, y = 0x1.02p-74f, c0 = 0x1p-125f;
  ASSERT_EQ(roundTo(DType::BF16, y), y);
  volatile float product = x * y;
  const float separate = c0 + product;
  ASSERT_NE(std::fma(x, y, c0), separate);
  const std::vector<float> a(8, x), b(8 * 32, y);
  const bool exact =
      productsExact(DType::BF16, rangeOf(a.data(), a.size()), DType::BF16, rangeOf(b.data(), b.size()));
  EXPECT_FALSE(exact);
  std::vector<float> c(8 * 32, c0);
  accumulateProducts(c.data(), 32, a.data(), b.data(), 1, 8, 32, exact);
  for (float v : c)
    EXPECT_EQ(v, separate);
}

TEST(GemmTest, ProductsExactRules) {
  const float ordinary[] = {0.5f, -3.0f, 0.0f};
  const OperandRange r = rangeOf(ordinary, 3);
  EXPECT_EQ(r.maxAbs, 3.0f);
  EXPECT_EQ(r.minNonZeroAbs, 0.5f);
  EXPECT_TRUE(r.finite);
  EXPECT_TRUE(productsExact(DType::BF16, r, DType::BF16, r));
  EXPECT_TRUE(productsExact(DType::F16, r, DType::F16, r));    // 11 + 11 bits
  EXPECT_TRUE(productsExact(DType::F8E4M3, r, DType::BF16, r));
  EXPECT_FALSE(productsExact(DType::F32, r, DType::BF16, r));  // 24 + 8 bits
  const float zeros[] = {0.0f, -0.0f};
  const OperandRange z = rangeOf(zeros, 2);
  EXPECT_EQ(z.maxAbs, 0.0f);
  EXPECT_TRUE(productsExact(DType::BF16, z, DType::BF16, r));
  const float withInf[] = {1.0f, INFINITY};
  EXPECT_FALSE(rangeOf(withInf, 2).finite);
  EXPECT_FALSE(productsExact(DType::BF16, rangeOf(withInf, 2), DType::BF16, r));
  const float withNan[] = {NAN};
  EXPECT_FALSE(productsExact(DType::BF16, rangeOf(withNan, 1), DType::BF16, r));
}

} // namespace
} // namespace tessera::isa
