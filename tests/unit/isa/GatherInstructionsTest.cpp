/// \file
/// local_gather: NKI's NumPy semantics written out in C++ (each GpSimd core's group of partitions shares one
/// list of indices, read partition first; every partition gathers from its own row), verify's rules, the
/// out-of-range error, and the cost recomputed from each target's coefficients.

#include "TensorTestSupport.h"

#include <map>

#include "tessera/isa/Cost.h"
#include "tessera/isa/Error.h"
#include "tessera/isa/InstructionSet.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

namespace tessera::isa {
namespace {

using tensortest::sameValue;
using tensortest::TestMemory;
using tensortest::tile;

const Target &targetNamed(const std::string &name) {
  static const std::map<std::string, Target> targets = {
      {"trn1", Target::find("trn1")}, {"trn2", Target::find("trn2")}, {"trn3", Target::find("trn3")}};
  return targets.at(name);
}

struct Gather {
  Instruction inst;
  std::vector<float> values;  ///< src_buffer, partition-major
  std::vector<float> indices; ///< index, partition-major
};

/// src_buffer [p, f] of `dtype` at SBUF byte 0, index [p, perPartition] u32 at byte 8192, dst at byte 12288;
/// indices random multiples of `e` that keep every read in range, or `indices` when given.
Gather makeGather(const Target &target, TestMemory &mem, uint32_t partition0, uint32_t p, int64_t f,
                  int64_t perPartition, int64_t e, int64_t valid, DType dtype, uint32_t seed,
                  DType indexType = DType::U32) {
  Gather g;
  g.inst.op = Opcode::LocalGather;
  g.inst.elementsPerIndex = e;
  g.inst.validIndices = valid;
  g.inst.src0 = tile(MemSpace::Sbuf, dtype, partition0, p, 0, f);
  g.inst.src1 = tile(MemSpace::Sbuf, indexType, partition0, p, 8192, perPartition);
  const int64_t v = valid == 0 ? int64_t{target.gpsimdPartitionsPerCore} * perPartition : valid;
  g.inst.dst = tile(MemSpace::Sbuf, dtype, partition0, p, 12288, v * (e == 0 ? 1 : e));
  g.values = mem.fillRandom(g.inst.src0, seed, -100.0f, 100.0f);
  std::mt19937 rng(seed + 1);
  const int64_t step = e == 0 ? 1 : e;
  std::uniform_int_distribution<int64_t> slot(0, f / step - 1);
  for (int64_t i = 0; i < int64_t{p} * perPartition; ++i)
    g.indices.push_back(float(slot(rng) * step));
  mem.fill(g.inst.src1, g.indices);
  return g;
}

/// NKI's NumPy reference, in C++: for each core's group of G partitions, the first V of its indices read column
/// by column (np.flatten(order='F')), each selecting E elements from every row of the group.
std::vector<float> reference(const Gather &g, uint32_t group) {
  const Instruction &inst = g.inst;
  const int64_t p = inst.src0.partitions, f = inst.src0.freeElements(), cols = inst.src1.freeElements();
  const int64_t e = inst.elementsPerIndex == 0 ? 1 : inst.elementsPerIndex;
  const int64_t v = inst.validIndices == 0 ? int64_t{group} * cols : inst.validIndices;
  std::vector<float> out(p * v * e);
  for (int64_t core = 0; core < p / group; ++core) {
    std::vector<int64_t> flat; // column-major over the group's [G, cols] index slice
    for (int64_t col = 0; col < cols; ++col)
      for (int64_t q = 0; q < group; ++q)
        flat.push_back(int64_t(g.indices[(core * group + q) * cols + col]));
    for (int64_t row = core * group; row < (core + 1) * group; ++row)
      for (int64_t i = 0; i < v; ++i)
        for (int64_t j = 0; j < e; ++j)
          out[row * v * e + i * e + j] = g.values[row * f + flat[i] + j];
  }
  return out;
}

void expectGathered(TestMemory &mem, const Gather &g, const Target &target) {
  ASSERT_EQ(verifyInstruction(g.inst, Engine::GpSimd, &target), "");
  execute(g.inst, mem.memories());
  const std::vector<float> expected = reference(g, target.gpsimdPartitionsPerCore);
  const AccessPattern &dst = g.inst.dst;
  for (int64_t p = 0; p < dst.partitions; ++p)
    for (int64_t i = 0; i < dst.freeElements(); ++i)
      ASSERT_TRUE(sameValue(mem.read(dst, p, i), expected[p * dst.freeElements() + i]))
          << "dst[" << p << ", " << i << "] = " << mem.read(dst, p, i) << ", expected "
          << expected[p * dst.freeElements() + i];
}

class LocalGather : public ::testing::TestWithParam<std::string> {
protected:
  const Target &target() const { return targetNamed(GetParam()); }
};

TEST_P(LocalGather, NkiExampleReplicatedIndices) {
  // NKI's example: src [128, 512, 4] f32, index [128, 4] (one [16, 4] block replicated to the 8 cores) holding
  // element offsets index * 4, num_elem_per_idx = 4, num_valid_indices = 64: dst [128, 4, 16, 4].
  TestMemory mem(target());
  ASSERT_EQ(target().gpsimdPartitionsPerCore, 16u);
  Gather g = makeGather(target(), mem, 0, 128, 2048, 4, 4, 64, DType::F32, 1);
  for (int64_t row = 16; row < 128; ++row)
    for (int64_t col = 0; col < 4; ++col)
      g.indices[row * 4 + col] = g.indices[(row % 16) * 4 + col];
  mem.fill(g.inst.src1, g.indices);
  EXPECT_EQ(g.inst.dst.freeElements(), 4 * 16 * 4);
  expectGathered(mem, g, target());
}

TEST_P(LocalGather, EachCoreUsesItsOwnIndices) {
  TestMemory mem(target());
  // Different indices on every core, 37 of 48 valid, one element each, BF16.
  expectGathered(mem, makeGather(target(), mem, 0, 64, 300, 3, 1, 37, DType::BF16, 2), target());
}

TEST_P(LocalGather, DefaultsUseEveryIndexAndOneElement) {
  TestMemory mem(target());
  // count0 = 0 and count1 = 0 are NKI's defaults: num_elem_per_idx 1, every index of the core (16 x 2).
  expectGathered(mem, makeGather(target(), mem, 0, 32, 64, 2, 0, 0, DType::F32, 3), target());
}

TEST_P(LocalGather, Fp8EightElementsPerIndexFromPartition16) {
  TestMemory mem(target());
  // Two cores from partition 16; i32 and u8 indices work as well as u32.
  expectGathered(mem, makeGather(target(), mem, 16, 32, 256, 5, 8, 80, DType::F8E4M3, 4, DType::I32), target());
  TestMemory other(target());
  expectGathered(other, makeGather(target(), other, 32, 16, 64, 1, 32, 16, DType::BF16, 5, DType::U8), target());
}

TEST_P(LocalGather, CopiesNaNInfAndSignedZeroExactly) {
  TestMemory mem(target());
  Gather g = makeGather(target(), mem, 0, 16, 8, 1, 2, 16, DType::F32, 6);
  const float special[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), -0.0f};
  for (size_t i = 0; i < g.values.size(); ++i)
    g.values[i] = special[i % 4];
  mem.fill(g.inst.src0, g.values);
  expectGathered(mem, g, target());
}

TEST_P(LocalGather, AnIndexOutOfRangeStopsWithAnError) {
  TestMemory mem(target());
  Gather g = makeGather(target(), mem, 0, 16, 64, 1, 4, 16, DType::F32, 7);
  g.indices[5] = 61; // partition 5's index: elements [61, 65) of 64-element rows
  mem.fill(g.inst.src1, g.indices);
  try {
    execute(g.inst, mem.memories());
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("index 61 (partition 5 of index, column 0) reads elements [61, 65) of "
                               "src_buffer rows that hold 64"),
              std::string::npos)
        << e.message();
  }
}

