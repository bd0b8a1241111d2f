/// \file
/// The reference semantics of every instruction. Each one gathers its operands into FP32 scratch rows (decoding
/// the operand's dtype), computes in FP32 and scatters the result, encoding it into the destination's dtype.
///
/// Element (p, i) of an access pattern lives at
///   on chip: base + (partitionStart + p) * partitionBytes + offset + (sum_d i_d * strides_d) * byteSize(dtype)
///   HBM:     hbm[tensor] + (offset + p * partitionStride + sum_d i_d * strides_d) * byteSize(dtype)
/// and the free indices are walked row-major. Operands are assumed in bounds: the simulator checks first. Max and
/// Min propagate NaN (as numpy and jnp do); reductions fold left to right, in FP32.

#include "tessera/isa/Semantics.h"

#include "tessera/isa/NumberFormats.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <vector>

namespace tessera::isa {
namespace {

/// An access pattern resolved against the memories: where row 0 starts, how far apart rows are, and the free
/// dimensions with byte strides, size-1 dimensions dropped and contiguous neighbours merged. The innermost
/// dimension is a "run": `runLength` elements `runStride` bytes apart.
struct ResolvedPattern {
  DType dtype = DType::F32;
  std::byte *origin = nullptr;  ///< element (0, 0...)
  int64_t rowStride = 0;        ///< bytes between partitions
  uint32_t rows = 0;
  int64_t rowElements = 0;      ///< elements per row
  unsigned outerRank = 0;       ///< free dimensions outside the run
  std::array<int64_t, AccessPattern::kMaxFreeDims> outerSizes{};
  std::array<int64_t, AccessPattern::kMaxFreeDims> outerStrides{}; ///< bytes
  int64_t runLength = 1;
  int64_t runStride = 0;        ///< bytes

