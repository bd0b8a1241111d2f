/// \file
/// Instructions that move or fill data: dma_copy, dma_transpose, tensor_copy, tensor_copy_predicated, memset, and
/// the simulator's device print.

#include "Common.h"
#include "Rules.h"

#include <fmt/format.h>

#include <cstring>

namespace tessera::isa::instructions {
namespace {

// ---- shared ---------------------------------------------------------------------------------------------

} // namespace

namespace {

/// The bytes [first, last) a pattern whose rows are each contiguous spans, all rows.
std::pair<const std::byte *, const std::byte *> span(const ResolvedPattern &r) {
  const int64_t rowBytes = r.rowElements * byteSize(r.dtype);
  const std::byte *lastRow = r.origin + static_cast<int64_t>(r.rows - 1) * r.rowStride;
  const std::byte *first = r.origin;
  return {std::min(first, lastRow), std::max(first, lastRow) + rowBytes};
}

/// Whether a copy from `src` to `dst` can move each row's elements directly (recode): one dtype, the same rows of
/// contiguous elements, and no byte of one in the other (the general path reads all of src before it writes).
bool rowForRow(const ResolvedPattern &src, const ResolvedPattern &dst) {
  if (src.dtype != dst.dtype || src.rows != dst.rows || src.rowElements != dst.rowElements || src.rows == 0)
    return false;
  if (src.outerRank != 0 || dst.outerRank != 0 || !src.runIsContiguous() || !dst.runIsContiguous())
    return false;
  const auto [srcFirst, srcLast] = span(src);
  const auto [dstFirst, dstLast] = span(dst);
  return srcLast <= dstFirst || dstLast <= srcFirst;
}

} // namespace

void convertingCopy(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  assert(static_cast<int64_t>(src.rows) * src.rowElements == static_cast<int64_t>(dst.rows) * dst.rowElements);
  if (rowForRow(src, dst)) { // a copy of one dtype: the bits the FP32 round trip gives, without it
    for (uint32_t row = 0; row < src.rows; ++row)
      recode(src.dtype, src.origin + static_cast<int64_t>(row) * src.rowStride,
             dst.origin + static_cast<int64_t>(row) * dst.rowStride, static_cast<size_t>(src.rowElements));
    return;
  }
  float *values = rowsOf(scratch().a, src, /*load=*/true);
  scatter(dst, values);
}

std::vector<std::byte *> &elementAddresses(const ResolvedPattern &r) {
  thread_local std::vector<std::byte *> addresses;
  addresses.resize(static_cast<size_t>(r.rows) * r.rowElements);
  forEachElement(r, [&](std::byte *element, uint32_t row, int64_t index) {
    addresses[static_cast<size_t>(row) * r.rowElements + index] = element;
  });
  return addresses;
}

void fill(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern dst = resolve(inst.dst, mem);
  float *values = rowsOf(scratch().a, dst, false);
  std::fill_n(values, static_cast<size_t>(dst.rows) * dst.rowElements, inst.value);
  scatter(dst, values);
}

namespace {

std::string sameElementCount(const Instruction &inst, const Target *) {
  if (int64_t{inst.src0.partitions} * inst.src0.freeElements() != int64_t{inst.dst.partitions} * inst.dst.freeElements())
    return "source and destination hold different numbers of elements";
  return {};
}

OperandUse readsSrc0(const Instruction &) { return {.src0 = true}; }

/// A DMA transfer's time depends on the bandwidth the queues share at that moment, which the simulator models
/// from Target::dma; it has no engine-cycle cost.
uint64_t noEngineCycles(const Instruction &, Engine, const Target &) { return 0; }

// ---- dma_copy ---------------------------------------------------------------------------------------------

constexpr OperandDef kDmaCopyOperands[] = {
    {"dst", "dst", "HBM, SBUF or PSUM; same element count as src"},
    {"src0", "src", "HBM, SBUF or PSUM"},
};

// ---- dma_transpose ----------------------------------------------------------------------------------------

constexpr OperandDef kDmaTransposeOperands[] = {
    {"dst", "dst", "SBUF or HBM, [F, P] for src [P, F], src's dtype"},
    {"src0", "src", "HBM or SBUF, a 2-byte dtype (bf16, f16); its free dimensions are flattened to F"},
};

/// dst[f, p] = src[p, f], moving the 2-byte elements unchanged.
void dmaTranspose(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  const std::vector<std::byte *> &from = elementAddresses(src);
  const int64_t columns = src.rowElements;
  const unsigned bytes = byteSize(src.dtype);
  forEachElement(dst, [&](std::byte *element, uint32_t f, int64_t p) {
    std::memcpy(element, from[static_cast<size_t>(p) * columns + f], bytes);
  });
}

std::string verifyDmaTranspose(const Instruction &inst, const Target *target) {
  if (inst.src0.space == MemSpace::Psum || inst.dst.space == MemSpace::Psum)
    return "src and dst must be in HBM or SBUF, not PSUM";
  if (byteSize(inst.src0.dtype) != 2)
    return fmt::format("src must have a 2-byte dtype (bf16, f16), not {}", name(inst.src0.dtype));
  if (inst.dst.dtype != inst.src0.dtype)
    return fmt::format("dst must have src's dtype {}, not {}", name(inst.src0.dtype), name(inst.dst.dtype));
  const int64_t p = inst.src0.partitions, f = inst.src0.freeElements();
  if (inst.dst.partitions != f || inst.dst.freeElements() != p)
    return fmt::format("dst must be [{}, {}] for src [{}, {}], not [{}, {}]", f, p, p, f, inst.dst.partitions,
                       inst.dst.freeElements());
  if (target && inst.dst.space == MemSpace::Sbuf && inst.dst.partitions > target->partitions)
    return fmt::format("src has {} elements per partition, which become dst's partitions; SBUF has {}", f,
                       target->partitions);
  return {};
}

// ---- tensor_copy_predicated -------------------------------------------------------------------------------

constexpr OperandDef kTensorCopyPredicatedOperands[] = {
    {"dst", "dst", "SBUF or PSUM; also read: where the predicate is false it keeps its value"},
    {"src0", "src", "optional SBUF or PSUM tile of dst's shape and dtype (else the value setting)"},
    {"src1", "predicate", "SBUF or PSUM, u8 or u32, dst's shape; not in PSUM when src is"},
};

/// dst[k] = src[k] (or the scalar) where predicate[k] != 0 (== 0 with reverse_pred); other elements untouched.
/// src and dst share a dtype, so the copy moves bytes unchanged.
void tensorCopyPredicated(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern dst = resolve(inst.dst, mem);
  const float *predicate = rowsOf(scratch().a, resolve(inst.src1, mem), true);
  const unsigned bytes = byteSize(dst.dtype);
  std::byte scalar[sizeof(float)];
  encode(dst.dtype, &inst.value, scalar, 1);
  const std::vector<std::byte *> *from = present(inst.src0) ? &elementAddresses(resolve(inst.src0, mem)) : nullptr;
  forEachElement(dst, [&](std::byte *element, uint32_t row, int64_t index) {
    const size_t k = static_cast<size_t>(row) * dst.rowElements + index;
    if ((predicate[k] != 0.0f) == inst.reverse0)
      return;
    std::memcpy(element, from ? (*from)[k] : scalar, bytes);
  });
}

OperandUse tensorCopyPredicatedUse(const Instruction &inst) {
  return {.src0 = present(inst.src0), .src1 = true, .readsDst = true};
}

std::string verifyTensorCopyPredicated(const Instruction &inst, const Target *) {
  if (inst.src1.dtype != DType::U8 && inst.src1.dtype != DType::U32)
    return fmt::format("predicate must be u8 or u32, not {}", name(inst.src1.dtype));
  if (auto problem = requireSameShape("predicate", inst.src1, "dst", inst.dst); !problem.empty())
    return problem;
  if (!present(inst.src0))
    return {};
  if (inst.src0.dtype != inst.dst.dtype)
    return fmt::format("src and dst must share a dtype, not {} and {}", name(inst.src0.dtype), name(inst.dst.dtype));
  if (inst.src0.space == MemSpace::Psum && inst.src1.space == MemSpace::Psum)
    return "src and predicate cannot both be in PSUM";
  return requireSameShape("src", inst.src0, "dst", inst.dst);
}

/// Two tensor inputs (src and predicate) stream at two_input_factor x N, a scalar src at N (assumption: the
/// generic Vector-engine rule; NKI publishes no cost for this instruction).
uint64_t tensorCopyPredicatedCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t n = elementsPerPartition(inst.dst);
  return streamingInstructionCycles(inst, present(inst.src0) ? n * target.cost.twoInputFactor : n, engine, target);
}

// ---- tensor_copy ------------------------------------------------------------------------------------------

constexpr OperandDef kTensorCopyOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as src; any dtype (converted on the way out)"},
    {"src0", "src", "SBUF or PSUM"},
};

