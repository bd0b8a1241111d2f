/// \file
/// Elementwise instructions of the Vector, Scalar and GpSimd engines: tensor_tensor, tensor_scalar,
/// scalar_tensor_tensor, reciprocal, and the position-driven ones: iota, affine_select, range_select.

#include "Common.h"
#include "Rules.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>

namespace tessera::isa::instructions {
namespace {

/// Whether the innermost free dimension is walked with unit stride (docs/targets.md "Documented instruction
/// costs": the BF16 tensor_tensor fast path needs contiguous operands).
bool contiguous(const AccessPattern &pattern) {
  return pattern.freeRank == 0 || pattern.strides[pattern.freeRank - 1] == 1;
}

template <typename F>
void elementwise(float *__restrict dst, const float *__restrict a, const float *__restrict b, size_t n, F f) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f(a[i], b[i]);
}

/// dst[i] = a[i] <op> b[i]; the common operations get their own loops so that they vectorise.
void applyAlu(AluOp op, float *__restrict dst, const float *__restrict a, const float *__restrict b, size_t n) {
  switch (op) {
  case AluOp::Add: return elementwise(dst, a, b, n, [](float x, float y) { return x + y; });
  case AluOp::Subtract: return elementwise(dst, a, b, n, [](float x, float y) { return x - y; });
  case AluOp::Multiply: return elementwise(dst, a, b, n, [](float x, float y) { return x * y; });
  case AluOp::Divide: return elementwise(dst, a, b, n, [](float x, float y) { return x / y; });
  default: return elementwise(dst, a, b, n, [op](float x, float y) { return apply(op, x, y); });
  }
}

/// Calls `body(f)` with `f(a, b)` computing `a <op> b` in FP32, as a lambda the compiler can inline for the common
/// operations (their loops vectorise) and through isa::apply for the rest.
template <typename Body> void withAlu(AluOp op, Body &&body) {
  switch (op) {
  case AluOp::Add: return body([](float x, float y) { return x + y; });
  case AluOp::Subtract: return body([](float x, float y) { return x - y; });
  case AluOp::Multiply: return body([](float x, float y) { return x * y; });
  case AluOp::Divide: return body([](float x, float y) { return x / y; });
  default: return body([op](float x, float y) { return apply(op, x, y); });
  }
}

/// x[i] = x[i] <op> s, or s <op> x[i] when `reverse`; Bypass leaves x unchanged (an unused stage).
void applyScalarInPlace(AluOp op, bool reverse, float *__restrict x, size_t n, float s) {
  if (op == AluOp::Bypass)
    return;
  withAlu(op, [&](auto f) {
    if (reverse)
      for (size_t i = 0; i < n; ++i)
        x[i] = f(s, x[i]);
    else
      for (size_t i = 0; i < n; ++i)
        x[i] = f(x[i], s);
  });
}

/// x[i] = x[i] <op> y[i], or y[i] <op> x[i] when `reverse`.
void applyTensorInPlace(AluOp op, bool reverse, float *__restrict x, const float *__restrict y, size_t n) {
  withAlu(op, [&](auto f) {
    if (reverse)
      for (size_t i = 0; i < n; ++i)
        x[i] = f(y[i], x[i]);
    else
      for (size_t i = 0; i < n; ++i)
        x[i] = f(x[i], y[i]);
  });
}


/// The per-partition scalar operand of a stage: row `row` of its [P, 1] tile when it has one, else the immediate.
float scalarOf(const float *tileRows, uint32_t row, float immediate) { return tileRows ? tileRows[row] : immediate; }

/// Loads a present [P, 1] operand into `buffer` and returns its rows; nullptr when absent.
const float *perPartitionRows(std::vector<float> &buffer, const AccessPattern &ap, const Memories &mem) {
  return present(ap) ? rowsOf(buffer, resolve(ap, mem), true) : nullptr;
}

std::string requireSbuf(const char *slot, const AccessPattern &ap) {
  if (ap.space != MemSpace::Sbuf)
    return fmt::format("{} must be in SBUF, not {}", slot, ap.space == MemSpace::Psum ? "PSUM" : "HBM");
  return {};
}

// ---- tensor_tensor ----------------------------------------------------------------------------------------

constexpr OperandDef kTensorTensorOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data1"},
    {"src0", "data1", "SBUF or PSUM"},
    {"src1", "data2", "SBUF or PSUM, same shape as data1"},
};

