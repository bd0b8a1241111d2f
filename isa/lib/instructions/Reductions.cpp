/// \file
/// Reductions, scans and statistics: tensor_reduce, tensor_partition_reduce, tensor_tensor_scan, bn_stats,
/// bn_aggr, and the top-8 helpers max8, nc_find_index8 and nc_match_replace8.

#include "Common.h"
#include "Rules.h"
#include "tessera/isa/FreePattern.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <numeric>
#include <span>
#include <vector>

namespace tessera::isa::instructions {
namespace {

/// Folds a row left to right with `op`, in FP32.
float reduceRow(AluOp op, const float *row, int64_t n) {
  if (n == 0)
    return 0.0f;
  float acc = row[0];
  for (int64_t i = 1; i < n; ++i)
    acc = apply(op, acc, row[i]);
  return acc;
}

// ---- tensor_reduce ----------------------------------------------------------------------------------------

constexpr OperandDef kTensorReduceOperands[] = {
    {"dst", "dst", "SBUF or PSUM, [P, 1], or [P, G]: data's outer free dimensions kept"},
    {"src0", "data", "SBUF or PSUM, [P, F] (up to 4 free dimensions)"},
};

} // namespace

/// dst[p, g] reduces the g-th run of n = F / G consecutive elements of data (in its access pattern's order): with
/// G = 1 the whole free dimension, else data's innermost dimensions (NKI's axis: the last free ones).
void tensorReduce(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *x = rowsOf(s.a, src, true);
  float *out = rowsOf(s.b, dst, false);
  const int64_t groups = dst.rowElements, n = src.rowElements / groups;
  for (uint32_t row = 0; row < src.rows; ++row)
    for (int64_t g = 0; g < groups; ++g) {
      const float r = reduceRow(inst.alu, x + static_cast<size_t>(row) * src.rowElements + g * n, n);
      out[static_cast<size_t>(row) * groups + g] = inst.negate ? -r : r;
    }
  scatter(dst, out);
}

namespace {

OperandUse readsSrc0(const Instruction &) { return {.src0 = true}; }

/// How many of data's innermost free dimensions (one at least) hold `n` elements together (0: no run of them does).
unsigned innermostDimsOf(const AccessPattern &ap, int64_t n) {
  int64_t elements = 1;
  for (unsigned k = 1; k <= ap.freeRank; ++k) {
    elements *= ap.sizes[ap.freeRank - k];
    if (elements == n) return k;
  }
  return 0;
}

std::string verifyTensorReduce(const Instruction &inst, const Target *) {
  const int64_t groups = inst.dst.freeElements(), elements = inst.src0.freeElements();
  if (groups <= 1) return requirePerPartition("dst", inst.dst, inst.src0.partitions);
  if (inst.dst.partitions != inst.src0.partitions || elements % groups != 0 ||
      innermostDimsOf(inst.src0, elements / groups) == 0)
    return fmt::format("dst is [{}, {}]: data's free dimensions [{}] reduce only over their innermost ones (NKI's "
                       "axis: the last free dimensions), to [{}, 1] or [{}, the outer ones' product]",
                       inst.dst.partitions, groups,
                       fmt::join(std::span(inst.src0.sizes.data(), inst.src0.freeRank), ", "), inst.src0.partitions,
                       inst.src0.partitions);
  return {};
}

uint64_t tensorReduceCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t n = elementsPerPartition(inst.src0);
  const bool fastReduce = inst.src0.dtype == DType::BF16 && (inst.alu == AluOp::Add || inst.alu == AluOp::Max);
  return streamingInstructionCycles(inst, fastReduce ? half(n) : n, engine, target);
}

// ---- tensor_partition_reduce ------------------------------------------------------------------------------

constexpr OperandDef kPartitionReduceOperands[] = {
    {"dst", "dst", "SBUF, [1, F]: one partition"},
    {"src0", "data", "SBUF, [P, F]"},
};

void tensorPartitionReduce(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *x = rowsOf(s.a, src, true);
  float *out = rowsOf(s.b, dst, false);
  const int64_t n = src.rowElements;
  std::copy(x, x + n, out);
  for (uint32_t row = 1; row < src.rows; ++row) {
    const float *values = x + static_cast<size_t>(row) * n;
    for (int64_t i = 0; i < n; ++i)
      out[i] = apply(inst.alu, out[i], values[i]);
  }
  scatter(dst, out);
}

std::string verifyTensorPartitionReduce(const Instruction &inst, const Target *) {
  // Also when no engine is named: GpSimd is its only engine.
  if (inst.src0.space == MemSpace::Psum || inst.dst.space == MemSpace::Psum)
    return fmt::format("{} is in PSUM, which the GpSimd engine cannot reach: use SBUF",
                       inst.src0.space == MemSpace::Psum ? "data" : "dst");
  if (inst.alu != AluOp::Add && inst.alu != AluOp::Max)
    return fmt::format("op {} is not a partition reduction: use add or max", name(inst.alu));
  if (inst.dst.partitions != 1 || inst.dst.freeElements() != inst.src0.freeElements())
    return fmt::format("dst must be [1, {}] (one partition, data's free size), not [{}, {}]",
                       inst.src0.freeElements(), inst.dst.partitions, inst.dst.freeElements());
  return {};
}

/// An assumption (NKI publishes no cost): the GpSimd lanes stream their partitions' F elements in parallel and
/// fold across partitions as they go, so it costs like a one-input instruction of F elements.
uint64_t tensorPartitionReduceCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

// ---- tensor_tensor_scan -----------------------------------------------------------------------------------

constexpr OperandDef kScanOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data0"},
    {"src0", "data0", "SBUF or PSUM; the left operand of op0 (the right with reverse0)"},
    {"src1", "data1", "SBUF or PSUM, same shape as data0 (not both in PSUM); the right operand of op1 (the left "
                      "with reverse1)"},
    {"src2", "initial", "optional [P, 1] tile of initial values (else the initial setting)"},
};

