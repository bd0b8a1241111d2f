// CompileOptions::recordProvenance: every instruction of the program, in program order, with the tile op it came
// from, and each on-chip operand placed in one of that op's tiles (the copy the unrolled iteration uses).

#include "tessera/Driver.h"
#include "tessera/compiler/Compiler.h"

#include <gtest/gtest.h>

#include <set>

namespace {

using namespace tessera;

compiler::CompileResult compileWithProvenance(const std::string &kernel, const std::string &target,
                                              const std::map<std::string, int64_t> &shape, bool record = true) {
  tsr::Params params;
  tsr::graph::KernelGraph graph = driver::traceKernel(driver::findKernel(kernel), shape, params);
  compiler::CompileOptions options;
  options.recordProvenance = record;
  return compiler::compile(graph, driver::loadTarget(target), options);
}

const isa::Instruction &instructionAt(const isa::Program &p, const compiler::ProgramStep &s) {
  return p.streams.at(s.stream).instructions.at(s.index);
}

class ProvenanceOnEachFamily : public testing::TestWithParam<const char *> {};

TEST_P(ProvenanceOnEachFamily, EveryInstructionOnceAndEveryOnChipOperandInATileOfItsOp) {
  compiler::CompileResult r = compileWithProvenance("add", GetParam(), {{"M", 256}, {"N", 512}});
  const compiler::Provenance &prov = r.provenance;
  ASSERT_EQ(prov.order.size(), r.program.instructionCount());
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const compiler::ProgramStep &s : prov.order) {
    EXPECT_TRUE(seen.insert({s.stream, s.index}).second) << "instruction listed twice";
    const isa::Instruction &inst = instructionAt(r.program, s);
    if (inst.op == isa::Opcode::GridStep) continue; // the scalar core's bookkeeping, no tile op of its own
    ASSERT_GE(s.tileOp, 0);
    isa::forEachOperand(inst, [&](const char *role, const isa::AccessPattern &ap, bool) {
      if (ap.space == isa::MemSpace::Hbm) return;
      std::optional<compiler::TilePlace> place = prov.place(s.tileOp, ap);
      ASSERT_TRUE(place) << isa::name(inst.op) << " " << role << " lies in no tile of "
                         << prov.tileOps[s.tileOp].op;
      EXPECT_EQ(place->row, 0);
      EXPECT_EQ(place->col, 0);
    });
  }
}

TEST_P(ProvenanceOnEachFamily, LoadsFillTheirTilesCopiesInTurn) {
  // add: two row blocks, each loads a (t0) and b (t1) into the copy of its iteration.
  compiler::CompileResult r = compileWithProvenance("add", GetParam(), {{"M", 256}, {"N", 512}});
  const compiler::Provenance &prov = r.provenance;
  std::vector<std::pair<std::string, int64_t>> loaded;
  for (const compiler::ProgramStep &s : prov.order) {
    const isa::Instruction &inst = instructionAt(r.program, s);
    if (inst.src0.space != isa::MemSpace::Hbm) continue;
    EXPECT_EQ(prov.tileOps[s.tileOp].op, "tile.load");
    std::optional<compiler::TilePlace> place = prov.place(s.tileOp, inst.dst);
    ASSERT_TRUE(place);
    loaded.emplace_back(prov.allocations[place->allocation].name, place->copy);
  }
  const std::vector<std::pair<std::string, int64_t>> expected = {{"t0", 0}, {"t1", 0}, {"t0", 1}, {"t1", 1}};
  EXPECT_EQ(loaded, expected);
}

INSTANTIATE_TEST_SUITE_P(Targets, ProvenanceOnEachFamily, testing::Values("trn2", "tpu-v5e"),
                         [](const auto &info) { return std::string(info.param[0] == 't' && info.param[1] == 'p'
                                                                       ? "tpu_v5e" : info.param); });

TEST(Provenance, MatmulWritesItsPsumAccumulator) {
  compiler::CompileResult r = compileWithProvenance("matmul", "trn2", {{"M", 128}, {"N", 512}, {"K", 256}});
  int matmuls = 0;
  for (const compiler::ProgramStep &s : r.provenance.order) {
    const isa::Instruction &inst = instructionAt(r.program, s);
    if (inst.op != isa::Opcode::Matmul) continue;
    ++matmuls;
    EXPECT_EQ(r.provenance.tileOps[s.tileOp].op, "tile.matmul");
    std::optional<compiler::TilePlace> acc = r.provenance.place(s.tileOp, inst.dst);
    ASSERT_TRUE(acc);
    const compiler::TileAllocation &a = r.provenance.allocations[acc->allocation];
    EXPECT_EQ(a.space, isa::MemSpace::Psum);
    EXPECT_EQ(a.dtype, isa::DType::F32);
    EXPECT_EQ(a.cols, 512);
  }
  EXPECT_EQ(matmuls, 2); // K = 256: two 128-row contractions
}

TEST(Provenance, NotRecordedUnlessAsked) {
  compiler::CompileResult r = compileWithProvenance("add", "trn2", {{"M", 128}, {"N", 128}}, /*record=*/false);
  EXPECT_TRUE(r.provenance.empty());
  EXPECT_TRUE(r.provenance.allocations.empty());
}

} // namespace
