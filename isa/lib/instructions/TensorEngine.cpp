/// \file
/// The tensor engine's instructions: nc_matmul (with FP8 double row and row tiling) and nc_transpose (whose
/// vector-engine form is here too, beside its tensor-engine form).

#include "Common.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/Gemm.h"
#include "tessera/isa/Modes.h"
#include "tessera/isa/PackedOperands.h"

#include <fmt/format.h>

namespace tessera::isa::instructions {
namespace {

// ---- nc_matmul --------------------------------------------------------------------------------------------

constexpr OperandDef kMatmulOperands[] = {
    {"dst", "dst", "PSUM, f32, [M, N]"},
    {"src0", "stationary", "SBUF, [K, M] (FP8 double row: [K, 2, M])"},
    {"src1", "moving", "SBUF, [K, N] (FP8 double row: [K, 2, N])"},
};

/// The matmul's contraction rows and its output shape: K x M stationary, K x N moving, or with FP8 double row
/// 2K x M and 2K x N, since a [K, 2, M] operand read row-major is the [2K, M] matrix whose row 2k + j is (k, j).
struct MatmulShape {
  int64_t k = 0, m = 0, n = 0;
};

MatmulShape matmulShape(const Instruction &inst) {
  const int64_t rowsPerPartition = MatmulMode::decode(inst.mode).doubleRow ? 2 : 1;
  return {.k = int64_t{inst.src0.partitions} * rowsPerPartition,
          .m = inst.src0.freeElements() / rowsPerPartition,
          .n = inst.src1.freeElements() / rowsPerPartition};
}

/// The moving operand `inst.src1` as [k, n], decoded, packed and with its range: kept in `mem.packedOperands` when
/// there is one (and found there when an earlier matmul read the same bytes, unwritten since), else in `own`.
const PackedOperands::Entry &movingOperand(const Instruction &inst, const Memories &mem, int64_t k, int64_t n,
                                           PackedOperands::Entry &own) {
  if (mem.packedOperands)
    if (const PackedOperands::Entry *kept = mem.packedOperands->find(inst.src1, k, n))
      return *kept;
  PackedOperands::Entry &entry = mem.packedOperands ? mem.packedOperands->insert(inst.src1) : own;
  const float *b = rowsOf(scratch().b, resolve(inst.src1, mem), true);
  pack(entry.packed, b, k, n);
  entry.range = rangeOf(b, size_t(k * n));
  return entry;
}

} // namespace

void matmul(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern stationary = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  const auto [k, m, n] = matmulShape(inst);
  assert(dst.rows == m && dst.rowElements == n);
  Scratch &s = scratch();
  const float *a = rowsOf(s.a, stationary, true);
  thread_local PackedOperands::Entry own;
  const PackedOperands::Entry &moving = movingOperand(inst, mem, k, n, own);
  // FMA gives the same bits as a multiply and an add wherever every product is exact (Gemm.h).
  const bool exact = productsExact(inst.src0.dtype, rangeOf(a, size_t(k * m)), inst.src1.dtype, moving.range);
  // An FP32 dst whose rows are each contiguous (a PSUM tile, a VMEM buffer) is accumulated where it lies: no copy
  // in and out.
  const bool inPlace = dst.dtype == DType::F32 && dst.outerRank == 0 && dst.runIsContiguous() &&
                       dst.rowStride % int64_t{sizeof(float)} == 0 &&
                       reinterpret_cast<uintptr_t>(dst.origin) % alignof(float) == 0;
  if (inPlace) {
    float *c = reinterpret_cast<float *>(dst.origin);
    const int64_t ldc = dst.rows > 1 ? dst.rowStride / int64_t{sizeof(float)} : n;
    if (!inst.accumulate)
      for (int64_t row = 0; row < m; ++row)
        std::fill_n(c + row * ldc, n, 0.0f);
    accumulateProducts(c, ldc, a, moving.packed, m, exact);
    return;
  }
  float *c = rowsOf(s.c, dst, inst.accumulate);
  if (!inst.accumulate)
    std::fill_n(c, m * n, 0.0f);
  accumulateProducts(c, n, a, moving.packed, m, exact);
  scatter(dst, c);
}

namespace {

OperandUse matmulUse(const Instruction &inst) { return {.src0 = true, .src1 = true, .readsDst = inst.accumulate}; }

/// A double-row operand [K, 2, X]: an even free size, and when its free dimensions are kept, the first is 2.
std::string requireDoubleRowLayout(const char *slot, const AccessPattern &ap) {
  if (ap.freeElements() % 2 != 0 || (ap.freeRank > 1 && ap.sizes[0] != 2))
    return fmt::format("FP8 double row mode needs {} as [K, 2, X] (first free dimension 2), not {} elements per "
                       "partition{}",
                       slot, ap.freeElements(), ap.freeRank > 1 ? fmt::format(" with first free size {}", ap.sizes[0])
                                                                : std::string{});
  return {};
}

/// dst must stay inside one PSUM bank: an accumulation group lives in one bank (NKI: 8 banks of 2 KiB per
/// partition, one group each). Where one matmul may write more than a bank (tensor_engine.max_moving_free FP32
/// results over a bank: NeuronCore-v4 writes up to all 8), a dst that spans banks starts at a bank boundary
/// (assumption: the groups of the banks it spans start together).
std::string requireOnePsumBank(const AccessPattern &dst, const Target &target) {
  const int64_t bank = static_cast<int64_t>(target.psumBankBytes());
  const auto [first, last] = dst.byteExtent();
  if (bank == 0 || first >= last || first / bank == (last - 1) / bank)
    return {};
  const bool spansBanks = int64_t{target.tensor.maxMovingFree} * 4 > bank;
  if (spansBanks && first % bank == 0)
    return {};
  if (spansBanks)
    return fmt::format("dst bytes [{}, {}) of each partition cross the PSUM bank boundary at byte {} ({} banks of {} "
                       "bytes on {}); a matmul's result that spans banks starts at a bank boundary",
                       first, last, (first / bank + 1) * bank, target.psumBanks, bank, target.name);
  return fmt::format("dst bytes [{}, {}) of each partition cross the PSUM bank boundary at byte {} ({} banks of {} "
                     "bytes on {}); a matmul's result must lie in one bank",
                     first, last, (first / bank + 1) * bank, target.psumBanks, bank, target.name);
}

std::string verifyMatmulMode(const MatmulMode &mode, const Instruction &inst, const Target *target) {
  if (MatmulMode::hasUnknownBits(inst.mode) || mode.rowTilesLog2 > 2)
    return fmt::format("mode {} is not an nc_matmul mode (isa/Modes.h: bits 0-1 row tiling into 1, 2 or 4 tiles, "
                       "bits 2-3 the tile, bit 4 FP8 double row)",
                       inst.mode);
  if (mode.rowTile >= mode.rowTiles())
    return fmt::format("row tile {} does not exist when the PE rows split into {} tile{}", mode.rowTile,
                       mode.rowTiles(), mode.rowTiles() == 1 ? "" : "s");
  if (mode.doubleRow && (!isFp8(inst.src0.dtype) || !isFp8(inst.src1.dtype)))
    return fmt::format("FP8 double row mode needs f8e4m3 or f8e5m2 stationary and moving, not {} and {}",
                       name(inst.src0.dtype), name(inst.src1.dtype));
  if (!target)
    return {};
  const TensorEngineSpec &te = target->tensor;
  if (mode.rowTiles() > te.maxRowTiles)
    return fmt::format("row tiling into {} tiles does not exist on {} (NeuronCore-{} splits the PE rows into at "
                       "most {})",
                       mode.rowTiles(), target->name, target->generation, te.maxRowTiles);
  if (mode.doubleRow && te.fp8DoubleRowSpeedup == 0)
    return fmt::format("FP8 double row mode does not exist on {} (NeuronCore-{})", target->name, target->generation);
  return {};
}

std::string verifyMatmul(const Instruction &inst, const Target *target) {
  const MatmulMode mode = MatmulMode::decode(inst.mode);
  if (std::string problem = verifyMatmulMode(mode, inst, target); !problem.empty())
    return problem;
  if (inst.src0.space != MemSpace::Sbuf || inst.src1.space != MemSpace::Sbuf)
    return "stationary and moving must be in SBUF";
  if (inst.dst.space != MemSpace::Psum || inst.dst.dtype != DType::F32)
    return "dst must be an f32 tile in PSUM";
  if (inst.src0.partitions != inst.src1.partitions)
    return fmt::format("stationary and moving must share the contraction (partition) dimension, not {} and {}",
                       inst.src0.partitions, inst.src1.partitions);
  if (mode.doubleRow)
    for (const std::string &problem :
         {requireDoubleRowLayout("stationary", inst.src0), requireDoubleRowLayout("moving", inst.src1)})
      if (!problem.empty())
        return problem;
  const MatmulShape shape = matmulShape(inst);
  if (int64_t{inst.dst.partitions} != shape.m || inst.dst.freeElements() != shape.n)
    return fmt::format("dst must be [stationary free, moving free] = [{}, {}], not [{}, {}]", shape.m, shape.n,
                       inst.dst.partitions, inst.dst.freeElements());
  if (!target)
    return {};
  const TensorEngineSpec &te = target->tensor;
  const unsigned rows = mode.tiled() ? te.rows / mode.rowTiles() : te.maxContraction;
  if (inst.src0.partitions > rows)
    return mode.tiled() ? fmt::format("contraction K = {} exceeds the {}-row tile of {}x{} row tiling on {}",
                                      inst.src0.partitions, rows, mode.rowTiles(), rows, target->name)
                        : fmt::format("contraction K = {} exceeds {} on {}", inst.src0.partitions, rows, target->name);
  if (shape.m > te.maxStationaryFree)
    return fmt::format("stationary free size M = {} exceeds {} on {}", shape.m, te.maxStationaryFree, target->name);
  if (shape.n > te.maxMovingFree)
    return fmt::format("moving free size N = {} exceeds {} on {}", shape.n, te.maxMovingFree, target->name);
  return requireOnePsumBank(inst.dst, *target);
}

/// MultiplyMoving's initiation interval: max(N, matmul_min_cycles), times matmul_fp32_factor when either
/// operand is FP32; FP8 double row streams its 2N moving elements fp8_double_row_speedup times faster. Row tiling
/// does not change one matmul's interval (the simulator lets matmuls in different row tiles overlap).
/// LoadStationary is not charged here: it is assumed hidden behind the previous MultiplyMoving (docs/targets.md
/// "nc_matmul": the next LoadStationary loads while the current multiply runs, and it is up to 4x faster); the
/// simulator charges loadStationaryCycles() when nothing hid it.
uint64_t matmulCycles(const Instruction &inst, Engine, const Target &target) {
  const CostModel &cost = target.cost;
  uint64_t moving = elementsPerPartition(inst.src1);
  if (MatmulMode::decode(inst.mode).doubleRow && target.tensor.fp8DoubleRowSpeedup != 0)
    moving = (moving + target.tensor.fp8DoubleRowSpeedup - 1) / target.tensor.fp8DoubleRowSpeedup;
  const uint64_t interval = std::max<uint64_t>(moving, cost.matmulMinCycles);
  const bool fp32 = inst.src0.dtype == DType::F32 || inst.src1.dtype == DType::F32;
  return fp32 ? interval * cost.matmulFp32Factor : interval;
}

// ---- nc_transpose -----------------------------------------------------------------------------------------

constexpr OperandDef kTransposeOperands[] = {
    {"dst", "dst", "[F, P]: PSUM on the tensor engine, SBUF or PSUM on the vector engine; data's dtype (tensor "
                   "engine: or f32)"},
    {"src0", "data", "[P, F], free dimensions flattened: SBUF on the tensor engine, SBUF or PSUM on the vector "
                     "engine"},
};

/// dst[f, p] = data[p, f] (the free dimensions flattened row-major), in FP32 then encoded into dst's dtype.
void transpose(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  const int64_t p = src.rows, f = src.rowElements;
  Scratch &s = scratch();
  const float *in = rowsOf(s.a, src, true);
  float *out = rowsOf(s.b, dst, false);
  for (int64_t row = 0; row < p; ++row)
    for (int64_t col = 0; col < f; ++col)
      out[col * p + row] = in[row * f + col];
  scatter(dst, out);
}

OperandUse transposeUse(const Instruction &) { return {.src0 = true}; }

Engine transposeEngine(const Instruction &inst) {
  return inst.mode == static_cast<uint8_t>(TransposeForm::Tensor) ? Engine::Tensor : Engine::Vector;
}

std::string verifyTranspose(const Instruction &inst, const Target *target) {
  if (inst.mode > static_cast<uint8_t>(TransposeForm::Vector))
    return fmt::format("mode {} is not an nc_transpose form (0: tensor engine, 1: vector engine)", inst.mode);
  const bool onTensor = inst.mode == static_cast<uint8_t>(TransposeForm::Tensor);
  const uint32_t p = inst.src0.partitions;
  const int64_t f = inst.src0.freeElements();
  if (int64_t{inst.dst.partitions} != f || inst.dst.freeElements() != p)
    return fmt::format("dst must be data's transpose [{}, {}], not [{}, {}]", f, p, inst.dst.partitions,
                       inst.dst.freeElements());
  const bool sameType = inst.dst.dtype == inst.src0.dtype;
  if (onTensor) {
    if (inst.src0.space != MemSpace::Sbuf || inst.dst.space != MemSpace::Psum)
      return "on the tensor engine data must be in SBUF and dst in PSUM";
    // NKI 0.6: dst has data's dtype; NeuronCore-v2's matmul-style transpose writes FP32 PSUM, allowed too.
    if (!sameType && inst.dst.dtype != DType::F32)
      return fmt::format("dst is {} but data is {}: on the tensor engine dst must be {} or f32", name(inst.dst.dtype),
                         name(inst.src0.dtype), name(inst.src0.dtype));
  } else if (!sameType) {
    return fmt::format("dst is {} but data is {}: the vector engine's transpose keeps the dtype", name(inst.dst.dtype),
                       name(inst.src0.dtype));
  }
  if (!target)
    return {};
  if (!onTensor) {
    const unsigned block = target->vectorTransposeBlock;
    if (p > block || f > block)
      return fmt::format("data [{}, {}] exceeds the vector engine's [{}, {}] on {}; transpose it block by block or "
                         "on the tensor engine",
                         p, f, block, block, target->name);
    return {};
  }
  const TensorEngineSpec &te = target->tensor;
  if (p > te.maxContraction || f > te.maxStationaryFree)
    return fmt::format("data [{}, {}] exceeds the tensor engine's [{}, {}] on {}", p, f, te.maxContraction,
                       te.maxStationaryFree, target->name);
  return requireOnePsumBank(inst.dst, *target);
}

/// Tensor engine: max(P, min(transpose_min_cycles, F)), NKI's figure for back-to-back transposes (a matmul of the
/// data, F stationary columns, with a P x P identity streamed as moving). Vector engine: the streaming formula over
/// F elements per partition (NKI: max(MIN_II, N)).
uint64_t transposeCycles(const Instruction &inst, Engine, const Target &target) {
  const uint64_t p = inst.src0.partitions, f = elementsPerPartition(inst.src0);
  if (transposeEngine(inst) == Engine::Tensor)
    return std::max<uint64_t>(p, std::min<uint64_t>(target.cost.transposeMinCycles, f));
  return streamingInstructionCycles(inst, f, Engine::Vector, target);
}

// ---- NKI calls ------------------------------------------------------------------------------------------

/// nc_matmul(dst, stationary, moving, ..., accumulate, tile_position, tile_size, perf_mode): FP8 double row reads
/// its [K, 2M] and [K, 2N] tiles as the [K, 2, M] and [K, 2, N] operands NKI requires; row tiles are positioned
/// in rows of the PE array.
void matmulNki(const Instruction &inst, NkiCall &c) {
  const MatmulMode mode = MatmulMode::decode(inst.mode);
  c.operand("dst", Slot::Dst);
  if (mode.doubleRow) {
    const auto [k, m, n] = matmulShape(inst);
    c.reshaped("stationary", Slot::Src0, {k / 2, 2, m}).reshaped("moving", Slot::Src1, {k / 2, 2, n});
  } else {
    c.operand("stationary", Slot::Src0).operand("moving", Slot::Src1);
  }
  c.boolean("accumulate", inst.accumulate);
  if (mode.tiled()) {
    const int64_t rows = static_cast<int64_t>(c.target().tensor.rows) / mode.rowTiles();
    c.code("tile_position", fmt::format("({}, 0)", mode.rowTile * rows))
        .code("tile_size", fmt::format("({}, {})", rows, c.target().tensor.cols));
  }
  if (mode.doubleRow)
    c.code("perf_mode", "nisa.matmul_perf_mode.double_row");
}

constexpr SettingDef kMatmulSettings[] = {{Setting::Accumulate, "accumulate"},
                                          {Setting::Mode, "tile_position, tile_size, perf_mode"}};

void transposeNki(const Instruction &, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("data", Slot::Src0).engine();
}

/// NKI ISA reference, nki.isa.nc_matmul: "currently supports float8_e4m3/float8_e5m2/bfloat16/float16/tfloat32/
/// float32 input data types"; the integer types (u8 masks, i32 indices) are not among them.
std::string matmulInputDtypes(const Instruction &inst, Engine, const Target *) {
  for (const auto &[slot, ap] : {std::pair{"stationary", &inst.src0}, std::pair{"moving", &inst.src1}})
    if (isInteger(ap->dtype))
      return fmt::format("nc_matmul takes float8_e4m3, float8_e5m2, bfloat16, float16 or float32 inputs, not {} "
                         "{}: convert it to bf16 first (tensor_copy)",
                         name(ap->dtype), slot);
  return {};
}

constexpr Rule kMatmulRules[] = {
    {"matmul.input-dtypes",
     "NKI ISA reference, nki.isa.nc_matmul: \"supports float8_e4m3/float8_e5m2/bfloat16/float16/tfloat32/float32 "
     "input data types\"",
     matmulInputDtypes},
};

constexpr SettingDef kTransposeSettings[] = {{Setting::Mode, "engine"}};

const InstructionDef kDefinitions[] = {
    {.op = Opcode::Matmul,
     .name = "matmul",
     .nki = "nki.isa.nc_matmul",
     .summary = "dst[M, N] (+)= stationary[K, M].T @ moving[K, N], accumulated in FP32 in PSUM; FP8 double row "
                "contracts over [K, 2] rows",
     .engines = {Engine::Tensor},
     .preferredEngine = Engine::Tensor,
     .since = "v2",
     .operands = kMatmulOperands,
     .limits = "K <= max_contraction (row tiling: rows / tiles, tiles <= max_row_tiles), M <= max_stationary_free, "
               "N <= max_moving_free; dst in one PSUM bank; FP8 double row "
               "(fp8_double_row_speedup > 0): f8 operands [K, 2, M] and [K, 2, N]; the first matmul of an "
               "accumulation group overwrites, later ones (accumulate) add; mode layout in isa/Modes.h",
     .cost = "max(N, matmul_min_cycles), times matmul_fp32_factor with an FP32 operand; FP8 double row: N = 2N / "
             "fp8_double_row_speedup; LoadStationary (ceil(M / load_stationary_factor)) hidden behind the previous "
             "multiply, charged by the simulator when nothing hid it; row-tiled matmuls in different tiles overlap",
     .use = matmulUse,
     .verify = verifyMatmul,
     .execute = matmul,
     .cycles = matmulCycles,
     .settings = kMatmulSettings,
     .category = Category::Matmul,
     .flops = matmulFlops,
     .nkiCall = matmulNki,
     .rules = kMatmulRules},
    {.op = Opcode::Transpose,
     .name = "transpose",
     .nki = "nki.isa.nc_transpose",
     .summary = "dst[F, P] = data[P, F] on the tensor engine (mode 0, into PSUM) or the vector engine (mode 1, one "
                "block up to transpose_block x transpose_block)",
     .engines = {Engine::Tensor, Engine::Vector},
     .preferredEngine = Engine::Tensor,
     .since = "v2",
     .operands = kTransposeOperands,
     .limits = "tensor engine: P <= max_contraction, F <= max_stationary_free, data in SBUF, dst in PSUM within one "
               "bank; vector engine: P, F <= vector_engine.transpose_block; dst keeps data's dtype (tensor engine: "
               "or f32); mode 0 runs on the tensor engine, mode 1 on the vector engine",
     .cost = "tensor engine: max(P, min(transpose_min_cycles, F)) (+ its LoadStationary when nothing hid it); "
             "vector engine: access_overhead_cycles + max(min_initiation_cycles, F)",
     .use = transposeUse,
     .verify = verifyTranspose,
     .execute = transpose,
     .cycles = transposeCycles,
     .modeEngine = transposeEngine,
     .settings = kTransposeSettings,
     .category = Category::Matmul,
     .flops = noFlops,
     .nkiCall = transposeNki},
};

} // namespace

uint64_t matmulFlops(const Instruction &inst) {
  const auto [k, m, n] = matmulShape(inst);
  return 2 * static_cast<uint64_t>(k) * static_cast<uint64_t>(m) * static_cast<uint64_t>(n);
}

std::span<const InstructionDef> tensorEngineInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions

namespace tessera::isa {

uint64_t loadStationaryCycles(const Instruction &inst, const Target &target) {
  const bool tensorTranspose =
      inst.op == Opcode::Transpose && instructions::transposeEngine(inst) == Engine::Tensor;
  if (inst.op != Opcode::Matmul && !tensorTranspose)
    return 0;
  // The stationary's columns: a matmul's M, a transpose's F (its data is the stationary).
  const uint64_t columns = tensorTranspose ? instructions::elementsPerPartition(inst.src0)
                                           : static_cast<uint64_t>(instructions::matmulShape(inst).m);
  const bool fp32 = inst.op == Opcode::Matmul && (inst.src0.dtype == DType::F32 || inst.src1.dtype == DType::F32);
  const uint64_t factor = std::max(1u, target.cost.loadStationaryFactor);
  const uint64_t cycles = (columns + factor - 1) / factor;
  return fp32 ? cycles * target.cost.matmulFp32Factor : cycles;
}

} // namespace tessera::isa