/// Per partition, along the flattened free dimensions:
///   dst[p, i] = (data0[p, i] <op0> prev) <op1> data1[p, i],  prev = dst[p, i-1], or initial for i = 0
/// (NKI's order: data0 is op0's left operand, data1 op1's right; reverse0/reverse1 swap them). The recurrence
/// carries the FP32 result, not its rounding to dst's dtype (an assumption: the engine keeps its state in FP32).
void tensorTensorScan(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern lhs = resolve(inst.src0, mem), rhs = resolve(inst.src1, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *a = rowsOf(s.a, lhs, true);
  const float *b = rowsOf(s.b, rhs, true);
  const float *initial = present(inst.src2) ? rowsOf(s.c, resolve(inst.src2, mem), true) : nullptr;
  float *out = rowsOf(s.d, dst, false);
  const int64_t n = lhs.rowElements;
  for (uint32_t row = 0; row < lhs.rows; ++row) {
    const size_t base = static_cast<size_t>(row) * n;
    float prev = initial ? initial[row] : inst.initial;
    for (int64_t i = 0; i < n; ++i) {
      const float first = inst.reverse0 ? apply(inst.alu, prev, a[base + i]) : apply(inst.alu, a[base + i], prev);
      prev = inst.reverse1 ? apply(inst.alu1, b[base + i], first) : apply(inst.alu1, first, b[base + i]);
      out[base + i] = prev;
    }
  }
  scatter(dst, out);
}

std::string verifyTensorTensorScan(const Instruction &inst, const Target *) {
  if (auto problem = requireSameShape("data0", inst.src0, "data1", inst.src1); !problem.empty())
    return problem;
  if (auto problem = requireSameShape("dst", inst.dst, "data0", inst.src0); !problem.empty())
    return problem;
  if (inst.src0.space == MemSpace::Psum && inst.src1.space == MemSpace::Psum)
    return "data0 and data1 are both in PSUM; at most one of them may be";
  if (present(inst.src2))
    return requirePerPartition("initial", inst.src2, inst.src0.partitions);
  return {};
}

uint64_t tensorTensorScanCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0) * target.cost.scanCyclesPerElement, engine,
                                    target);
}

