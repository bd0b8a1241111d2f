/// \file
/// The tile GEMM (Gemm.h): register-blocked kernels for AVX-512 and AVX2+FMA, picked once per process, and a
/// portable loop for other hosts.
///
/// Blocking: c is walked in blocks of MR rows x NR columns held in vector registers; for each k the block's NR
/// columns of b are loaded once and each of its MR weights a[k, m] is broadcast against them. k is cut into
/// chunks of kKChunk; each chunk's a and b are first packed into panels (a block's NR columns of b, k row after k
/// row; a block's MR rows of a likewise), so the kernel streams both from contiguous memory that stays in L1. The
/// block of c goes back to memory between chunks, which rounds nothing (it is FP32 in registers and in memory).
/// Every element still sees its products k ascending, one rounding after each (or one fused rounding where the
/// product is exact).

#include "tessera/isa/Gemm.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TESSERA_GEMM_X86 1
#endif

namespace tessera::isa {
namespace {

/// Rows of k per chunk: a chunk's panel of NR columns of b (kKChunk * NR floats) and of MR rows of a stay in L1.
constexpr int64_t kKChunk = 256;

/// Panels of `columns` columns of x[kc, width] (rows `width` floats apart): panel p (columns p * columns..) at
/// out + p * kc * columns, k row after k row, zero-padded past the last column.
void packPanels(float *out, const float *x, int64_t kc, int64_t width, int64_t columns) {
  for (int64_t p = 0; p * columns < width; ++p) {
    const int64_t first = p * columns, used = std::min(columns, width - first);
    float *panel = out + p * kc * columns;
    for (int64_t kk = 0; kk < kc; ++kk) {
      std::copy_n(x + kk * width + first, used, panel + kk * columns);
      std::fill_n(panel + kk * columns + used, columns - used, 0.0f);
    }
  }
}

/// Floats of `width` columns packed in panels of `columns`: the padded width times kc.
int64_t paddedWidth(int64_t width, int64_t columns) { return (width + columns - 1) / columns * columns; }

/// The stationary operand's panels of the chunk being multiplied; reused from call to call.
std::vector<float> &stationaryPanels() {
  thread_local std::vector<float> panels;
  return panels;
}

/// Significant bits of a value decoded from `t` (24 for FP32 and the 32-bit integers, whose decoded floats may use
/// them all).
int significandBits(DType t) {
  switch (t) {
  case DType::BF16: return 8;
  case DType::F16: return 11;
  case DType::F8E4M3: return 4;
  case DType::F8E5M2: return 3;
  case DType::U8:
  case DType::I8: return 8;
  case DType::I16:
  case DType::U16: return 16;
  case DType::F32:
  case DType::I32:
  case DType::U32: return 24;
  }
  return 24;
}

/// The portable kernel: k outermost so the inner loop streams rows of b and c (it vectorises; built for AVX2 too,
/// both without FMA contraction, so exact whatever the products).
[[gnu::target_clones("avx2", "default")]] void portableKernel(float *__restrict c, int64_t ldc,
                                                              const float *__restrict a, const float *__restrict b,
                                                              int64_t k, int64_t m, int64_t n) {
  for (int64_t kk = 0; kk < k; ++kk) {
    const float *__restrict movingRow = b + kk * n;
    for (int64_t mm = 0; mm < m; ++mm) {
      const float weight = a[kk * m + mm];
      float *__restrict out = c + mm * ldc;
      for (int64_t nn = 0; nn < n; ++nn)
        out[nn] += weight * movingRow[nn];
    }
  }
}

#ifdef TESSERA_GEMM_X86

// Each ISA's kernel is the template of GemmKernel.inc compiled under that ISA's target pragma, with V the ISA's
// vector operations.

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace avx512 {
/// AVX-512: 16 lanes; a block is up to 8 rows x 2 vectors (32 columns): 16 accumulators of 32 registers.
struct V {
  using Vec = __m512;
  using Mask = __mmask16;
  static constexpr int kLanes = 16, kMaxRows = 8;
  static Mask mask(int64_t columns) {
    return columns >= kLanes ? Mask(0xffff) : columns <= 0 ? Mask(0) : Mask((1u << columns) - 1);
  }
  static Vec load(const float *p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float *p, Vec v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  static Vec loadFull(const float *p) { return _mm512_loadu_ps(p); }
  static void storeFull(float *p, Vec v) { _mm512_storeu_ps(p, v); }
  static Vec broadcast(const float *p) { return _mm512_set1_ps(*p); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static Vec mulAdd(Vec a, Vec b, Vec c) { return _mm512_add_ps(c, _mm512_mul_ps(a, b)); }
};
#include "GemmKernel.inc"
} // namespace avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
/// AVX2 + FMA: 8 lanes; a block is up to 6 rows x 2 vectors (16 columns): 12 accumulators of 16 registers.
struct V {
  using Vec = __m256;
  using Mask = __m256i;
  static constexpr int kLanes = 8, kMaxRows = 6;
  static Mask mask(int64_t columns) {
    const int c = int(std::clamp<int64_t>(columns, 0, kLanes));
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(c), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Vec load(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void store(float *p, Vec v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  static Vec loadFull(const float *p) { return _mm256_loadu_ps(p); }
  static void storeFull(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  static Vec broadcast(const float *p) { return _mm256_broadcast_ss(p); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  static Vec mulAdd(Vec a, Vec b, Vec c) { return _mm256_add_ps(c, _mm256_mul_ps(a, b)); }
};
#include "GemmKernel.inc"
} // namespace avx2
#pragma GCC pop_options

#endif // TESSERA_GEMM_X86

enum class Kernel { Avx512, Avx2, Portable };

Kernel hostKernel() {
#ifdef TESSERA_GEMM_X86
  static const Kernel kernel = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
      return Kernel::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return Kernel::Avx2;
    return Kernel::Portable;
  }();
  return kernel;
#else
  return Kernel::Portable;
#endif
}

} // namespace

namespace {

/// The largest |x| and the smallest non-zero |x| of `values`, as bit patterns without the sign (ordered like the
/// magnitudes; Inf and NaN are the patterns from 0x7f800000 up). |x| - 1 wraps zero round to the largest pattern,
/// so one unsigned min finds the smallest non-zero one: branch-free, and built for AVX-512 and AVX2, as this runs
/// over both operands of every matmul.
[[gnu::target_clones("avx512f", "avx2", "default")]] void magnitudeBounds(const float *values, size_t count,
                                                                         uint32_t &maxBits, uint32_t &minBitsLess1) {
  uint32_t hi = 0, lo = 0xffffffffu;
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    bits &= 0x7fffffffu;
    hi = std::max(hi, bits);
    lo = std::min(lo, bits - 1u);
  }
  maxBits = hi;
  minBitsLess1 = lo;
}

} // namespace

OperandRange rangeOf(const float *values, size_t count) {
  uint32_t maxBits = 0, minBitsLess1 = 0xffffffffu;
  magnitudeBounds(values, count, maxBits, minBitsLess1);
  OperandRange r;
  r.finite = maxBits < 0x7f800000u;
  std::memcpy(&r.maxAbs, &maxBits, sizeof maxBits);
  if (minBitsLess1 != 0xffffffffu) {
    const uint32_t minBits = minBitsLess1 + 1u;
    std::memcpy(&r.minNonZeroAbs, &minBits, sizeof minBits);
  }
  return r;
}

bool productsExact(DType ta, const OperandRange &a, DType tb, const OperandRange &b) {
  if (significandBits(ta) + significandBits(tb) > 24 || !a.finite || !b.finite)
    return false;
  if (a.maxAbs == 0.0f || b.maxAbs == 0.0f)
    return true; // every product is zero
  // In double, both products are exact: the largest must stay finite in FP32, the smallest non-zero one normal.
  return double(a.maxAbs) * double(b.maxAbs) <= double(FLT_MAX) &&
         double(a.minNonZeroAbs) * double(b.minNonZeroAbs) >= double(FLT_MIN);
}

namespace {

/// The columns of b's panels for the host's kernel: two vectors; the portable kernel reads b row-major, one panel
/// of all its columns.
int64_t panelColumns(int64_t n) {
  switch (hostKernel()) {
#ifdef TESSERA_GEMM_X86
  case Kernel::Avx512: return avx512::kBlockColumns;
  case Kernel::Avx2: return avx2::kBlockColumns;
#endif
  default: return std::max<int64_t>(n, 1);
  }
}

} // namespace

void pack(PackedOperand &packed, const float *b, int64_t k, int64_t n) {
  const int64_t columns = panelColumns(n), width = paddedWidth(n, columns);
  packed.k = k;
  packed.n = n;
  packed.panels.resize(size_t(width * k));
  for (int64_t k0 = 0; k0 < k; k0 += kKChunk) {
    const int64_t kc = std::min(k, k0 + kKChunk) - k0;
    packPanels(packed.panels.data() + k0 * width, b + k0 * n, kc, n, columns);
  }
}

void accumulateProducts(float *c, int64_t ldc, const float *a, const PackedOperand &b, int64_t m,
                        bool exactProducts) {
  const int64_t k = b.k, n = b.n;
  const float *packed = b.panels.data();
  switch (hostKernel()) {
#ifdef TESSERA_GEMM_X86
  case Kernel::Avx512:
    return exactProducts ? avx512::kernel<true>(c, ldc, a, packed, k, m, n)
                         : avx512::kernel<false>(c, ldc, a, packed, k, m, n);
  case Kernel::Avx2:
    return exactProducts ? avx2::kernel<true>(c, ldc, a, packed, k, m, n)
                         : avx2::kernel<false>(c, ldc, a, packed, k, m, n);
#endif
  default: return portableKernel(c, ldc, a, packed, k, m, n);
  }
}

void accumulateProducts(float *c, int64_t ldc, const float *a, const float *b, int64_t k, int64_t m, int64_t n,
                        bool exactProducts) {
  thread_local PackedOperand packed;
  pack(packed, b, k, n);
  accumulateProducts(c, ldc, a, packed, m, exactProducts);
}

const char *gemmKernelName() {
  switch (hostKernel()) {
  case Kernel::Avx512: return "avx512";
  case Kernel::Avx2: return "avx2";
  case Kernel::Portable: return "portable";
  }
  return "portable";
}

} // namespace tessera::isa
