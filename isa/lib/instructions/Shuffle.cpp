/// \file
/// The Vector engine's cross-partition move: nc_stream_shuffle.
///
/// nki.isa.nc_stream_shuffle(dst, src, shuffle_mask) (NKI ISA reference): within each quadrant of 32 partitions,
/// partition i of dst copies partition shuffle_mask[i] of src's quadrant (255: partition i is left unmodified); the
/// same mask serves every quadrant. src and dst have one dtype and as many elements per partition; src may start
/// in another quadrant than dst. The quadrants are those of the active partitions,
///   num_active_partitions = ceil(max(src partitions, dst partitions) / 32) * 32,
/// and both operands start at partition 0 when that is 96 or 128, at 0 or 64 when 64, and at any quadrant when 32.
/// Quadrant q of dst reads quadrant q of src:
///   dst[32q + i, :] = src[32q + shuffle_mask[i], :]   for 32q + i < dst partitions, shuffle_mask[i] != 255
/// which a source of fewer partitions must hold (an assumption: NKI does not say what a read past src gives; the
/// simulator refuses it). Broadcasting one partition to all 128 is four calls, one per dst quadrant, each reading
/// src's first quadrant with a mask of zeros (what the NKI library's stream_shuffle_broadcast does).
/// Cost: max(MIN_II, N) Vector cycles, N the elements per partition (NKI ISA reference, "Estimated instruction
/// cost"), through the shared streaming formula.

#include "Common.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace tessera::isa::instructions {
namespace {

constexpr OperandDef kStreamShuffleOperands[] = {
    {"dst", "dst", "SBUF or PSUM, src's dtype and elements per partition"},
    {"src0", "src", "SBUF or PSUM; may start in another quadrant than dst"},
};

/// The partitions whose quadrants take part: max(src, dst) partitions rounded up to whole quadrants.
uint32_t activePartitions(const Instruction &inst) {
  const uint32_t most = std::max(inst.dst.partitions, inst.src0.partitions);
  return static_cast<uint32_t>((most + kShuffleMaskSize - 1) / kShuffleMaskSize * kShuffleMaskSize);
}

/// The partition of src that partition `p` of dst copies, `from` being its mask entry (not kShuffleKeep): the same
/// partition of the same quadrant.
size_t sourcePartition(uint32_t p, uint8_t from) { return p / kShuffleMaskSize * kShuffleMaskSize + from; }

void streamShuffle(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *in = rowsOf(s.a, src, true); // all of src first: dst may be src (an in-place shuffle)
  float *out = rowsOf(s.c, dst, true);      // partitions the mask keeps keep their values
  const int64_t n = dst.rowElements;
  for (uint32_t p = 0; p < dst.rows; ++p) {
    const uint8_t from = inst.shuffleMask[p % kShuffleMaskSize];
    if (from == kShuffleKeep) continue;
    const size_t source = sourcePartition(p, from);
    assert(source < src.rows); // verifyStreamShuffle
    std::copy_n(in + static_cast<size_t>(source) * n, n, out + static_cast<size_t>(p) * n);
  }
  scatter(dst, out);
}

OperandUse streamShuffleUse(const Instruction &inst) {
  const bool keeps = std::ranges::find(inst.shuffleMask, kShuffleKeep) != inst.shuffleMask.end();
  return {.src0 = true, .readsDst = keeps};
}

/// Where an operand may start (NKI): at partition 0 when more than two quadrants are active, else at a multiple
/// of the active partitions (0 or 64 for two quadrants, any quadrant's first for one).
std::string requireShuffleStart(const char *slot, const AccessPattern &ap, uint32_t active) {
  const bool moreThanTwo = active > 2 * kShuffleMaskSize;
  if (moreThanTwo ? ap.partitionStart == 0 : ap.partitionStart % active == 0) return {};
  return fmt::format("{} starts at partition {}; with {} active partitions (the larger of src and dst, in whole "
                     "quadrants of {}) it must start at {}",
                     slot, ap.partitionStart, active, kShuffleMaskSize,
                     moreThanTwo ? "0" : fmt::format("a multiple of {}", active));
}

std::string verifyStreamShuffle(const Instruction &inst, const Target *) {
  for (auto [slot, ap] : {std::pair{"dst", &inst.dst}, std::pair{"src", &inst.src0}})
    if (std::string bad = requireOnChip(slot, *ap); !bad.empty()) return bad;
  if (inst.dst.dtype != inst.src0.dtype)
    return fmt::format("dst is {} but src is {}: nc_stream_shuffle does not convert", name(inst.dst.dtype),
                       name(inst.src0.dtype));
  if (inst.dst.freeElements() != inst.src0.freeElements())
    return fmt::format("dst has {} elements per partition but src has {}; they must be the same",
                       inst.dst.freeElements(), inst.src0.freeElements());
  for (size_t i = 0; i < kShuffleMaskSize; ++i)
    if (inst.shuffleMask[i] >= kShuffleMaskSize && inst.shuffleMask[i] != kShuffleKeep)
      return fmt::format("shuffle_mask[{}] is {}: each entry is a partition of the quadrant, 0 to 31, or 255 to "
                         "leave dst's partition unmodified",
                         i, inst.shuffleMask[i]);
  const uint32_t active = activePartitions(inst);
  for (auto [slot, ap] : {std::pair{"dst", &inst.dst}, std::pair{"src", &inst.src0}})
    if (std::string bad = requireShuffleStart(slot, *ap, active); !bad.empty()) return bad;
  for (uint32_t p = 0; p < inst.dst.partitions; ++p) {
    const uint8_t from = inst.shuffleMask[p % kShuffleMaskSize];
    if (from == kShuffleKeep) continue;
    const size_t source = sourcePartition(p, from);
    if (source >= inst.src0.partitions)
      return fmt::format("partition {} of dst copies partition {} of src (shuffle_mask[{}] = {} in quadrant {}), "
                         "but src has {} partition{}",
                         p, source, p % kShuffleMaskSize, from, p / kShuffleMaskSize, inst.src0.partitions,
                         inst.src0.partitions == 1 ? "" : "s");
  }
  return {};
}

uint64_t streamShuffleCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

void streamShuffleNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).operand("src", Slot::Src0);
  c.code("shuffle_mask", fmt::format("[{}]", fmt::join(inst.shuffleMask, ", ")));
}

constexpr SettingDef kStreamShuffleSettings[] = {{Setting::ShuffleMask, "shuffle_mask"}};

const InstructionDef kDefinitions[] = {
    {.op = Opcode::StreamShuffle,
     .name = "stream_shuffle",
     .nki = "nki.isa.nc_stream_shuffle",
     .summary = "dst[32q + i] = src[32q + shuffle_mask[i]] in each quadrant q of 32 partitions (255: dst's partition "
                "kept), across partitions on the Vector engine",
     .engines = {Engine::Vector},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kStreamShuffleOperands,
     .limits = "SBUF or PSUM; one dtype; as many elements per partition; shuffle_mask entries 0-31 or 255; with A = "
               "ceil(max(partitions) / 32) * 32 active partitions both start at 0 (A of 96 or 128), 0 or 64 (A = 64) "
               "or a quadrant's first (A = 32); every partition a dst quadrant copies exists in src",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N) (NKI: max(MIN_II, N) Vector cycles)",
     .use = streamShuffleUse,
     .verify = verifyStreamShuffle,
     .execute = streamShuffle,
     .cycles = streamShuffleCycles,
     .settings = kStreamShuffleSettings,
     .category = Category::Copy,
     .flops = noFlops,
     .nkiCall = streamShuffleNki},
};

} // namespace

std::span<const InstructionDef> shuffleInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