// ---- bn_stats / bn_aggr -----------------------------------------------------------------------------------
// bn_stats writes, per partition, two (count, mean, M2) triples, M2 being the sum of squared deviations from the
// mean (variance x count): one for the even-indexed elements of the flattened row, one for the odd-indexed ones,
// the layout NKI 0.6's reference gives. bn_aggr folds any number of triples (from one or several bn_stats) with
// Chan et al.'s pairwise update, which is exact in real arithmetic, so splitting a row into chunks and aggregating
// gives the row's mean and population variance.

constexpr unsigned kStatsPerTriple = 3;
constexpr unsigned kBnStatsOutputs = 2 * kStatsPerTriple;
constexpr unsigned kBnAggrOutputs = 2;

/// Count, mean and M2 of x[first], x[first + step], ... (< n), two-pass in FP32; an empty set gives zeros.
void statsOf(const float *x, int64_t n, int64_t first, int64_t step, float *triple) {
  int64_t count = 0;
  float sum = 0.0f;
  for (int64_t i = first; i < n; i += step, ++count)
    sum += x[i];
  const float mean = count > 0 ? sum / static_cast<float>(count) : 0.0f;
  float m2 = 0.0f;
  for (int64_t i = first; i < n; i += step)
    m2 += (x[i] - mean) * (x[i] - mean);
  triple[0] = static_cast<float>(count);
  triple[1] = mean;
  triple[2] = m2;
}

constexpr OperandDef kBnStatsOperands[] = {
    {"dst", "dst", "SBUF or PSUM, [P, 6]: count, mean, M2 of the even elements, then of the odd elements"},
    {"src0", "data", "SBUF or PSUM, [P, N], N <= bn_stats_max_elements"},
};

void bnStats(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *x = rowsOf(s.a, src, true);
  float *out = rowsOf(s.b, dst, false);
  for (uint32_t row = 0; row < src.rows; ++row) {
    const float *values = x + static_cast<size_t>(row) * src.rowElements;
    float *stats = out + static_cast<size_t>(row) * kBnStatsOutputs;
    statsOf(values, src.rowElements, 0, 2, stats);
    statsOf(values, src.rowElements, 1, 2, stats + kStatsPerTriple);
  }
  scatter(dst, out);
}

std::string verifyBnStats(const Instruction &inst, const Target *target) {
  if (inst.dst.partitions != inst.src0.partitions || inst.dst.freeElements() != kBnStatsOutputs)
    return fmt::format("dst must be [{}, {}] (count, mean, M2 of the even and the odd elements), not [{}, {}]",
                       inst.src0.partitions, kBnStatsOutputs, inst.dst.partitions, inst.dst.freeElements());
  const int64_t n = inst.src0.freeElements();
  if (n < 1)
    return "data must have at least one element per partition";
  if (target && n > target->cost.bnStatsMaxElements)
    return fmt::format("data has {} elements per partition; at most {} (bn_stats_max_elements): split the row and "
                       "combine the chunks' statistics with bn_aggr",
                       n, target->cost.bnStatsMaxElements);
  return {};
}

/// An assumption (NKI publishes no cost): one input streamed once, like tensor_reduce.
uint64_t bnStatsCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

constexpr OperandDef kBnAggrOperands[] = {
    {"dst", "dst", "SBUF or PSUM, [P, 2]: mean, then population variance"},
    {"src0", "data", "SBUF or PSUM, [P, 3k]: k (count, mean, M2) triples from bn_stats"},
};