/// `r`'s elements in `buffer` as rows of `rowElements` floats: an operand with one element per row ([R, 1]) is
/// repeated along the row (a broadcast; expanded in place, last row first), any other is loaded as it is.
const float *broadcastRows(std::vector<float> &buffer, const ResolvedPattern &r, int64_t rowElements) {
  rowsOf(buffer, r, true);
  if (r.rowElements == rowElements)
    return buffer.data();
  buffer.resize(std::max(buffer.size(), static_cast<size_t>(r.rows) * rowElements));
  for (int64_t row = int64_t{r.rows} - 1; row >= 0; --row) {
    const float value = buffer[row];
    std::fill_n(buffer.begin() + row * rowElements, rowElements, value);
  }
  return buffer.data();
}

} // namespace

void tensorTensor(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern lhs = resolve(inst.src0, mem), rhs = resolve(inst.src1, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *a = broadcastRows(s.a, lhs, dst.rowElements);
  const float *b = broadcastRows(s.b, rhs, dst.rowElements);
  float *result = rowsOf(s.c, dst, false);
  applyAlu(inst.alu, result, a, b, static_cast<size_t>(dst.rows) * dst.rowElements);
  scatter(dst, result);
}

namespace {

OperandUse twoSources(const Instruction &) { return {.src0 = true, .src1 = true}; }

std::string verifyTensorTensor(const Instruction &inst, const Target *) {
  if (auto problem = requireSameShape("data1", inst.src0, "data2", inst.src1); !problem.empty())
    return problem;
  return requireSameShape("dst", inst.dst, "data1", inst.src0);
}

/// Per-element cycles of tensor_tensor: N when one operand is in PSUM and the other in SBUF, or when both are
/// contiguous BF16 with add/subtract/multiply; otherwise two_input_factor x N.
uint64_t tensorTensorFactor(const Instruction &inst, const CostModel &cost) {
  const bool psumAndSbuf = (inst.src0.space == MemSpace::Psum && inst.src1.space == MemSpace::Sbuf) ||
                           (inst.src0.space == MemSpace::Sbuf && inst.src1.space == MemSpace::Psum);
  if (psumAndSbuf)
    return 1;
  const bool bothBf16 = inst.src0.dtype == DType::BF16 && inst.src1.dtype == DType::BF16;
  const bool fastAlu = inst.alu == AluOp::Add || inst.alu == AluOp::Subtract || inst.alu == AluOp::Multiply;
  if (bothBf16 && fastAlu && contiguous(inst.src0) && contiguous(inst.src1))
    return 1;
  return cost.twoInputFactor;
}

uint64_t tensorTensorCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t streaming = elementsPerPartition(inst.src0) * tensorTensorFactor(inst, target.cost);
  return streamingInstructionCycles(inst, streaming, engine, target);
}

// ---- tensor_scalar ----------------------------------------------------------------------------------------

constexpr OperandDef kTensorScalarOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data"},
    {"src0", "data", "SBUF or PSUM"},
    {"src1", "operand0", "optional [P, 1] tile, one value per partition (else the operand0 setting)"},
    {"src2", "operand1", "optional [P, 1] tile (else the operand1 setting); only with op1"},
};

} // namespace

void tensorScalar(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  float *x = rowsOf(s.a, src, true);
  const float *operand0 = perPartitionRows(s.b, inst.src1, mem);
  const float *operand1 = perPartitionRows(s.c, inst.src2, mem);
  const auto n = static_cast<size_t>(src.rowElements);
  for (uint32_t row = 0; row < src.rows; ++row) {
    float *values = x + row * n;
    applyScalarInPlace(inst.alu, inst.reverse0, values, n, scalarOf(operand0, row, inst.operand0));
    applyScalarInPlace(inst.alu1, inst.reverse1, values, n, scalarOf(operand1, row, inst.operand1));
  }
  scatter(dst, x);
}

namespace {

std::string verifyTensorScalar(const Instruction &inst, const Target *) {
  const uint32_t rows = inst.src0.partitions;
  if (present(inst.src2) && inst.alu1 == AluOp::Bypass)
    return "operand1 is a tile but op1 is bypass; give op1, or drop operand1";
  return firstProblem({requireSameShape("dst", inst.dst, "data", inst.src0),
                       present(inst.src1) ? requirePerPartition("operand0", inst.src1, rows) : "",
                       present(inst.src2) ? requirePerPartition("operand1", inst.src2, rows) : ""});
}

uint64_t tensorScalarCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

// ---- scalar_tensor_tensor ---------------------------------------------------------------------------------

constexpr OperandDef kScalarTensorTensorOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data"},
    {"src0", "data", "SBUF or PSUM"},
    {"src1", "operand0", "optional [P, 1] tile, one value per partition (else the operand0 setting)"},
    {"src2", "operand1", "SBUF or PSUM, same shape as data; not in PSUM when data is"},
};