  bool runIsContiguous() const { return runStride == byteSize(dtype); }
  /// All rows back to back with no gaps: the whole operand is one contiguous block.
  bool isOneBlock() const {
    return outerRank == 0 && runIsContiguous() && (rows == 1 || rowStride == runLength * runStride);
  }
};

std::byte *baseOf(const AccessPattern &ap, const Memories &mem, int64_t &rowStride) {
  const int64_t elementBytes = byteSize(ap.dtype);
  switch (ap.space) {
  case MemSpace::Hbm:
    rowStride = ap.partitionStride * elementBytes;
    return mem.hbm[ap.tensor] + ap.offset * elementBytes;
  case MemSpace::Sbuf:
    rowStride = static_cast<int64_t>(mem.sbufPartitionBytes);
    return mem.sbuf + ap.partitionStart * mem.sbufPartitionBytes + ap.offset;
  case MemSpace::Psum:
    rowStride = static_cast<int64_t>(mem.psumPartitionBytes);
    return mem.psum + ap.partitionStart * mem.psumPartitionBytes + ap.offset;
  }
  return nullptr;
}

ResolvedPattern resolve(const AccessPattern &ap, const Memories &mem) {
  ResolvedPattern r;
  r.dtype = ap.dtype;
  r.rows = ap.partitions;
  r.origin = baseOf(ap, mem, r.rowStride);
  const int64_t elementBytes = byteSize(ap.dtype);

  // Drop size-1 dimensions, then merge a dimension into its outer neighbour when they are contiguous.
  std::array<int64_t, AccessPattern::kMaxFreeDims> sizes{}, strides{};
  unsigned rank = 0;
  r.rowElements = 1;
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    r.rowElements *= ap.sizes[d];
    if (ap.sizes[d] == 1)
      continue;
    const int64_t strideBytes = ap.strides[d] * elementBytes;
    if (rank > 0 && strides[rank - 1] == strideBytes * ap.sizes[d]) {
      sizes[rank - 1] *= ap.sizes[d];
      strides[rank - 1] = strideBytes;
      continue;
    }
    sizes[rank] = ap.sizes[d];
    strides[rank] = strideBytes;
    ++rank;
  }
  if (rank == 0) {
    r.runLength = 1;
    r.runStride = elementBytes;
    return r;
  }
  r.runLength = sizes[rank - 1];
  r.runStride = strides[rank - 1];
  r.outerRank = rank - 1;
  for (unsigned d = 0; d < r.outerRank; ++d) {
    r.outerSizes[d] = sizes[d];
    r.outerStrides[d] = strides[d];
  }
  return r;
}

/// Calls `visit(pointer, elementsSoFar)` for each run of row `row`, in row-major order.
template <typename Visit> void forEachRun(const ResolvedPattern &r, uint32_t row, Visit &&visit) {
  std::byte *rowStart = r.origin + static_cast<int64_t>(row) * r.rowStride;
  if (r.outerRank == 0) {
    visit(rowStart, 0);
    return;
  }
  std::array<int64_t, AccessPattern::kMaxFreeDims> index{};
  std::byte *run = rowStart;
  for (int64_t done = 0; done < r.rowElements; done += r.runLength) {
    visit(run, done);
    // Odometer over the outer dimensions, innermost first.
    for (int d = static_cast<int>(r.outerRank) - 1; d >= 0; --d) {
      run += r.outerStrides[d];
      if (++index[d] < r.outerSizes[d])
        break;
      run -= r.outerStrides[d] * r.outerSizes[d];
      index[d] = 0;
    }
  }
}

/// Decodes every element of `r`, row by row, into `out` (rows x rowElements floats).
void gather(const ResolvedPattern &r, float *out) {
  const size_t total = static_cast<size_t>(r.rows) * r.rowElements;
  if (r.isOneBlock()) {
    decode(r.dtype, r.origin, out, total);
    return;
  }
  for (uint32_t row = 0; row < r.rows; ++row) {
    float *rowOut = out + static_cast<size_t>(row) * r.rowElements;
    forEachRun(r, row, [&](std::byte *run, int64_t done) {
      if (r.runIsContiguous()) {
        decode(r.dtype, run, rowOut + done, r.runLength);
        return;
      }
      for (int64_t j = 0; j < r.runLength; ++j)
        decode(r.dtype, run + j * r.runStride, rowOut + done + j, 1);
    });
  }
}

/// Encodes `in` (rows x rowElements floats) into every element of `r`.
void scatter(const ResolvedPattern &r, const float *in) {
  const size_t total = static_cast<size_t>(r.rows) * r.rowElements;
  if (r.isOneBlock()) {
    encode(r.dtype, in, r.origin, total);
    return;
  }
  for (uint32_t row = 0; row < r.rows; ++row) {
    const float *rowIn = in + static_cast<size_t>(row) * r.rowElements;
    forEachRun(r, row, [&](std::byte *run, int64_t done) {
      if (r.runIsContiguous()) {
        encode(r.dtype, rowIn + done, run, r.runLength);
        return;
      }
      for (int64_t j = 0; j < r.runLength; ++j)
        encode(r.dtype, rowIn + done + j, run + j * r.runStride, 1);
    });
  }
}

/// FP32 scratch rows, reused from call to call so that steady-state execution allocates nothing.
struct Scratch {
  std::vector<float> a, b, c;
};

Scratch &scratch() {
  thread_local Scratch s;
  return s;
}

/// `buffer` resized to hold all of `r`'s elements (growing only), and filled from memory when `load`.
float *rowsOf(std::vector<float> &buffer, const ResolvedPattern &r, bool load) {
  const size_t total = static_cast<size_t>(r.rows) * r.rowElements;
  if (buffer.size() < total)
    buffer.resize(total);
  if (load)
    gather(r, buffer.data());
  return buffer.data();
}

/// NaN-propagating maximum and minimum (as numpy.maximum/minimum and jnp.maximum/minimum).
inline float maxOf(float a, float b) { return (a > b || std::isnan(a)) ? a : b; }
inline float minOf(float a, float b) { return (a < b || std::isnan(a)) ? a : b; }

template <typename F>
void elementwise(float *__restrict dst, const float *__restrict a, const float *__restrict b, size_t n, F f) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f(a[i], b[i]);
}

void applyAlu(AluOp op, float *__restrict dst, const float *__restrict a, const float *__restrict b, size_t n) {
  switch (op) {
  case AluOp::Add: return elementwise(dst, a, b, n, [](float x, float y) { return x + y; });
  case AluOp::Subtract: return elementwise(dst, a, b, n, [](float x, float y) { return x - y; });
  case AluOp::Multiply: return elementwise(dst, a, b, n, [](float x, float y) { return x * y; });
  case AluOp::Max: return elementwise(dst, a, b, n, maxOf);
  case AluOp::Min: return elementwise(dst, a, b, n, minOf);
  case AluOp::Divide: return elementwise(dst, a, b, n, [](float x, float y) { return x / y; });
  }
}

float reduceRow(AluOp op, const float *row, int64_t n) {
  if (n == 0)
    return 0.0f;
  float acc = row[0];
  for (int64_t i = 1; i < n; ++i) {
    switch (op) {
    case AluOp::Add: acc += row[i]; break;
    case AluOp::Subtract: acc -= row[i]; break;
    case AluOp::Multiply: acc *= row[i]; break;
    case AluOp::Max: acc = maxOf(acc, row[i]); break;
    case AluOp::Min: acc = minOf(acc, row[i]); break;
    case AluOp::Divide: acc /= row[i]; break;
    }
  }
  return acc;
}

/// dst <- src with dtype conversion (DmaCopy, TensorCopy).
void copy(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  assert(static_cast<int64_t>(src.rows) * src.rowElements == static_cast<int64_t>(dst.rows) * dst.rowElements);
  float *values = rowsOf(scratch().a, src, /*load=*/true);
  scatter(dst, values);
}