/// Mean and population variance of the triples in `stats` (Chan et al.). Triples with a zero count are skipped;
/// no elements at all give NaN for both (0 / 0).
void aggregate(const float *stats, int64_t triples, float *result) {
  float count = 0.0f, mean = 0.0f, m2 = 0.0f;
  for (int64_t t = 0; t < triples; ++t) {
    const float *triple = stats + t * kStatsPerTriple;
    const float n = triple[0];
    if (n == 0.0f)
      continue;
    const float total = count + n;
    const float delta = triple[1] - mean;
    mean += delta * (n / total);
    m2 += triple[2] + delta * delta * (count * n / total);
    count = total;
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  result[0] = count == 0.0f ? nan : mean;
  result[1] = count == 0.0f ? nan : m2 / count;
}

void bnAggr(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *x = rowsOf(s.a, src, true);
  float *out = rowsOf(s.b, dst, false);
  for (uint32_t row = 0; row < src.rows; ++row)
    aggregate(x + static_cast<size_t>(row) * src.rowElements, src.rowElements / kStatsPerTriple,
              out + static_cast<size_t>(row) * kBnAggrOutputs);
  scatter(dst, out);
}

std::string verifyBnAggr(const Instruction &inst, const Target *) {
  const int64_t n = inst.src0.freeElements();
  if (n < 1 || n % kStatsPerTriple != 0)
    return fmt::format("data has {} elements per partition; it must hold whole (count, mean, M2) triples, a "
                       "positive multiple of 3",
                       n);
  if (inst.dst.partitions != inst.src0.partitions || inst.dst.freeElements() != kBnAggrOutputs)
    return fmt::format("dst must be [{}, 2] (mean, variance), not [{}, {}]", inst.src0.partitions,
                       inst.dst.partitions, inst.dst.freeElements());
  return {};
}

uint64_t bnAggrCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t triples = elementsPerPartition(inst.src0) / kStatsPerTriple;
  return streamingInstructionCycles(inst, triples * target.cost.bnAggrCyclesPerTriple, engine, target);
}

// ---- max8 / nc_find_index8 / nc_match_replace8 ------------------------------------------------------------

constexpr int64_t kTop = 8; ///< the "8" of max8 and friends: part of what the instructions are

/// Whether `a` ranks before `b` in max8's descending order: NaN above everything (an assumption; NKI does not
/// say), then by value.
bool ranksAbove(float a, float b) { return (std::isnan(a) && !std::isnan(b)) || a > b; }

/// Verifies a top-8 instruction's data operand: between `minimum` and the target's limit elements per partition.
std::string requireTopData(const AccessPattern &data, int64_t minimum, const Target *target) {
  const int64_t n = data.freeElements();
  if (n < minimum)
    return fmt::format("data has {} elements per partition; at least {}", n, minimum);
  if (target && n > target->cost.max8MaxElements)
    return fmt::format("data has {} elements per partition; at most {} (max8_max_elements)", n,
                       target->cost.max8MaxElements);
  return {};
}

/// `ap` is [rows, 8].
std::string requireEight(const char *slot, const AccessPattern &ap, uint32_t rows) {
  if (ap.partitions != rows || ap.freeElements() != kTop)
    return fmt::format("{} must be [{}, 8], not [{}, {}]", slot, rows, ap.partitions, ap.freeElements());
  return {};
}

constexpr OperandDef kMax8Operands[] = {
    {"dst", "dst", "SBUF or PSUM, [P, 8]: the 8 largest values, descending"},
    {"src0", "src", "SBUF or PSUM, [P, N], 8 <= N <= max8_max_elements"},
};

void max8(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *x = rowsOf(s.a, src, true);
  float *out = rowsOf(s.b, dst, false);
  const int64_t n = src.rowElements;
  thread_local std::vector<int64_t> order;
  order.resize(static_cast<size_t>(n));
  for (uint32_t row = 0; row < src.rows; ++row) {
    const float *values = x + static_cast<size_t>(row) * n;
    std::iota(order.begin(), order.end(), 0);
    // Equal values keep their order, so the result (e.g. -0 before +0) does not depend on the sort.
    const auto top = order.begin() + std::min(n, kTop);
    std::partial_sort(order.begin(), top, order.end(), [&](int64_t i, int64_t j) {
      if (ranksAbove(values[i], values[j]))
        return true;
      return !ranksAbove(values[j], values[i]) && i < j;
    });
    for (int64_t k = 0; k < kTop; ++k)
      out[static_cast<size_t>(row) * kTop + k] = k < n ? values[order[k]] : -std::numeric_limits<float>::infinity();
  }
  scatter(dst, out);
}

std::string verifyMax8(const Instruction &inst, const Target *target) {
  if (auto problem = requireTopData(inst.src0, kTop, target); !problem.empty())
    return problem;
  return requireEight("dst", inst.dst, inst.src0.partitions);
}

