/// \file
/// The golden model's host functions (GoldenRuntime.h).

#include "GoldenRuntime.h"

#include "tessera/isa/DType.h"
#include "tessera/isa/Gemm.h"
#include "tessera/isa/NumberFormats.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <bit>
#include <cstring>
#include <vector>

namespace tessera::compiler::golden {
namespace {

using Matrix = StridedMemRefType<float, 2>;

/// The f32 values of a [rows, cols] operand as stored (StoredMatrix), row-major in `out`: isa::decode row by row
/// where a row's elements are adjacent, element by element otherwise.
void decodeRowMajor(const StoredMatrix &in, int64_t rows, int64_t cols, std::vector<float> &out) {
  out.resize(static_cast<size_t>(rows * cols));
  const size_t bytes = isa::byteSize(in.type);
  const auto *base = reinterpret_cast<const std::byte *>(in.address);
  for (int64_t r = 0; r < rows; ++r) {
    const std::byte *row = base + (in.offset + r * in.rowStride) * static_cast<int64_t>(bytes);
    float *dst = out.data() + r * cols;
    if (in.colStride == 1) {
      isa::decode(in.type, row, dst, static_cast<size_t>(cols));
      continue;
    }
    for (int64_t c = 0; c < cols; ++c) isa::decode(in.type, row + c * in.colStride * int64_t(bytes), dst + c, 1);
  }
}

/// acc[M, N] += a[K, M]^T @ b[K, N] (a and b row-major) in the DSL's order, for an accumulator whose columns are not
/// adjacent, which the tile GEMM does not take (never made by tile-to-linalg, whose accumulators are tiles or
/// column slices of them).
void plainLoop(Matrix &acc, const float *a, const float *b, int64_t k, int64_t m, int64_t n) {
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t mm = 0; mm < m; ++mm) {
      const float weight = a[kk * m + mm];
      for (int64_t nn = 0; nn < n; ++nn) {
        float &out = acc.data[acc.offset + mm * acc.strides[0] + nn * acc.strides[1]];
        const float product = weight * b[kk * n + nn];
        out = out + product;
      }
    }
}

} // namespace

void matmul(float *acc, int64_t accRowStride, int64_t m, int64_t n, int64_t k, const StoredMatrix &stationary,
            const StoredMatrix &moving) {
  thread_local std::vector<float> a, b; // the operands in f32, kept between calls for their storage
  decodeRowMajor(stationary, k, m, a);
  decodeRowMajor(moving, k, n, b);
  const bool exact = isa::productsExact(stationary.type, isa::rangeOf(a.data(), a.size()), moving.type,
                                        isa::rangeOf(b.data(), b.size()));
  isa::accumulateProducts(acc, accRowStride, a.data(), b.data(), k, m, n, exact);
}

extern "C" void _mlir_ciface_tessera_golden_matmul(Matrix *acc, int64_t k, int64_t sAddress, int64_t sOffset,
                                                   int64_t sRowStride, int64_t sColStride, int32_t sType,
                                                   int64_t mAddress, int64_t mOffset, int64_t mRowStride,
                                                   int64_t mColStride, int32_t mType) {
  const StoredMatrix stationary{sAddress, sOffset, sRowStride, sColStride, static_cast<isa::DType>(sType)},
      moving{mAddress, mOffset, mRowStride, mColStride, static_cast<isa::DType>(mType)};
  const int64_t m = acc->sizes[0], n = acc->sizes[1];
  if (acc->strides[1] == 1) return matmul(acc->data + acc->offset, acc->strides[0], m, n, k, stationary, moving);
  std::vector<float> a, b;
  decodeRowMajor(stationary, k, m, a);
  decodeRowMajor(moving, k, n, b);
  plainLoop(*acc, a.data(), b.data(), k, m, n);
}

void copy(int64_t rows, int64_t columns, const StoredMatrix &destination, const StoredMatrix &source) {
  const auto bytes = static_cast<int64_t>(isa::byteSize(source.type));
  auto *to = reinterpret_cast<std::byte *>(destination.address);
  const auto *from = reinterpret_cast<const std::byte *>(source.address);
  for (int64_t r = 0; r < rows; ++r) {
    std::byte *dst = to + (destination.offset + r * destination.rowStride) * bytes;
    const std::byte *src = from + (source.offset + r * source.rowStride) * bytes;
    if (destination.colStride == 1 && source.colStride == 1) {
      std::memmove(dst, src, static_cast<size_t>(columns * bytes));
      continue;
    }
    for (int64_t c = 0; c < columns; ++c)
      std::memcpy(dst + c * destination.colStride * bytes, src + c * source.colStride * bytes, static_cast<size_t>(bytes));
  }
}

extern "C" void _mlir_ciface_tessera_golden_copy(int64_t rows, int64_t columns, int64_t dAddress, int64_t dOffset,
                                                 int64_t dRowStride, int64_t dColStride, int32_t dType,
                                                 int64_t sAddress, int64_t sOffset, int64_t sRowStride,
                                                 int64_t sColStride, int32_t sType) {
  copy(rows, columns, {dAddress, dOffset, dRowStride, dColStride, static_cast<isa::DType>(dType)},
       {sAddress, sOffset, sRowStride, sColStride, static_cast<isa::DType>(sType)});
}

void *goldenCopyAddress() { return reinterpret_cast<void *>(&_mlir_ciface_tessera_golden_copy); }

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