std::string verifyTensorCopy(const Instruction &inst, const Target *) {
  return requireSameShape("dst", inst.dst, "src", inst.src0);
}

uint64_t tensorCopyCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

// ---- memset -----------------------------------------------------------------------------------------------

constexpr OperandDef kMemsetOperands[] = {{"dst", "dst", "SBUF or PSUM"}};

OperandUse writesOnly(const Instruction &) { return {}; }

std::string verifyNothing(const Instruction &, const Target *) { return {}; }

uint64_t memsetCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t n = elementsPerPartition(inst.dst);
  const bool zeroIntoBf16 = inst.value == 0.0f && inst.dst.dtype == DType::BF16;
  return streamingInstructionCycles(inst, zeroIntoBf16 ? half(n) : n, engine, target);
}

// ---- print ------------------------------------------------------------------------------------------------

constexpr OperandDef kPrintOperands[] = {{"src0", "tile", "SBUF or PSUM (on a TPU: VMEM)"}};

void print(const Instruction &, const Memories &) {} // the simulator logs the values (readValues)

OperandUse printUse(const Instruction &) { return {.src0 = true, .writesDst = false}; }

/// A device print is a debugging aid, not part of the kernel: it costs nothing, so that adding one changes the
/// kernel's time only through the semaphore waits that order it after the tile's producer.
uint64_t printCycles(const Instruction &, Engine, const Target &) { return 0; }

