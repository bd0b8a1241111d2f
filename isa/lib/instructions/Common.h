#pragma once
/// \file
/// What the instruction definitions in this folder share (internal to TesseraIsa): reading operands into FP32
/// scratch rows and writing results back, the cost floors every Vector/Scalar/GpSimd instruction pays, and the
/// definition lists each file contributes to the instruction set.
///
/// Element (p, i) of an access pattern lives at
///   on chip: base + (partitionStart + p) * partitionBytes + offset + (sum_d i_d * strides_d) * byteSize(dtype)
///   HBM:     hbm[tensor] + (offset + p * partitionStride + sum_d i_d * strides_d) * byteSize(dtype)
///   VMEM/SMEM: base + offset + (p * partitionStride + sum_d i_d * strides_d) * byteSize(dtype)
/// and the free indices are walked row-major. Operands are assumed in bounds: the simulator checks first.

#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/NumberFormats.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <string>
#include <vector>

namespace tessera::isa::instructions {

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

inline std::byte *baseOf(const AccessPattern &ap, const Memories &mem, int64_t &rowStride) {
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
  case MemSpace::Vmem:
    rowStride = ap.partitionStride * elementBytes;
    return mem.vmem + ap.offset;
  case MemSpace::Smem:
    rowStride = ap.partitionStride * elementBytes;
    return mem.smem + ap.offset;
  }
  return nullptr;
}