/// dst = (data <op0> operand0) <op1> operand1: a per-partition scalar stage, then an elementwise one.
void scalarTensorTensor(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), other = resolve(inst.src2, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  float *x = rowsOf(s.a, src, true);
  const float *operand0 = perPartitionRows(s.b, inst.src1, mem);
  const float *operand1 = rowsOf(s.c, other, true);
  const auto n = static_cast<size_t>(src.rowElements);
  for (uint32_t row = 0; row < src.rows; ++row)
    applyScalarInPlace(inst.alu, inst.reverse0, x + row * n, n, scalarOf(operand0, row, inst.operand0));
  applyTensorInPlace(inst.alu1, inst.reverse1, x, operand1, src.rows * n);
  scatter(dst, x);
}

std::string verifyScalarTensorTensor(const Instruction &inst, const Target *) {
  if (inst.alu1 == AluOp::Bypass)
    return "op1 must be an arithmetic operation, not bypass";
  if (inst.src0.space == MemSpace::Psum && inst.src2.space == MemSpace::Psum)
    return "data and operand1 cannot both be in PSUM";
  return firstProblem({requireSameShape("dst", inst.dst, "data", inst.src0),
                       requireSameShape("operand1", inst.src2, "data", inst.src0),
                       present(inst.src1) ? requirePerPartition("operand0", inst.src1, inst.src0.partitions) : ""});
}

OperandUse scalarTensorTensorUse(const Instruction &inst) {
  return {.src0 = true, .src1 = present(inst.src1), .src2 = true};
}

/// NKI: N cycles when data and operand1 are both BF16, op0 = subtract, op1 = multiply and N is even; else 2N.
uint64_t scalarTensorTensorCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t n = elementsPerPartition(inst.src0);
  const bool fast = inst.src0.dtype == DType::BF16 && inst.src2.dtype == DType::BF16 &&
                    inst.alu == AluOp::Subtract && inst.alu1 == AluOp::Multiply && n % 2 == 0;
  return streamingInstructionCycles(inst, fast ? n : n * target.cost.twoInputFactor, engine, target);
}

// ---- reciprocal -------------------------------------------------------------------------------------------

constexpr OperandDef kReciprocalOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data"},
    {"src0", "data", "SBUF or PSUM"},
};

/// dst = 1 / data in FP32 (the vector engine's full-precision division: 1/0 = inf, 1/-0 = -inf, 1/inf = 0).
void reciprocal(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  float *x = rowsOf(scratch().a, src, true);
  const size_t total = static_cast<size_t>(src.rows) * src.rowElements;
  for (size_t i = 0; i < total; ++i)
    x[i] = 1.0f / x[i];
  scatter(dst, x);
}

OperandUse readsSrc0(const Instruction &) { return {.src0 = true}; }

std::string verifyReciprocal(const Instruction &inst, const Target *) {
  return requireSameShape("dst", inst.dst, "data", inst.src0);
}

uint64_t reciprocalCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t streaming = elementsPerPartition(inst.src0) * target.cost.reciprocalCyclesPerElement;
  return streamingInstructionCycles(inst, streaming, engine, target);
}

// ---- affine patterns: iota, affine_select -----------------------------------------------------------------

/// value(p, i...) = base + partitionStep * p + sum_d steps[d] * i_d over `shape`'s free dimensions, in 32-bit
/// integer arithmetic (wrapping, as NKI's int32 pattern values do), for every element in row-major order.
std::vector<int32_t> &affineValues(const AffinePattern &pattern, const AccessPattern &shape) {
  thread_local std::vector<int32_t> values;
  const int64_t n = shape.freeElements();
  values.resize(static_cast<size_t>(shape.partitions) * n);
  std::array<int64_t, AccessPattern::kMaxFreeDims> index{};
  size_t k = 0;
  for (uint32_t p = 0; p < shape.partitions; ++p) {
    // Unsigned arithmetic wraps modulo 2^64; keeping the low 32 bits gives int32 wrap-around.
    uint64_t rowValue = static_cast<uint64_t>(pattern.base) + static_cast<uint64_t>(pattern.partitionStep) * p;
    index.fill(0);
    uint64_t value = rowValue;
    for (int64_t i = 0; i < n; ++i) {
      values[k++] = static_cast<int32_t>(static_cast<uint32_t>(value));
      // Odometer over the free dimensions, innermost first, updating the value by each step.
      for (int d = static_cast<int>(shape.freeRank) - 1; d >= 0; --d) {
        value += static_cast<uint64_t>(pattern.steps[d]);
        if (++index[d] < shape.sizes[d])
          break;
        value -= static_cast<uint64_t>(pattern.steps[d]) * static_cast<uint64_t>(shape.sizes[d]);
        index[d] = 0;
      }
    }
  }
  return values;
}