std::string verifyPrint(const Instruction &inst, const Target *) { return requireOnChip("the printed tile", inst.src0); }

constexpr EngineSet kComputeEngines{Engine::Vector, Engine::Scalar, Engine::GpSimd};

// ---- NKI calls and rules ----------------------------------------------------------------------------------

void dmaNki(const Instruction &, NkiCall &c) { c.operand("dst", Slot::Dst).operand("src", Slot::Src0); }

constexpr Rule kDmaRules[] = {
    {"dma.no-psum", "NKI ISA reference (Neuron 2.32), nki.isa.dma_copy, Memory types; NKI 0.3.0 release notes, "
                    "breaking changes: DMA cannot read PSUM",
     avoidsPsum},
};

void tensorCopyNki(const Instruction &, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("src", Slot::Src0).engine();
}

std::string tensorCopyEngine(const Instruction &, Engine engine, const Target *target) {
  if (engine == Engine::Scalar && target && !generationAtLeast(*target, "v3"))
    return fmt::format("tensor_copy does not run on the scalar engine of {} ({}): use activation(copy) there, or the "
                       "vector or gpsimd engine",
                       generationLabel(target->family, target->generation), target->name);
  return {};
}

constexpr Rule kTensorCopyRules[] = {
    {"tensor_copy.scalar-engine",
     "NKI ISA reference, nki.isa.tensor_copy: \"On NeuronCore v2, tensor_copy is not supported on the Scalar "
     "Engine. Instead, use nisa.activation with op=nl.copy\" (supported engines: v2 Vector, GpSimd; v3+ Vector, "
     "Scalar, GpSimd)",
     tensorCopyEngine},
};

void tensorCopyPredicatedNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operandOr("src", Slot::Src0, inst, inst.value).operand("predicate", Slot::Src1);
  c.flag("reverse_pred", inst.reverse0);
}

constexpr SettingDef kTensorCopyPredicatedSettings[] = {{Setting::Value, "src"}, {Setting::Reverse0, "reverse_pred"}};

void memsetNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst);
  if (isInteger(inst.dst.dtype)) // the value dst holds: rounded to nearest even and saturated, as executed
    c.integer("value", integerValue(inst.dst.dtype, inst.value));
  else
    c.real("value", inst.value);
  c.engine();
}

constexpr SettingDef kValueSetting[] = {{Setting::Value, "value"}};

void printNki(const Instruction &, NkiCall &c) { c.label("print_prefix").operand("tensor", Slot::Src0); }

