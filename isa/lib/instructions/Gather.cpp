/// \file
/// GpSimd's gathers: local_gather.
///
/// nki.isa.local_gather(dst, src_buffer, index, num_elem_per_idx=E, num_valid_indices=V): each GpSimd core reaches
/// a group of G contiguous partitions (gpsimd_engine.partitions_per_core, 16). It reads the indices of its group's
/// G partitions of `index` ([P, I]) as one list, partition first (indices[j * G + q] = index[q, j]), keeps the
/// first V, and every partition p of the group copies, for each index v, the E contiguous elements of its own row
/// of src_buffer starting at that element offset:
///   dst[p, v * E + e] = src_buffer[p, indices_g(p)[v] + e],   0 <= v < V, 0 <= e < E
/// with src_buffer's free dimensions flattened row-major. This is NKI's NumPy reference (np.take of each group's
/// rows along the free axis, the hardware index being the element offset index * E); NKI's prose calls the indices
/// "partition offsets", but its reference, which we follow, gathers along the free dimension. An index out of
/// range is undefined behaviour in NKI; the simulator stops with an error naming it.

#include "Common.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>

#include <bit>

namespace tessera::isa::instructions {
namespace {

constexpr OperandDef kLocalGatherOperands[] = {
    {"dst", "dst", "SBUF, [P, V * E], src_buffer's dtype"},
    {"src0", "src_buffer", "SBUF, [P, F]; P a multiple of the GpSimd core's partitions, starting on a core's first"},
    {"src1", "index", "SBUF, [P, I], an integer dtype (NKI: uint16): element offsets into each row of src_buffer"},
};

/// num_elem_per_idx (elementsPerIndex; 0 means NKI's default, 1).
int64_t elementsPerIndex(const Instruction &inst) { return inst.elementsPerIndex == 0 ? 1 : inst.elementsPerIndex; }

/// num_valid_indices per core (validIndices; 0 means NKI's default, every index of the core's partitions).
int64_t validIndices(const Instruction &inst, uint32_t partitionsPerCore) {
  return inst.validIndices == 0 ? int64_t{partitionsPerCore} * inst.src1.freeElements() : inst.validIndices;
}

void localGather(const Instruction &inst, const Memories &mem) {
  const uint32_t group = mem.gpsimdPartitionsPerCore;
  if (group == 0)
    throw Error("local_gather: the memories do not say how many partitions a GpSimd core reaches "
                "(Memories::gpsimdPartitionsPerCore, from the target's gpsimd_engine.partitions_per_core)");
  const ResolvedPattern src = resolve(inst.src0, mem), index = resolve(inst.src1, mem), dst = resolve(inst.dst, mem);
  const int64_t e = elementsPerIndex(inst), v = validIndices(inst, group);
  const int64_t f = src.rowElements, perIndexRow = index.rowElements;
  assert(dst.rowElements == v * e && src.rows % group == 0);
  Scratch &s = scratch();
  const float *values = rowsOf(s.a, src, true);
  const float *indices = rowsOf(s.b, index, true);
  float *out = rowsOf(s.c, dst, false);
  for (uint32_t first = 0; first < src.rows; first += group)
    for (int64_t i = 0; i < v; ++i) {
      const int64_t q = i % group, j = i / group; // partition first
      const float raw = indices[(first + q) * perIndexRow + j];
      const int64_t offset = static_cast<int64_t>(raw);
      if (!(raw >= 0.0f) || offset + e > f) [[unlikely]]
        throw Error(fmt::format("local_gather: index {} (partition {} of index, column {}) reads elements [{}, {}) "
                                "of src_buffer rows that hold {}; NKI leaves out-of-range indices undefined",
                                raw, first + q, j, offset, offset + e, f));
      for (uint32_t r = first; r < first + group; ++r)
        std::copy_n(values + r * f + offset, e, out + r * v * e + i * e);
    }
  scatter(dst, out);
}

OperandUse localGatherUse(const Instruction &) { return {.src0 = true, .src1 = true}; }

std::string verifyLocalGather(const Instruction &inst, const Target *target) {
  for (auto [slot, ap] : {std::pair{"dst", &inst.dst}, {"src_buffer", &inst.src0}, {"index", &inst.src1}})
    if (ap->space != MemSpace::Sbuf)
      return fmt::format("{} must be in SBUF", slot);
  if (!isInteger(inst.src1.dtype))
    return fmt::format("index must hold integers (NKI: uint16), not {}", name(inst.src1.dtype));
  if (inst.dst.dtype != inst.src0.dtype)
    return fmt::format("dst is {} but src_buffer is {}: local_gather does not convert", name(inst.dst.dtype),
                       name(inst.src0.dtype));
  if (inst.src1.partitions != inst.src0.partitions || inst.dst.partitions != inst.src0.partitions)
    return fmt::format("src_buffer, index and dst must have the same partitions, not {}, {} and {}",
                       inst.src0.partitions, inst.src1.partitions, inst.dst.partitions);
  const int64_t e = elementsPerIndex(inst);
  if (e < 0 || !std::has_single_bit(static_cast<uint64_t>(e)))
    return fmt::format("num_elem_per_idx must be a power of two, not {}", e);
  if (inst.validIndices < 0)
    return fmt::format("num_valid_indices must not be negative, not {}", inst.validIndices);
  if (e > inst.src0.freeElements())
    return fmt::format("num_elem_per_idx {} exceeds src_buffer's {} elements per partition", e,
                       inst.src0.freeElements());
  if (!target)
    return {};
  const uint32_t group = target->gpsimdPartitionsPerCore;
  for (auto [slot, ap] : {std::pair{"dst", &inst.dst}, {"src_buffer", &inst.src0}, {"index", &inst.src1}})
    if (ap->partitions % group != 0 || ap->partitionStart % group != 0)
      return fmt::format("{} covers partitions [{}, {}); each GpSimd core gathers within its {} partitions, so it "
                         "must cover whole cores",
                         slot, ap->partitionStart, ap->partitionStart + ap->partitions, group);
  if (e > target->localGatherMaxElementsPerIndex)
    return fmt::format("num_elem_per_idx {} exceeds {} on {}", e, target->localGatherMaxElementsPerIndex,
                       target->name);
  const int64_t available = int64_t{group} * inst.src1.freeElements(), v = validIndices(inst, group);
  if (v > available)
    return fmt::format("num_valid_indices {} exceeds the {} indices of a core's {} partitions of index", v, available,
                       group);
  if (v > target->localGatherMaxIndices)
    return fmt::format("{} indices per GpSimd core exceed {} on {}", v, target->localGatherMaxIndices, target->name);
  if (inst.dst.freeElements() != v * e)
    return fmt::format("dst must hold num_valid_indices x num_elem_per_idx = {} x {} = {} elements per partition, "
                       "not {}",
                       v, e, v * e, inst.dst.freeElements());
  return {};
}

/// NKI: 150 + V * E * C GpSimd cycles with C = ((28 + t E) / (t E)) / min(4 / dtype bytes, E), t = 4, read with C
/// as cycles per element: V * (28 / t + E) / min(word / dtype bytes, E) streaming cycles, in the shared streaming
/// formula (which adds the GpSimd start-up and the SBUF access overhead).
uint64_t localGatherCycles(const Instruction &inst, Engine engine, const Target &target) {
  const CostModel &cost = target.cost;
  const uint64_t e = static_cast<uint64_t>(elementsPerIndex(inst));
  const uint64_t v = static_cast<uint64_t>(validIndices(inst, target.gpsimdPartitionsPerCore));
  const uint64_t perWord = std::max<uint64_t>(1, cost.localGatherWordBytes / byteSize(inst.src0.dtype));
  const uint64_t packed = std::min(perWord, std::max<uint64_t>(e, 1));
  const uint64_t streaming = (v * (cost.localGatherIndexCycles + e) + packed - 1) / packed;
  return streamingInstructionCycles(inst, streaming, engine, target);
}

/// local_gather with both counts written out: NKI 0.6 ignores num_elem_per_idx unless num_valid_indices is given
/// too (NKI 0.6 release notes, known issues).
void localGatherNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("src_buffer", Slot::Src0).operand("index", Slot::Src1);
  c.integer("num_elem_per_idx", elementsPerIndex(inst));
  c.integer("num_valid_indices", validIndices(inst, c.target().gpsimdPartitionsPerCore));
}

constexpr SettingDef kLocalGatherSettings[] = {{Setting::ElementsPerIndex, "num_elem_per_idx"},
                                               {Setting::ValidIndices, "num_valid_indices"}};

const InstructionDef kDefinitions[] = {
    {.op = Opcode::LocalGather,
     .name = "local_gather",
     .nki = "nki.isa.local_gather",
     .summary = "dst[p, v*E + e] = src_buffer[p, idx[v] + e], idx the first V indices of p's GpSimd core (its "
                "partitions_per_core partitions of index, partition first)",
     .engines = {Engine::GpSimd},
     .preferredEngine = Engine::GpSimd,
     .since = "v2",
     .operands = kLocalGatherOperands,
     .limits = "all in SBUF; src_buffer, index and dst on the same whole GpSimd cores (partitions_per_core); index an "
               "integer dtype; dst has src_buffer's dtype and V * E elements per partition; E = num_elem_per_idx "
               "(0 = 1) a power of two <= local_gather_max_elements_per_index; V = num_valid_indices "
               "(0 = all of a core's indices) <= local_gather_max_indices; indices in range",
     .cost = "gpsimd_startup_cycles + access_overhead_cycles + max(min_initiation_cycles, V * "
             "(local_gather_index_cycles + E) / min(local_gather_word_bytes / dtype bytes, E)) (NKI's formula, "
             "its C read as cycles per element: an assumption)",
     .use = localGatherUse,
     .verify = verifyLocalGather,
     .execute = localGather,
     .cycles = localGatherCycles,
     .settings = kLocalGatherSettings,
     .category = Category::Copy,
     .flops = noFlops,
     .nkiCall = localGatherNki},
};

} // namespace

std::span<const InstructionDef> gatherInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