/// An assumption for the three top-8 instructions (NKI publishes no cost): one pass over the data.
uint64_t topEightCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

constexpr OperandDef kFindIndex8Operands[] = {
    {"dst", "dst", "SBUF or PSUM, [P, 8], u32: the index of each value's first occurrence"},
    {"src0", "data", "SBUF or PSUM, [P, N], 8 <= N <= max8_max_elements; indexed flat, row-major"},
    {"src1", "vals", "SBUF or PSUM, [P, 8]: the values to find"},
};

/// Index of the first element of values[0, n) equal (in FP32) to `v`, or -1.
int64_t firstMatch(const float *values, int64_t n, float v) {
  for (int64_t i = 0; i < n; ++i)
    if (values[i] == v)
      return i;
  return -1;
}

/// A value NKI leaves undefined (a value absent from data) is reported as the largest u32, 0xFFFFFFFF (an
/// assumption), which no real index can be; +Inf saturates to it.
void findIndex8(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), vals = resolve(inst.src1, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *x = rowsOf(s.a, src, true);
  const float *wanted = rowsOf(s.b, vals, true);
  float *out = rowsOf(s.c, dst, false);
  for (uint32_t row = 0; row < src.rows; ++row)
    for (int64_t j = 0; j < kTop; ++j) {
      const size_t at = static_cast<size_t>(row) * kTop + j;
      const int64_t index = firstMatch(x + static_cast<size_t>(row) * src.rowElements, src.rowElements, wanted[at]);
      out[at] = index < 0 ? std::numeric_limits<float>::infinity() : static_cast<float>(index);
    }
  scatter(dst, out);
}

std::string verifyFindIndex8(const Instruction &inst, const Target *target) {
  if (auto problem = requireTopData(inst.src0, kTop, target); !problem.empty())
    return problem;
  if (auto problem = requireEight("vals", inst.src1, inst.src0.partitions); !problem.empty())
    return problem;
  if (auto problem = requireEight("dst", inst.dst, inst.src0.partitions); !problem.empty())
    return problem;
  if (inst.dst.dtype != DType::U32)
    return fmt::format("dst must be u32 (indices), not {}", name(inst.dst.dtype));
  return {};
}

constexpr OperandDef kMatchReplace8Operands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data"},
    {"src0", "data", "SBUF or PSUM, [P, N], N <= max8_max_elements; indexed flat, row-major"},
    {"src1", "vals", "SBUF or PSUM, [P, 8]: the values to replace"},
    {"dst2", "dst_idx", "optional, SBUF or PSUM, [P, 8], u32: the index each value matched (0 if none)"},
};

/// NKI's NumPy equivalent, in order: for each of the 8 values, the first element of the row as replaced so far
/// that equals it becomes value and its index is recorded; an absent value replaces nothing and records 0.
void matchReplace8(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), vals = resolve(inst.src1, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  float *x = rowsOf(s.a, src, true);
  const float *wanted = rowsOf(s.b, vals, true);
  const bool withIndices = present(inst.dst2);
  const ResolvedPattern indicesPattern = withIndices ? resolve(inst.dst2, mem) : ResolvedPattern{};
  float *indices = withIndices ? rowsOf(s.c, indicesPattern, false) : nullptr;
  for (uint32_t row = 0; row < src.rows; ++row) {
    float *values = x + static_cast<size_t>(row) * src.rowElements;
    for (int64_t j = 0; j < kTop; ++j) {
      const size_t at = static_cast<size_t>(row) * kTop + j;
      const int64_t index = firstMatch(values, src.rowElements, wanted[at]);
      if (index >= 0)
        values[index] = inst.value;
      if (indices)
        indices[at] = index < 0 ? 0.0f : static_cast<float>(index);
    }
  }
  scatter(dst, x);
  if (withIndices)
    scatter(indicesPattern, indices);
}

OperandUse matchReplace8Use(const Instruction &inst) {
  return {.src0 = true, .src1 = true, .writesDst2 = present(inst.dst2)};
}