/// A pattern step on a free dimension the destination does not have is a mistake, not a no-op.
std::string verifyPatternRank(const Instruction &inst) {
  for (unsigned d = inst.dst.freeRank; d < AccessPattern::kMaxFreeDims; ++d)
    if (inst.pattern.steps[d] != 0)
      return fmt::format("the pattern steps along free dimension {}, but dst has only {}", d, inst.dst.freeRank);
  return {};
}

// ---- iota -------------------------------------------------------------------------------------------------

constexpr OperandDef kIotaOperands[] = {
    {"dst", "dst", "SBUF; any dtype (the int32 values are converted on the way out)"},
};

/// dst[p, i...] = the pattern's int32 value. 32-bit integer destinations get the value exactly (u32 saturates
/// negatives to 0); others get it through FP32 (an assumption: NKI says only that the engine casts the integers).
void iota(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern dst = resolve(inst.dst, mem);
  const std::vector<int32_t> &values = affineValues(inst.pattern, inst.dst);
  forEachElement(dst, [&](std::byte *element, uint32_t row, int64_t index) {
    const int32_t v = values[static_cast<size_t>(row) * dst.rowElements + index];
    if (dst.dtype == DType::I32) {
      std::memcpy(element, &v, sizeof v);
      return;
    }
    if (dst.dtype == DType::U32) {
      const uint32_t u = v < 0 ? 0u : static_cast<uint32_t>(v);
      std::memcpy(element, &u, sizeof u);
      return;
    }
    const auto f = static_cast<float>(v);
    encode(dst.dtype, &f, element, 1);
  });
}

OperandUse writesOnly(const Instruction &) { return {}; }

std::string verifyIota(const Instruction &inst, const Target *) {
  return firstProblem({requireSbuf("dst", inst.dst), verifyPatternRank(inst)});
}

/// Streams N elements per partition: with the GpSimd start-up, NKI's 150 + N, plus the SBUF access overhead.
uint64_t patternCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.dst), engine, target);
}

// ---- affine_select ----------------------------------------------------------------------------------------

constexpr OperandDef kAffineSelectOperands[] = {
    {"dst", "dst", "SBUF, same shape as on_true_tile"},
    {"src0", "on_true_tile", "SBUF"},
};

/// dst = (pattern value <cmp_op> 0) ? on_true_tile : on_false_value. The comparison is exact: an int32
/// converted to FP32 keeps its sign and zero-ness.
void affineSelect(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  float *x = rowsOf(scratch().a, src, true);
  const std::vector<int32_t> &values = affineValues(inst.pattern, inst.dst);
  const float fill = inst.onFalse;
  withAlu(inst.alu, [&](auto compare) {
    for (size_t i = 0; i < values.size(); ++i)
      if (compare(static_cast<float>(values[i]), 0.0f) == 0.0f)
        x[i] = fill;
  });
  scatter(dst, x);
}

std::string verifyAffineSelect(const Instruction &inst, const Target *) {
  if (!isComparison(inst.alu))
    return fmt::format("cmp_op must be a comparison (is_equal, not_equal, is_gt, is_ge, is_lt, is_le), not {}",
                       name(inst.alu));
  return firstProblem({requireSbuf("dst", inst.dst), requireSbuf("on_true_tile", inst.src0),
                       requireSameShape("dst", inst.dst, "on_true_tile", inst.src0), verifyPatternRank(inst)});
}

// ---- range_select -----------------------------------------------------------------------------------------

constexpr OperandDef kRangeSelectOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as on_true_tile"},
    {"dst2", "reduce_res", "optional [P, 1]: the maximum of each partition's selected values (FP32, before dst's "
                           "conversion)"},
    {"src0", "on_true_tile", "SBUF or PSUM, a floating-point dtype"},
    {"src1", "bound0", "[P, 1] f32"},
    {"src2", "bound1", "[P, 1] f32"},
};