const InstructionDef kDefinitions[] = {
    {.op = Opcode::DmaCopy,
     .name = "dma_copy",
     .nki = "nki.isa.dma_copy",
     .summary = "copy between HBM, SBUF and PSUM, converting the dtype",
     .engines = {Engine::Dma},
     .preferredEngine = Engine::Dma,
     .since = "v2",
     .operands = kDmaCopyOperands,
     .limits = "both sides hold the same number of elements",
     .cost = "max(fixed_latency_ns, descriptor_ns, its bytes on one engine at bytes_per_ns_per_engine): it streams on "
             "the engines of its partitions (partitions_per_engine each), shares them and the HBM share with the "
             "other queues, and takes one slot of the core's descriptor generator ([dma] table, docs/memory.md)",
     .use = readsSrc0,
     .verify = sameElementCount,
     .execute = convertingCopy,
     .cycles = noEngineCycles,
     .category = Category::Dma,
     .flops = noFlops,
     .nkiCall = dmaNki,
     .rules = kDmaRules},
    {.op = Opcode::DmaTranspose,
     .name = "dma_transpose",
     .nki = "nki.isa.dma_transpose",
     .summary = "dst[f, p] = src[p, f] on a DMA queue, for 2-byte dtypes (the 2-D form, axes (1, 0))",
     .engines = {Engine::Dma},
     .preferredEngine = Engine::Dma,
     .since = "v3",
     .sinceSource = "NKI Trainium2 architecture guide (trainium2_arch.rst), DMA Transpose: a Trainium2 DMA-engine "
                    "feature, through the NeuronCore-v3+ hardware DGE (nki.isa.dma_copy, dge_mode)",
     .operands = kDmaTransposeOperands,
     .limits = "2-byte dtype (bf16, f16), the same on both sides; src's free dimensions flattened; the 3-D and 4-D "
               "permutations, DGE modes and indirect (gather) transposes are not modelled",
     .cost = "a DMA transfer, timed by the simulator's DMA queue (sim/lib/engines/DmaQueue.cpp) like dma_copy: it "
             "waits for the bandwidth the queues share ([dma] engines x bytes_per_ns_per_engine, capped by hbm_gbps), "
             "streams its HBM-side bytes (dst's when neither side is in HBM) at transpose_hbm_efficiency (from HBM) "
             "or transpose_sbuf_efficiency (from SBUF) of a copy's rate (trn2: 0.9 and 0.5, NKI Trainium2 "
             "architecture guide), its fixed cost (fixed_latency_ns) overlapping its streaming",
     .use = readsSrc0,
     .verify = verifyDmaTranspose,
     .execute = dmaTranspose,
     .cycles = noEngineCycles,
     .category = Category::Dma,
     .flops = noFlops,
     .nkiCall = dmaNki,
     .rules = kDmaRules},
    {.op = Opcode::TensorCopy,
     .name = "tensor_copy",
     .nki = "nki.isa.tensor_copy",
     .summary = "dst = src, converting the dtype",
     .engines = kComputeEngines,
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kTensorCopyOperands,
     .limits = "dst and src have the same shape",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N)",
     .use = readsSrc0,
     .verify = verifyTensorCopy,
     .execute = convertingCopy,
     .cycles = tensorCopyCycles,
     .category = Category::Copy,
     .flops = noFlops,
     .nkiCall = tensorCopyNki,
     .rules = kTensorCopyRules},
    {.op = Opcode::TensorCopyPredicated,
     .name = "tensor_copy_predicated",
     .nki = "nki.isa.tensor_copy_predicated",
     .summary = "dst = predicate != 0 ? src : dst (reverse_pred: where it is 0); src a tile or the value setting; reads "
                "dst",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kTensorCopyPredicatedOperands,
     .limits = "src, predicate and dst the same shape; src and dst the same dtype; predicate u8 or u32; src and "
               "predicate not both in PSUM",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N x f): f = two_input_factor with a src tile, 1 with "
             "a scalar (assumption: NKI publishes no cost; the generic ~N per input)",
     .use = tensorCopyPredicatedUse,
     .verify = verifyTensorCopyPredicated,
     .execute = tensorCopyPredicated,
     .cycles = tensorCopyPredicatedCycles,
     .settings = kTensorCopyPredicatedSettings,
     .category = Category::Elementwise,
     .flops = noFlops,
     .nkiCall = tensorCopyPredicatedNki},
    {.op = Opcode::Memset,
     .name = "memset",
     .nki = "nki.isa.memset",
     .summary = "dst = value",
     .engines = {Engine::Vector, Engine::GpSimd},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kMemsetOperands,
     .limits = "on the vector or GpSimd engine (nki.isa.memset); GpSimd cannot write PSUM",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N), N/2 for zero into BF16",
     .use = writesOnly,
     .verify = verifyNothing,
     .execute = fill,
     .cycles = memsetCycles,
     .settings = kValueSetting,
     .category = Category::Fill,
     .flops = noFlops,
     .nkiCall = memsetNki},
    {.op = Opcode::Print,
     .name = "print",
     .nki = "nki.language.device_print",
     .summary = "log a tile's values with the simulated time (tsr::device_print; not a hardware instruction); on "
                "both families",
     .engines = {Engine::Vector, Engine::Scalar, Engine::GpSimd, Engine::Vpu},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kPrintOperands,
     .limits = "on-chip tiles only; on a TPU it runs on the VPU",
     .cost = "0: a debugging aid that takes no engine time",
     .use = printUse,
     .verify = verifyPrint,
     .execute = print,
     .cycles = printCycles,
     .family = kAnyFamily,
     .category = Category::Print,
     .flops = noFlops,
     .nkiCall = printNki},
};

} // namespace

std::span<const InstructionDef> dataMovementInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
