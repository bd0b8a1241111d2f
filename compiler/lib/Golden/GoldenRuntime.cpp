/// \file
/// The golden model's host functions (GoldenRuntime.h).

#include "GoldenRuntime.h"

#include "tessera/isa/DType.h"
#include "tessera/isa/Gemm.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <bit>

namespace tessera::compiler::golden {
namespace {

using Matrix = StridedMemRefType<float, 2>;

const float *elements(const Matrix &m) { return m.data + m.offset; }
bool rowMajor(const Matrix &m) { return m.strides[1] == 1 && m.strides[0] == m.sizes[1]; }

/// acc[M, N] += a[K, M]^T @ b[K, N] in the DSL's order, for layouts the tile GEMM does not take (never made by
/// tile-to-linalg, which passes fresh row-major operands and an accumulator with unit column stride).
void plainLoop(Matrix &acc, const Matrix &a, const Matrix &b) {
  for (int64_t k = 0; k < a.sizes[0]; ++k)
    for (int64_t m = 0; m < a.sizes[1]; ++m) {
      const float weight = elements(a)[k * a.strides[0] + m * a.strides[1]];
      for (int64_t n = 0; n < b.sizes[1]; ++n) {
        float &out = acc.data[acc.offset + m * acc.strides[0] + n * acc.strides[1]];
        const float product = weight * elements(b)[k * b.strides[0] + n * b.strides[1]];
        out = out + product;
      }
    }
}

} // namespace

extern "C" void _mlir_ciface_tessera_golden_matmul(Matrix *acc, Matrix *a, Matrix *b, int32_t aType,
                                                   int32_t bType) {
  const int64_t k = a->sizes[0], m = a->sizes[1], n = b->sizes[1];
  if (acc->strides[1] != 1 || !rowMajor(*a) || !rowMajor(*b)) return plainLoop(*acc, *a, *b);
  const bool exact = isa::productsExact(static_cast<isa::DType>(aType), isa::rangeOf(elements(*a), k * m),
                                        static_cast<isa::DType>(bType), isa::rangeOf(elements(*b), k * n));
  isa::accumulateProducts(acc->data + acc->offset, acc->strides[0], elements(*a), elements(*b), k, m, n, exact);
}

void *goldenMatmulAddress() { return reinterpret_cast<void *>(&_mlir_ciface_tessera_golden_matmul); }

extern "C" float tessera_truncsfbf2(float x) {
  const auto bits = std::bit_cast<uint32_t>(x);
  uint32_t bf16 = 0;
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    bf16 = (bits >> 16) | 0x40u; // NaN: quiet, sign and payload's top kept
  else
    bf16 = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16; // to nearest even (overflow rounds to infinity)
  return std::bit_cast<float>(bf16 & 0xffffu);
}

} // namespace tessera::compiler::golden