std::string verifyMatchReplace8(const Instruction &inst, const Target *target) {
  if (auto problem = requireTopData(inst.src0, 1, target); !problem.empty())
    return problem;
  if (auto problem = requireEight("vals", inst.src1, inst.src0.partitions); !problem.empty())
    return problem;
  if (auto problem = requireSameShape("dst", inst.dst, "data", inst.src0); !problem.empty())
    return problem;
  if (!present(inst.dst2))
    return {};
  if (auto problem = requireEight("dst_idx", inst.dst2, inst.src0.partitions); !problem.empty())
    return problem;
  if (inst.dst2.dtype != DType::U32)
    return fmt::format("dst_idx must be u32 (indices), not {}", name(inst.dst2.dtype));
  return {};
}

OperandUse twoSources(const Instruction &) { return {.src0 = true, .src1 = true}; }

// ---- NKI calls, settings and rules ----------------------------------------------------------------------

/// tensor_reduce(dst, op, data, axis, negate, keepdims): Tessera's operands are [P, F] windows, reduced along F.
/// NKI numbers data's dimensions from 0, the partitions: a whole [P, F] tile reduces axis 1 (keepdims: dst is
/// [P, 1]); data that walks free dimensions [d_1 ... d_k] reduces its last ones, (j, ..., k), into dst shaped as the
/// dimensions kept ([P, d_1 ... d_j-1]; with none kept, keepdims and [P, 1 ... 1]).
void tensorReduceNki(const Instruction &inst, NkiCall &c) {
  const AccessPattern &data = inst.src0;
  const int64_t groups = inst.dst.freeElements();
  const bool contiguous = isContiguous(data);
  const unsigned inner = groups > 1 ? innermostDimsOf(data, data.freeElements() / groups) : data.freeRank;
  if (inner == 0 || (groups <= 1 && (contiguous || data.freeRank <= 1))) { // a backend names data [P, F]
    c.operand("dst", Slot::Dst).alu("op", inst.alu).operand("data", Slot::Src0).integer("axis", 1);
    c.flag("negate", inst.negate).boolean("keepdims", true);
    return;
  }
  std::vector<int64_t> shape{data.partitions}, kept{inst.dst.partitions};
  for (unsigned d = 0; d < data.freeRank; ++d) {
    shape.push_back(data.sizes[d]);
    kept.push_back(d < data.freeRank - inner ? data.sizes[d] : 1);
  }
  const bool keepdims = groups <= 1;
  if (!keepdims) kept.resize(1 + data.freeRank - inner);
  if (kept.size() > 2) c.reshaped("dst", Slot::Dst, kept);
  else c.operand("dst", Slot::Dst);
  c.alu("op", inst.alu);
  // Contiguous data (a backend names it [P, F]) takes its free dimensions' shape.
  if (contiguous) c.reshaped("data", Slot::Src0, shape);
  else c.operand("data", Slot::Src0);
  std::string axes;
  for (unsigned d = data.freeRank - inner + 1; d <= data.freeRank; ++d)
    axes += fmt::format("{}{}", axes.empty() ? "" : ", ", d);
  c.code("axis", inner == 1 ? axes : "(" + axes + ")");
  c.flag("negate", inst.negate);
  if (keepdims) c.boolean("keepdims", true);
}

/// The ALU table's "legal reduction" operations.
std::string tensorReduceOp(const Instruction &inst, Engine, const Target *) {
  switch (inst.alu) {
  case AluOp::Add:
  case AluOp::Subtract:
  case AluOp::Multiply:
  case AluOp::Max:
  case AluOp::Min:
  case AluOp::LogicalAnd:
  case AluOp::LogicalOr: return {};
  default:
    return fmt::format("{} is not a reduction operation (add, subtract, multiply, max, min, logical_and, "
                       "logical_or)",
                       name(inst.alu));
  }
}

constexpr Rule kTensorReduceRules[] = {
    kAluTableRule,
    {"tensor_reduce.op",
     "NKI API reference, Supported Math Operators for NKI ISA (nki.api.shared.rst): the \"Legal Reduction op\" "
     "column; nki.isa.tensor_reduce takes only those",
     tensorReduceOp},
};