/// dst[p, i] = (i + range_start <op0> bound0[p]) and (i + range_start <op1> bound1[p]) ? on_true_tile[p, i]
/// : on_false_value, with i the flat free index and the comparisons in FP32; reduce_res[p] = max over i of
/// dst[p, i] before dst's conversion (so a row of FP32-min fills reduces to FP32-min, as NKI describes).
void rangeSelect(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  float *x = rowsOf(s.a, src, true);
  const float *bound0 = rowsOf(s.b, resolve(inst.src1, mem), true);
  const float *bound1 = rowsOf(s.c, resolve(inst.src2, mem), true);
  const bool reduce = present(inst.dst2);
  float *maxima = reduce ? rowsOf(s.d, resolve(inst.dst2, mem), false) : nullptr;
  const int64_t n = src.rowElements;
  for (uint32_t row = 0; row < src.rows; ++row) {
    float *values = x + static_cast<size_t>(row) * n;
    float rowMax = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      const auto position = static_cast<float>(i + inst.pattern.base);
      const bool inRange = apply(inst.alu, position, bound0[row]) != 0.0f &&
                           apply(inst.alu1, position, bound1[row]) != 0.0f;
      if (!inRange)
        values[i] = inst.onFalse;
      rowMax = apply(AluOp::Max, rowMax, values[i]);
    }
    if (reduce)
      maxima[row] = rowMax;
  }
  scatter(dst, x);
  if (reduce)
    scatter(resolve(inst.dst2, mem), maxima);
}

OperandUse rangeSelectUse(const Instruction &inst) {
  return {.src0 = true, .src1 = true, .src2 = true, .writesDst2 = present(inst.dst2)};
}

bool isRangeComparison(AluOp op) { return isComparison(op) && op != AluOp::NotEqual; }

std::string verifyRangeSelect(const Instruction &inst, const Target *) {
  if (!isRangeComparison(inst.alu) || !isRangeComparison(inst.alu1))
    return fmt::format("comp_op0 and comp_op1 must be is_equal, is_lt, is_le, is_gt or is_ge, not {} and {}",
                       name(inst.alu), name(inst.alu1));
  if (isInteger(inst.src0.dtype))
    return fmt::format("on_true_tile must have a floating-point dtype, not {}", name(inst.src0.dtype));
  if (inst.src1.dtype != DType::F32 || inst.src2.dtype != DType::F32)
    return "bound0 and bound1 must be f32";
  const uint32_t rows = inst.src0.partitions;
  return firstProblem({requireSameShape("dst", inst.dst, "on_true_tile", inst.src0),
                       requirePerPartition("bound0", inst.src1, rows), requirePerPartition("bound1", inst.src2, rows),
                       present(inst.dst2) ? requirePerPartition("reduce_res", inst.dst2, rows) : ""});
}

uint64_t rangeSelectCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

// ---- NKI calls, settings and rules ----------------------------------------------------------------------

/// Whether `ap` reads one element per partition across a wider row (a zero-stride free dimension).
bool broadcasts(const AccessPattern &ap) {
  for (unsigned d = 0; d < ap.freeRank; ++d)
    if (ap.strides[d] == 0 && ap.sizes[d] > 1)
      return true;
  return false;
}

std::string tensorTensorNoBroadcast(const Instruction &inst, Engine, const Target *) {
  if (broadcasts(inst.src0) || broadcasts(inst.src1))
    return "tensor_tensor does not broadcast: an operand reads one element per partition across the row; use "
           "tensor_scalar with the [P, 1] tile as operand0";
  return {};
}

std::string tensorTensorPsumInputs(const Instruction &inst, Engine, const Target *) {
  return inputsNotBothInPsum(inst.src0, inst.src1, "data1", "data2");
}

constexpr Rule kTensorTensorRules[] = {
    kAluTableRule,
    {"tensor_tensor.no-broadcast",
     "NKI ISA reference, nki.isa.tensor_tensor: both inputs have the same partitions and elements per partition; "
     "\"if you need broadcasting ... use tensor_scalar\"",
     tensorTensorNoBroadcast},
    {"tensor_tensor.psum-inputs", "NKI ISA reference, nki.isa.tensor_tensor: data1 and data2 cannot both be in PSUM",
     tensorTensorPsumInputs},
};

void tensorTensorNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("data1", Slot::Src0).operand("data2", Slot::Src1).alu("op", inst.alu).engine();
}