TEST_P(LocalGather, VerifyRules) {
  const Target &t = target();
  TestMemory mem(t);
  const Gather good = makeGather(t, mem, 0, 32, 64, 2, 2, 20, DType::BF16, 8);
  ASSERT_EQ(verifyInstruction(good.inst, Engine::GpSimd, &t), "");
  struct Case {
    std::string label;
    void (*change)(Instruction &);
    std::string expected;
  };
  const Case cases[] = {
      {"dst converts", [](Instruction &i) { i.dst.dtype = DType::F32; },
       "dst is f32 but src_buffer is bf16: local_gather does not convert"},
      {"float index", [](Instruction &i) { i.src1.dtype = DType::F32; }, "index must hold integers (NKI: uint16)"},
      {"psum source", [](Instruction &i) { i.src0.space = MemSpace::Psum; }, "operand src0 is in PSUM"},
      {"partitions differ", [](Instruction &i) { i.src1.partitions = 16; },
       "src_buffer, index and dst must have the same partitions, not 32, 16 and 32"},
      {"not whole cores",
       [](Instruction &i) {
         i.src0.partitions = i.src1.partitions = i.dst.partitions = 24;
       },
       "covers partitions [0, 24); each GpSimd core gathers within its 16 partitions"},
      {"off a core's start",
       [](Instruction &i) { i.src0.partitionStart = i.src1.partitionStart = i.dst.partitionStart = 8; },
       "covers partitions [8, 40)"},
      {"three elements", [](Instruction &i) { i.elementsPerIndex = 3; }, "num_elem_per_idx must be a power of two, not 3"},
      {"sixty-four elements",
       [](Instruction &i) {
         i.elementsPerIndex = 64;
         i.dst = tile(MemSpace::Sbuf, DType::BF16, 0, 32, 12288, 20 * 64);
       },
       "num_elem_per_idx 64 exceeds 32"},
      {"too many valid", [](Instruction &i) { i.validIndices = 33; },
       "num_valid_indices 33 exceeds the 32 indices of a core's 16 partitions of index"},
      {"negative valid", [](Instruction &i) { i.validIndices = -1; }, "num_valid_indices must not be negative"},
      {"dst size", [](Instruction &i) { i.dst = tile(MemSpace::Sbuf, DType::BF16, 0, 32, 12288, 39); },
       "dst must hold num_valid_indices x num_elem_per_idx = 20 x 2 = 40 elements per partition, not 39"},
  };
  for (const Case &c : cases) {
    Instruction inst = good.inst;
    c.change(inst);
    const std::string message = verifyInstruction(inst, Engine::GpSimd, &t);
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.label << ": " << message;
  }
  // 4096 indices per core at most.
  Instruction many = good.inst;
  many.src1 = tile(MemSpace::Sbuf, DType::U32, 0, 32, 8192, 257); // 16 x 257 = 4112 per core
  many.validIndices = 0;
  many.elementsPerIndex = 1;
  many.dst = tile(MemSpace::Sbuf, DType::BF16, 0, 32, 12288, 4112);
  EXPECT_NE(verifyInstruction(many, Engine::GpSimd, &t).find("4112 indices per GpSimd core exceed 4096"),
            std::string::npos);
  // Only GpSimd runs it.
  EXPECT_NE(verifyInstruction(good.inst, Engine::Vector, &t).find("cannot run on the vector engine"),
            std::string::npos);
}