/// c[M, N] += a[K, M]^T @ b[K, N] in FP32, k outermost so the inner loop streams rows of b and c (it vectorises).
/// Built for AVX2 as well as the baseline, picked at load time; both give the same bits (no FMA contraction).
[[gnu::target_clones("avx2", "default")]] void accumulateProducts(float *__restrict c, const float *__restrict a,
                                                                   const float *__restrict b, int64_t k, int64_t m,
                                                                   int64_t n) {
  for (int64_t kk = 0; kk < k; ++kk) {
    const float *__restrict movingRow = b + kk * n;
    for (int64_t mm = 0; mm < m; ++mm) {
      const float weight = a[kk * m + mm];
      float *__restrict out = c + mm * n;
      for (int64_t nn = 0; nn < n; ++nn)
        out[nn] += weight * movingRow[nn];
    }
  }
}

/// dst[M, N] (+)= stationary[K, M]^T @ moving[K, N], accumulated in FP32.
void matmul(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern stationary = resolve(inst.src0, mem), moving = resolve(inst.src1, mem),
                        dst = resolve(inst.dst, mem);
  const int64_t k = stationary.rows, m = stationary.rowElements, n = moving.rowElements;
  assert(moving.rows == k && dst.rows == m && dst.rowElements == n);
  Scratch &s = scratch();
  const float *a = rowsOf(s.a, stationary, true);
  const float *b = rowsOf(s.b, moving, true);
  float *c = rowsOf(s.c, dst, inst.accumulate);
  if (!inst.accumulate)
    std::fill_n(c, m * n, 0.0f);
  accumulateProducts(c, a, b, k, m, n);
  scatter(dst, c);
}

void tensorTensor(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern lhs = resolve(inst.src0, mem), rhs = resolve(inst.src1, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *a = rowsOf(s.a, lhs, true);
  const float *b = rowsOf(s.b, rhs, true);
  float *result = rowsOf(s.c, dst, false);
  applyAlu(inst.alu, result, a, b, static_cast<size_t>(dst.rows) * dst.rowElements);
  scatter(dst, result);
}

/// Whether an Activation takes its bias from a [P, 1] tile (src1) rather than the `bias` immediate.
bool hasBiasTile(const Instruction &inst) { return inst.src1.partitions != 0; }

template <typename F>
void applyActivation(float *__restrict x, uint32_t rows, int64_t rowElements, float scale, const float *biasOfRow,
                     float bias, F func) {
  for (uint32_t row = 0; row < rows; ++row) {
    const float b = biasOfRow ? biasOfRow[row] : bias;
    float *__restrict values = x + static_cast<size_t>(row) * rowElements;
    for (int64_t i = 0; i < rowElements; ++i)
      values[i] = func(values[i] * scale + b);
  }
}

void activation(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  float *x = rowsOf(s.a, src, true);
  const float *biasOfRow = hasBiasTile(inst) ? rowsOf(s.b, resolve(inst.src1, mem), true) : nullptr;
  switch (inst.func) {
  case ActFunc::Identity:
    applyActivation(x, src.rows, src.rowElements, inst.imm, biasOfRow, inst.bias, [](float v) { return v; });
    break;
  case ActFunc::Exp:
    applyActivation(x, src.rows, src.rowElements, inst.imm, biasOfRow, inst.bias, [](float v) { return std::exp(v); });
    break;
  }
  scatter(dst, x);
}

void tensorReduce(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *x = rowsOf(s.a, src, true);
  float *out = rowsOf(s.b, dst, false);
  for (uint32_t row = 0; row < src.rows; ++row)
    out[row] = reduceRow(inst.alu, x + static_cast<size_t>(row) * src.rowElements, src.rowElements);
  scatter(dst, out);
}

void memset(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern dst = resolve(inst.dst, mem);
  float *values = rowsOf(scratch().a, dst, false);
  std::fill_n(values, static_cast<size_t>(dst.rows) * dst.rowElements, inst.imm);
  scatter(dst, values);
}

} // namespace

void execute(const Instruction &inst, const Memories &mem) {
  switch (inst.op) {
  case Opcode::DmaCopy:
  case Opcode::TensorCopy: return copy(inst, mem);
  case Opcode::Matmul: return matmul(inst, mem);
  case Opcode::TensorTensor: return tensorTensor(inst, mem);
  case Opcode::Activation: return activation(inst, mem);
  case Opcode::TensorReduce: return tensorReduce(inst, mem);
  case Opcode::Memset: return memset(inst, mem);
  case Opcode::Print: return; // the simulator logs the values (readValues)
  }
}

std::vector<float> readValues(const AccessPattern &ap, const Memories &mem) {
  const ResolvedPattern r = resolve(ap, mem);
  std::vector<float> values(static_cast<size_t>(r.rows) * r.rowElements);
  gather(r, values.data());
  return values;
}

} // namespace tessera::isa