constexpr SettingDef kTensorTensorSettings[] = {{Setting::Alu, "op"}};

/// The Scalar engine's tensor_scalar before NeuronCore-v4 takes (multiply, add), (multiply, none), (add, none).
std::string tensorScalarScalarEngineOps(const Instruction &inst, Engine engine, const Target *target) {
  if (engine != Engine::Scalar || !target || generationAtLeast(*target, "v4"))
    return {};
  const bool supported = (inst.alu == AluOp::Multiply && inst.alu1 == AluOp::Add) ||
                         (inst.alu == AluOp::Multiply && inst.alu1 == AluOp::Bypass) ||
                         (inst.alu == AluOp::Add && inst.alu1 == AluOp::Bypass);
  if (supported && !inst.reverse0 && !inst.reverse1)
    return {};
  return fmt::format("the scalar engine runs tensor_scalar only as (multiply, add), (multiply) or (add), unreversed, "
                     "before NeuronCore-v4; ({}{}, {}{}) runs on the vector engine",
                     name(inst.alu), inst.reverse0 ? " reversed" : "", name(inst.alu1), inst.reverse1 ? " reversed" : "");
}

constexpr Rule kTensorScalarRules[] = {
    kAluTableRule,
    {"tensor_scalar.scalar-engine-ops",
     "NKI ISA reference, nki.isa.tensor_scalar: \"Scalar Engine on trn2 only supports\" op0 = multiply with op1 = add "
     "or none, and op0 = add with op1 = none (NeuronCore-v4's Scalar engine runs tensor_scalar natively, Trainium3 "
     "architecture guide)",
     tensorScalarScalarEngineOps},
};

void tensorScalarNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("data", Slot::Src0).alu("op0", inst.alu);
  c.operandOr("operand0", Slot::Src1, inst, inst.operand0).flag("reverse0", inst.reverse0);
  if (inst.alu1 != AluOp::Bypass || present(inst.src2)) {
    c.alu("op1", inst.alu1).operandOr("operand1", Slot::Src2, inst, inst.operand1);
    c.flag("reverse1", inst.reverse1);
  }
  c.engine();
}

constexpr SettingDef kTensorScalarSettings[] = {
    {Setting::Alu, "op0"},           {Setting::Operand0, "operand0"}, {Setting::Reverse0, "reverse0"},
    {Setting::Alu1, "op1"},          {Setting::Operand1, "operand1"}, {Setting::Reverse1, "reverse1"},
};

void scalarTensorTensorNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("data", Slot::Src0).alu("op0", inst.alu);
  c.operandOr("operand0", Slot::Src1, inst, inst.operand0).alu("op1", inst.alu1).operand("operand1", Slot::Src2);
  c.flag("reverse0", inst.reverse0).flag("reverse1", inst.reverse1);
}

constexpr SettingDef kScalarTensorTensorSettings[] = {
    {Setting::Alu, "op0"}, {Setting::Operand0, "operand0"}, {Setting::Alu1, "op1"},
    {Setting::Reverse0, "reverse0"}, {Setting::Reverse1, "reverse1"},
};

constexpr Rule kAluRules[] = {kAluTableRule};

void reciprocalNki(const Instruction &, NkiCall &c) { c.operand("dst", Slot::Dst).operand("data", Slot::Src0); }

/// NKI's access pattern of an affine pattern over dst's free dimensions: [[step, size], ...], outermost first.
std::string nkiPattern(const Instruction &inst) {
  std::string pairs;
  for (unsigned d = 0; d < std::max<unsigned>(inst.dst.freeRank, 1); ++d)
    pairs += fmt::format("{}[{}, {}]", d == 0 ? "" : ", ", inst.pattern.steps[d],
                         inst.dst.freeRank == 0 ? 1 : inst.dst.sizes[d]);
  return "[" + pairs + "]";
}

void iotaNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).code("pattern", nkiPattern(inst)).integer("offset", inst.pattern.base);
  c.integer("channel_multiplier", inst.pattern.partitionStep);
}

constexpr SettingDef kIotaSettings[] = {{Setting::Pattern, "pattern, offset, channel_multiplier"}};

void affineSelectNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).code("pattern", nkiPattern(inst));
  c.integer("channel_multiplier", inst.pattern.partitionStep).operand("on_true_tile", Slot::Src0);
  c.real("on_false_value", inst.onFalse).alu("cmp_op", inst.alu).integer("offset", inst.pattern.base);
}