TEST_P(LocalGather, CostIsNkisFormulaWithCAsCyclesPerElement) {
  const Target &t = target();
  const CostModel &c = t.cost;
  ASSERT_EQ(c.localGatherIndexCycles, 7u); // 28 / t with t = 4
  ASSERT_EQ(c.localGatherWordBytes, 4u);
  struct Case {
    DType dtype;
    int64_t e, v;
    uint64_t perWord; // min(word / dtype bytes, E)
  };
  TestMemory mem(t);
  for (Case k : {Case{DType::F32, 1, 64, 1}, Case{DType::F32, 32, 64, 1}, Case{DType::BF16, 1, 10, 1},
                 Case{DType::BF16, 2, 48, 2}, Case{DType::BF16, 16, 3, 2}, Case{DType::F8E4M3, 8, 100, 4},
                 Case{DType::F8E5M2, 2, 100, 2}}) {
    const int64_t perPartition = (k.v + 15) / 16;
    const Gather g = makeGather(t, mem, 0, 16, 64, perPartition, k.e, k.v, k.dtype, 9);
    const uint64_t streaming = (uint64_t(k.v) * (c.localGatherIndexCycles + k.e) + k.perWord - 1) / k.perWord;
    const uint64_t expected =
        c.gpsimdStartupCycles + c.accessOverheadCycles + std::max<uint64_t>(c.minInitiationCycles, streaming);
    EXPECT_EQ(engineCycles(g.inst, Engine::GpSimd, t), expected) << name(k.dtype) << " E=" << k.e << " V=" << k.v;
  }
  // More elements per index cost less per element (NKI: they "improve gather throughput").
  const Gather one = makeGather(t, mem, 0, 16, 4096, 64, 1, 1024, DType::BF16, 10);
  const Gather eight = makeGather(t, mem, 0, 16, 4096, 8, 8, 128, DType::BF16, 11);
  EXPECT_LT(engineCycles(eight.inst, Engine::GpSimd, t), engineCycles(one.inst, Engine::GpSimd, t));
  EXPECT_EQ(flops(one.inst), 0u);
}

INSTANTIATE_TEST_SUITE_P(Builtin, LocalGather, ::testing::Values("trn1", "trn2", "trn3"));

} // namespace
} // namespace tessera::isa