inline ResolvedPattern resolve(const AccessPattern &ap, const Memories &mem) {
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

/// Calls `visit(pointer, row, index)` for every element of `r`: rows in order, each row's elements in row-major
/// order (`index` counts from 0 within the row). For instructions that move raw bytes or write integers exactly.
template <typename Visit> void forEachElement(const ResolvedPattern &r, Visit &&visit) {
  for (uint32_t row = 0; row < r.rows; ++row)
    forEachRun(r, row, [&](std::byte *run, int64_t done) {
      for (int64_t j = 0; j < r.runLength; ++j)
        visit(run + j * r.runStride, row, done + j);
    });
}

/// Decodes every element of `r`, row by row, into `out` (rows x rowElements floats).
inline void gather(const ResolvedPattern &r, float *out) {
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
inline void scatter(const ResolvedPattern &r, const float *in) {
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
  std::vector<float> a, b, c, d;
};

inline Scratch &scratch() {
  thread_local Scratch s;
  return s;
}

/// `buffer` resized to hold all of `r`'s elements (growing only), and filled from memory when `load`.
inline float *rowsOf(std::vector<float> &buffer, const ResolvedPattern &r, bool load) {
  const size_t total = static_cast<size_t>(r.rows) * r.rowElements;
  if (buffer.size() < total)
    buffer.resize(total);
  if (load)
    gather(r, buffer.data());
  return buffer.data();
}

/// Elements per partition of `pattern`, as an unsigned count (0 for an absent operand).
inline uint64_t elementsPerPartition(const AccessPattern &pattern) {
  return pattern.partitions == 0 ? 0 : static_cast<uint64_t>(std::max<int64_t>(pattern.freeElements(), 0));
}

/// Whether an optional operand is present.
inline bool present(const AccessPattern &pattern) { return pattern.partitions != 0; }

/// The cycles of Vector/Scalar/GpSimd instruction `inst` that streams `streaming` cycles' worth of elements: the
/// fixed SBUF/PSUM access overhead plus the streaming time (times isa::stridedAccessFactor when an operand's minor
/// stride is over 16 bytes), at least the minimum initiation interval, plus GpSimd's start-up on that engine
/// (docs/targets.md "Documented instruction costs"; docs/memory.md).
uint64_t streamingInstructionCycles(const Instruction &inst, uint64_t streaming, Engine engine, const Target &target);

/// Half of `n`, rounded up: the BF16 fast paths process two elements per cycle.
inline uint64_t half(uint64_t n) { return (n + 1) / 2; }

/// `n / d` rounded up; a divisor of 0 (a figure the target lacks) counts as 1.
inline uint64_t ceilDiv(uint64_t n, uint64_t d) { return d == 0 ? n : (n + d - 1) / d; }

/// Common verify rules; each returns "" when satisfied.
std::string requireOnChip(const char *slot, const AccessPattern &ap);
std::string requireSameShape(const char *a, const AccessPattern &x, const char *b, const AccessPattern &y);
/// `ap` is [partitions, 1] with `partitions` matching `rows` (a per-partition scalar operand).
std::string requirePerPartition(const char *slot, const AccessPattern &ap, uint32_t rows);

/// The first problem among `problems` ("" when none).
inline std::string firstProblem(std::initializer_list<std::string> problems) {
  for (const std::string &problem : problems)
    if (!problem.empty())
      return problem;
  return {};
}

/// The use rule of the many instructions that read their present sources and write dst.
OperandUse readsPresentSources(const Instruction &inst);

// FLOP counts the definitions share (InstructionDef::flops).

/// Data movement, fills and selection compute nothing.
inline uint64_t noFlops(const Instruction &) { return 0; }
/// One operation per element of src0: unary and binary elementwise work, reductions.
inline uint64_t flopsPerSourceElement(const Instruction &inst) {
  return uint64_t{inst.src0.partitions} * elementsPerPartition(inst.src0);
}
/// Two ALU stages per element of src0: tensor_scalar, scalar_tensor_tensor, scans.
inline uint64_t twoFlopsPerSourceElement(const Instruction &inst) { return 2 * flopsPerSourceElement(inst); }
/// One operation per element of dst (a source may be an [R, 1] broadcast).
inline uint64_t flopsPerOutputElement(const Instruction &inst) {
  return uint64_t{inst.dst.partitions} * elementsPerPartition(inst.dst);
}
/// A multiply and an add per (k, m, n) of dst[M, N] (+)= src0[K, M]^T @ src1[K, N].
uint64_t matmulFlops(const Instruction &inst);

// Semantics that a NeuronCore instruction and a TPU one share (each defined beside its NeuronCore instruction).

/// dst[M, N] (+)= src0[K, M]^T @ src1[K, N], accumulated in FP32 (nc_matmul, with FP8 double row over 2K rows;
/// mxu_matmul).
void matmul(const Instruction &inst, const Memories &mem);
/// dst = src0 <alu> src1 elementwise in FP32; a source with one element per row ([R, 1]) is broadcast along the
/// row (tensor_tensor, vpu_binary).
void tensorTensor(const Instruction &inst, const Memories &mem);
/// dst = (src0 <alu> operand0) <alu1> operand1, each stage reversible (reverse0, reverse1), an operand from a [R, 1]
/// tile (src1, src2) or the immediate; alu1 = bypass skips the second stage (tensor_scalar, vpu_binary with a
/// number).
void tensorScalar(const Instruction &inst, const Memories &mem);
/// One value per row: from a [R, 1] tile's rows when `rows` is not null, else `value` for every row.
struct RowValues {
  const float *rows = nullptr;
  float value = 0.0f;
  float of(uint32_t row) const { return rows ? rows[row] : value; }
};
/// x[row, :] = func(x[row, :] * scale of the row + bias of the row), in FP32, in place (activation, vpu_unary).
void activateRows(ActFunc func, float *x, uint32_t rows, int64_t rowElements, const RowValues &scale,
                  const RowValues &bias);
/// dst[r, 0] = reduce_<alu>(src0[r, :]) left to right in FP32, negated when `negate` (tensor_reduce, vpu_reduce).
void tensorReduce(const Instruction &inst, const Memories &mem);
/// dst <- src0 through FP32, converting the dtype (dma_copy, tensor_copy, vpu_convert).
void convertingCopy(const Instruction &inst, const Memories &mem);
/// dst = value, encoded into dst's dtype (memset, vpu_fill).
void fill(const Instruction &inst, const Memories &mem);
/// The address of every element of `r`, rows in order, row-major within each row (byte-exact moves).
std::vector<std::byte *> &elementAddresses(const ResolvedPattern &r);

// The definitions each file of this folder contributes.
std::span<const InstructionDef> dataMovementInstructions();
std::span<const InstructionDef> tensorEngineInstructions();
std::span<const InstructionDef> elementwiseInstructions();
std::span<const InstructionDef> activationInstructions();
std::span<const InstructionDef> reductionInstructions();
std::span<const InstructionDef> gatherInstructions();
std::span<const InstructionDef> shuffleInstructions();
std::span<const InstructionDef> tpuVectorInstructions();
std::span<const InstructionDef> tpuCoreInstructions();

} // namespace tessera::isa::instructions