constexpr SettingDef kAffineSelectSettings[] = {{Setting::Alu, "cmp_op"},
                                                {Setting::OnFalse, "on_false_value"},
                                                {Setting::Pattern, "pattern, offset, channel_multiplier"}};

void rangeSelectNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("on_true_tile", Slot::Src0).alu("comp_op0", inst.alu);
  c.alu("comp_op1", inst.alu1).operand("bound0", Slot::Src1).operand("bound1", Slot::Src2);
  if (present(inst.dst2))
    c.operand("reduce_res", Slot::Dst2);
  c.integer("range_start", inst.pattern.base).real("on_false_value", inst.onFalse);
}

/// range_select's on_false_value is FP32's lowest value: a hardware constraint NKI states.
std::string rangeSelectOnFalse(const Instruction &inst, Engine, const Target *) {
  if (inst.onFalse == std::numeric_limits<float>::lowest())
    return {};
  return fmt::format("on_false_value must be FP32's lowest value, -3.4028235e+38 (a hardware constraint), not {}",
                     inst.onFalse);
}

constexpr Rule kRangeSelectRules[] = {
    {"range_select.on-false-value",
     "NKI ISA reference, nki.isa.range_select: on_false_value \"must be FP32_MIN\" (a hardware constraint)",
     rangeSelectOnFalse},
};

constexpr SettingDef kRangeSelectSettings[] = {{Setting::Alu, "comp_op0"},
                                               {Setting::Alu1, "comp_op1"},
                                               {Setting::OnFalse, "on_false_value"},
                                               {Setting::Pattern, "range_start"}};

