/// \file
/// The tensor engine's instructions: nc_matmul.

#include "Common.h"

#include <fmt/format.h>

namespace tessera::isa::instructions {
namespace {

// ---- nc_matmul --------------------------------------------------------------------------------------------

constexpr OperandDef kMatmulOperands[] = {
    {"dst", "dst", "PSUM, f32, [M, N]"},
    {"src0", "stationary", "SBUF, [K, M]"},
    {"src1", "moving", "SBUF, [K, N]"},
};

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

OperandUse matmulUse(const Instruction &inst) { return {.src0 = true, .src1 = true, .readsDst = inst.accumulate}; }

std::string verifyMatmul(const Instruction &inst, const Target *target) {
  if (inst.src0.space != MemSpace::Sbuf || inst.src1.space != MemSpace::Sbuf)
    return "stationary and moving must be in SBUF";
  if (inst.dst.space != MemSpace::Psum || inst.dst.dtype != DType::F32)
    return "dst must be an f32 tile in PSUM";
  if (inst.src0.partitions != inst.src1.partitions)
    return fmt::format("stationary and moving must share the contraction (partition) dimension, not {} and {}",
                       inst.src0.partitions, inst.src1.partitions);
  if (int64_t{inst.dst.partitions} != inst.src0.freeElements() || inst.dst.freeElements() != inst.src1.freeElements())
    return fmt::format("dst must be [stationary free, moving free] = [{}, {}], not [{}, {}]", inst.src0.freeElements(),
                       inst.src1.freeElements(), inst.dst.partitions, inst.dst.freeElements());
  if (!target)
    return {};
  const TensorEngineSpec &te = target->tensor;
  if (inst.src0.partitions > te.maxContraction)
    return fmt::format("contraction K = {} exceeds {} on {}", inst.src0.partitions, te.maxContraction, target->name);
  if (inst.src0.freeElements() > te.maxStationaryFree)
    return fmt::format("stationary free size M = {} exceeds {} on {}", inst.src0.freeElements(),
                       te.maxStationaryFree, target->name);
  if (inst.src1.freeElements() > te.maxMovingFree)
    return fmt::format("moving free size N = {} exceeds {} on {}", inst.src1.freeElements(), te.maxMovingFree,
                       target->name);
  return {};
}

/// MultiplyMoving's initiation interval: max(N_moving, matmul_min_cycles), times matmul_fp32_factor when either
/// operand is FP32. LoadStationary is not charged: it is assumed hidden behind the previous MultiplyMoving
/// (TARGETS.md: "the next LoadStationary can overlap the current multiply", and it is up to 4x faster).
uint64_t matmulCycles(const Instruction &inst, Engine, const Target &target) {
  const CostModel &cost = target.cost;
  const uint64_t moving = elementsPerPartition(inst.src1);
  const uint64_t interval = std::max<uint64_t>(moving, cost.matmulMinCycles);
  const bool fp32 = inst.src0.dtype == DType::F32 || inst.src1.dtype == DType::F32;
  return fp32 ? interval * cost.matmulFp32Factor : interval;
}

const InstructionDef kDefinitions[] = {
    {.op = Opcode::Matmul,
     .name = "matmul",
     .nki = "nki.isa.nc_matmul",
     .summary = "dst[M, N] (+)= stationary[K, M].T @ moving[K, N], accumulated in FP32 in PSUM",
     .engines = {Engine::Tensor},
     .preferredEngine = Engine::Tensor,
     .since = "v2",
     .operands = kMatmulOperands,
     .limits = "K <= max_contraction, M <= max_stationary_free, N <= max_moving_free; the first matmul of an "
               "accumulation group overwrites, later ones (accumulate) add",
     .cost = "max(N, matmul_min_cycles), times matmul_fp32_factor with an FP32 operand; LoadStationary hidden "
             "behind the previous multiply",
     .use = matmulUse,
     .verify = verifyMatmul,
     .execute = matmul,
     .cycles = matmulCycles},
};

} // namespace

std::span<const InstructionDef> tensorEngineInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