constexpr SettingDef kTensorReduceSettings[] = {{Setting::Alu, "op"}, {Setting::Negate, "negate"}};

void partitionReduceNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).alu("op", inst.alu).operand("data", Slot::Src0);
}

constexpr SettingDef kAluSetting[] = {{Setting::Alu, "op"}};

void scanNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("data0", Slot::Src0).operand("data1", Slot::Src1);
  c.operandOr("initial", Slot::Src2, inst, inst.initial).alu("op0", inst.alu).alu("op1", inst.alu1);
  c.flag("reverse0", inst.reverse0).flag("reverse1", inst.reverse1);
}

constexpr SettingDef kScanSettings[] = {{Setting::Alu, "op0"},
                                        {Setting::Alu1, "op1"},
                                        {Setting::Initial, "initial"},
                                        {Setting::Reverse0, "reverse0"},
                                        {Setting::Reverse1, "reverse1"}};

constexpr Rule kAluRules[] = {kAluTableRule};

void dataNki(const Instruction &, NkiCall &c) { c.operand("dst", Slot::Dst).operand("data", Slot::Src0); }

void max8Nki(const Instruction &, NkiCall &c) { c.operand("dst", Slot::Dst).operand("src", Slot::Src0); }

void findIndex8Nki(const Instruction &, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("data", Slot::Src0).operand("vals", Slot::Src1);
}

void matchReplace8Nki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("data", Slot::Src0).operand("vals", Slot::Src1).real("imm", inst.value);
  if (present(inst.dst2))
    c.operand("dst_idx", Slot::Dst2);
}

constexpr SettingDef kMatchReplace8Settings[] = {{Setting::Value, "imm"}};