const InstructionDef kDefinitions[] = {
    {.op = Opcode::TensorTensor,
     .name = "tensor_tensor",
     .nki = "nki.isa.tensor_tensor",
     .summary = "dst = data1 <op> data2, elementwise",
     .engines = {Engine::Vector, Engine::GpSimd},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kTensorTensorOperands,
     .limits = "all three the same shape; no broadcast (a [P, 1] operand is tensor_scalar's)",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N x f): f = 1 with one operand in PSUM and one in "
             "SBUF, or both contiguous BF16 with add/subtract/multiply; else f = two_input_factor",
     .use = twoSources,
     .verify = verifyTensorTensor,
     .execute = tensorTensor,
     .cycles = tensorTensorCycles,
     .settings = kTensorTensorSettings,
     .category = Category::Elementwise,
     .flops = flopsPerSourceElement,
     .nkiCall = tensorTensorNki,
     .rules = kTensorTensorRules},
    {.op = Opcode::TensorScalar,
     .name = "tensor_scalar",
     .nki = "nki.isa.tensor_scalar",
     .summary = "dst = (data <op0> operand0) <op1> operand1; operands are immediates or [P, 1] tiles, each stage "
                "reversible (reverse0/reverse1: operand <op> x); op1 = bypass skips the second stage",
     .engines = {Engine::Vector, Engine::Scalar},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kTensorScalarOperands,
     .limits = "dst has data's shape; tile operands are [P, 1]. Arithmetic operators only (NKI's bitvec operators "
               "are not modelled). On the vector or scalar engine: NKI allows GpSimd only for rsqrt, which Tessera "
               "has no ALU operation for (nki.isa.tensor_scalar, engine)",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N): one input streams at ~N, and one or two "
             "operators cost the same (NKI)",
     .use = readsPresentSources,
     .verify = verifyTensorScalar,
     .execute = tensorScalar,
     .cycles = tensorScalarCycles,
     .settings = kTensorScalarSettings,
     .category = Category::Elementwise,
     .flops = twoFlopsPerSourceElement,
     .nkiCall = tensorScalarNki,
     .rules = kTensorScalarRules},
    {.op = Opcode::ScalarTensorTensor,
     .name = "scalar_tensor_tensor",
     .nki = "nki.isa.scalar_tensor_tensor",
     .summary = "dst = (data <op0> operand0) <op1> operand1: operand0 an immediate or [P, 1] tile, operand1 a tile "
                "of data's shape; each stage reversible (reverse0/reverse1)",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kScalarTensorTensorOperands,
     .limits = "dst and operand1 have data's shape; data and operand1 not both in PSUM; op1 is not bypass",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N x f): f = 1 when data and operand1 are both BF16, "
             "op0 = subtract, op1 = multiply and N is even, else f = two_input_factor (NKI: N or 2N)",
     .use = scalarTensorTensorUse,
     .verify = verifyScalarTensorTensor,
     .execute = scalarTensorTensor,
     .cycles = scalarTensorTensorCycles,
     .settings = kScalarTensorTensorSettings,
     .category = Category::Elementwise,
     .flops = twoFlopsPerSourceElement,
     .nkiCall = scalarTensorTensorNki,
     .rules = kAluRules},
    {.op = Opcode::Reciprocal,
     .name = "reciprocal",
     .nki = "nki.isa.reciprocal",
     .summary = "dst = 1 / data, in full FP32 precision (1/0 = inf)",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kReciprocalOperands,
     .limits = "dst has data's shape (the Scalar engine's faster, less precise reciprocal is activation's "
               "reciprocal function)",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, reciprocal_cycles_per_element x N) (NKI: "
             "max(MIN_II, 8N))",
     .use = readsSrc0,
     .verify = verifyReciprocal,
     .execute = reciprocal,
     .cycles = reciprocalCycles,
     .category = Category::Elementwise,
     .flops = flopsPerSourceElement,
     .nkiCall = reciprocalNki},
    {.op = Opcode::Iota,
     .name = "iota",
     .nki = "nki.isa.iota",
     .summary = "dst[p, i...] = offset + channel_multiplier * p + sum_d step_d * i_d, computed in int32 (pattern: "
                "base, partitionStep, steps over dst's free dimensions), converted to dst's dtype",
     .engines = {Engine::GpSimd},
     .preferredEngine = Engine::GpSimd,
     .since = "v2",
     .operands = kIotaOperands,
     .limits = "dst in SBUF; pattern steps only along dst's free dimensions. i32 destinations get the exact int32 "
               "(u32: negatives saturate to 0); other dtypes get it through FP32 (assumption)",
     .cost = "gpsimd_startup_cycles + access_overhead_cycles + max(min_initiation_cycles, N) (NKI: 150 + N, plus the "
             "SBUF access overhead every instruction pays)",
     .use = writesOnly,
     .verify = verifyIota,
     .execute = iota,
     .cycles = patternCycles,
     .settings = kIotaSettings,
     .category = Category::Fill,
     .flops = noFlops,
     .nkiCall = iotaNki},
    {.op = Opcode::AffineSelect,
     .name = "affine_select",
     .nki = "nki.isa.affine_select",
     .summary = "dst = (pattern(p, i...) <cmp_op> 0) ? on_true_tile : on_false_value; the pattern as iota's, in "
                "int32 (a causal mask: pattern = p - i, cmp_op = is_ge)",
     .engines = {Engine::GpSimd},
     .preferredEngine = Engine::GpSimd,
     .since = "v2",
     .operands = kAffineSelectOperands,
     .limits = "dst and on_true_tile in SBUF, same shape; cmp_op a comparison",
     .cost = "gpsimd_startup_cycles + access_overhead_cycles + max(min_initiation_cycles, N) (NKI: GPSIMD_START + N, "
             "plus the access overhead)",
     .use = readsPresentSources,
     .verify = verifyAffineSelect,
     .execute = affineSelect,
     .cycles = patternCycles,
     .settings = kAffineSelectSettings,
     .category = Category::Elementwise,
     .flops = flopsPerSourceElement,
     .nkiCall = affineSelectNki},
    {.op = Opcode::RangeSelect,
     .name = "range_select",
     .nki = "nki.isa.range_select",
     .summary = "dst[p, i] = (i + range_start <op0> bound0[p]) and (i + range_start <op1> bound1[p]) ? "
                "on_true_tile[p, i] : on_false_value, i the flat free index, compared in FP32; reduce_res[p] = max of "
                "dst[p, :] in FP32",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v3",
     .operands = kRangeSelectOperands,
     .limits = "range_start in pattern.base; comparisons is_equal/is_lt/is_le/is_gt/is_ge; "
               "bounds [P, 1] f32; on_true_tile floating-point. reduce_res is reset and reduced by this instruction "
               "alone (assumption: NKI's accumulator carried across instructions, reduce_cmd = reduce, is not "
               "modelled)",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N) (assumption: NKI publishes no cost; one tensor "
             "input streams at ~N)",
     .use = rangeSelectUse,
     .verify = verifyRangeSelect,
     .execute = rangeSelect,
     .cycles = rangeSelectCycles,
     .settings = kRangeSelectSettings,
     .category = Category::Elementwise,
     .flops = flopsPerSourceElement,
     .nkiCall = rangeSelectNki,
     .rules = kRangeSelectRules},
};

} // namespace

std::span<const InstructionDef> elementwiseInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