const InstructionDef kDefinitions[] = {
    {.op = Opcode::TensorReduce,
     .name = "tensor_reduce",
     .nki = "nki.isa.tensor_reduce",
     .summary = "dst[p, 0] = reduce_op(data[p, :]) over the free dimensions, or dst[p, g] over data's innermost "
                "ones (negated with negate)",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kTensorReduceOperands,
     .limits = "dst is [P, 1], or [P, G] reducing data's innermost free dimensions (NKI's axis); on the vector engine only (nki.isa.tensor_reduce: \"using Vector Engine\"); a "
               "legal reduction operation of NKI's ALU table",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N), N/2 for BF16 add/max",
     .use = readsSrc0,
     .verify = verifyTensorReduce,
     .execute = tensorReduce,
     .cycles = tensorReduceCycles,
     .settings = kTensorReduceSettings,
     .category = Category::Reduction,
     .flops = flopsPerSourceElement,
     .nkiCall = tensorReduceNki,
     .rules = kTensorReduceRules},
    {.op = Opcode::TensorPartitionReduce,
     .name = "tensor_partition_reduce",
     .nki = "nki.isa.tensor_partition_reduce",
     .summary = "dst[0, f] = op over p of data[p, f], across partitions",
     .engines = {Engine::GpSimd},
     .preferredEngine = Engine::GpSimd,
     .since = "v2",
     .operands = kPartitionReduceOperands,
     .limits = "op add or max; dst is [1, F] with data's free size; SBUF only (GpSimd)",
     .cost = "gpsimd_startup_cycles + access_overhead_cycles + max(min_initiation_cycles, F) (an assumption: NKI "
             "publishes no cost)",
     .use = readsSrc0,
     .verify = verifyTensorPartitionReduce,
     .execute = tensorPartitionReduce,
     .cycles = tensorPartitionReduceCycles,
     .settings = kAluSetting,
     .category = Category::Reduction,
     .flops = flopsPerSourceElement,
     .nkiCall = partitionReduceNki},
    {.op = Opcode::TensorTensorScan,
     .name = "tensor_tensor_scan",
     .nki = "nki.isa.tensor_tensor_scan",
     .summary = "dst[p, i] = (data0[p, i] <op0> dst[p, i-1]) <op1> data1[p, i], from initial (the setting or a [P, 1] "
                "tile); reverse0/reverse1 swap each operator's operands",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kScanOperands,
     .limits = "data0, data1 and dst the same shape; data0 and data1 not both in PSUM; initial [P, 1]",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, tensor_tensor_scan_cycles_per_element x N)",
     .use = readsPresentSources,
     .verify = verifyTensorTensorScan,
     .execute = tensorTensorScan,
     .cycles = tensorTensorScanCycles,
     .settings = kScanSettings,
     .category = Category::Reduction,
     .flops = twoFlopsPerSourceElement,
     .nkiCall = scanNki,
     .rules = kAluRules},
    {.op = Opcode::BnStats,
     .name = "bn_stats",
     .nki = "nki.isa.bn_stats",
     .summary = "dst[p, 0:6] = (count, mean, M2) of data[p, even indices], then of data[p, odd indices]; M2 = "
                "variance x count (NKI's layout), combined by bn_aggr",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kBnStatsOperands,
     .limits = "1 <= N <= bn_stats_max_elements per partition; dst [P, 6]",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N) (an assumption: NKI publishes no cost)",
     .use = readsSrc0,
     .verify = verifyBnStats,
     .execute = bnStats,
     .cycles = bnStatsCycles,
     .category = Category::Reduction,
     .flops = flopsPerSourceElement,
     .nkiCall = dataNki},
    {.op = Opcode::BnAggr,
     .name = "bn_aggr",
     .nki = "nki.isa.bn_aggr",
     .summary = "dst[p, 0:2] = (mean, population variance) of the (count, mean, M2) triples in data[p, :], "
                "combined with Chan et al.'s parallel update; no elements gives NaN",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kBnAggrOperands,
     .limits = "data's free size a positive multiple of 3; dst [P, 2]",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, bn_aggr_cycles_per_triple x N / 3)",
     .use = readsSrc0,
     .verify = verifyBnAggr,
     .execute = bnAggr,
     .cycles = bnAggrCycles,
     .category = Category::Reduction,
     .flops = flopsPerSourceElement,
     .nkiCall = dataNki},
    {.op = Opcode::Max8,
     .name = "max8",
     .nki = "nki.isa.max8",
     .summary = "dst[p, 0:8] = the 8 largest values of src[p, :], descending (NaN ranks highest, an assumption)",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kMax8Operands,
     .limits = "8 <= N <= max8_max_elements per partition; dst [P, 8]",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N) (an assumption: NKI publishes no cost)",
     .use = readsSrc0,
     .verify = verifyMax8,
     .execute = max8,
     .cycles = topEightCycles,
     .category = Category::Reduction,
     .flops = flopsPerSourceElement,
     .nkiCall = max8Nki},
    {.op = Opcode::FindIndex8,
     .name = "nc_find_index8",
     .nki = "nki.isa.nc_find_index8",
     .summary = "dst[p, j] = index of the first element of data[p, :] equal to vals[p, j]; 0xFFFFFFFF when there is "
                "none (NKI: undefined)",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kFindIndex8Operands,
     .limits = "8 <= N <= max8_max_elements per partition; vals [P, 8]; dst [P, 8] u32",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N) (an assumption: NKI publishes no cost)",
     .use = twoSources,
     .verify = verifyFindIndex8,
     .execute = findIndex8,
     .cycles = topEightCycles,
     .category = Category::Reduction,
     .flops = flopsPerSourceElement,
     .nkiCall = findIndex8Nki},
    {.op = Opcode::MatchReplace8,
     .name = "nc_match_replace8",
     .nki = "nki.isa.nc_match_replace8",
     .summary = "dst = data with the first match of each vals[p, j] (in turn) replaced by value; dst_idx[p, j] = its "
                "index (0 when none)",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kMatchReplace8Operands,
     .limits = "N <= max8_max_elements per partition; vals [P, 8]; dst the shape of data; dst_idx [P, 8] u32",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N) (an assumption: NKI publishes no cost)",
     .use = matchReplace8Use,
     .verify = verifyMatchReplace8,
     .execute = matchReplace8,
     .cycles = topEightCycles,
     .settings = kMatchReplace8Settings,
     .category = Category::Elementwise,
     .flops = flopsPerSourceElement,
     .nkiCall = matchReplace8Nki},
};

} // namespace

std::span<const InstructionDef> reductionInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
