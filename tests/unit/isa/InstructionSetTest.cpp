// The instruction set as a whole: every opcode has exactly one complete definition of one family, names are unique
// and round-trip, and the shared checks (engine, family, generation, operand presence, reachability) hold for all
// of them.

#include "tessera/isa/InstructionSet.h"

#include <fmt/format.h>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tessera::isa {
namespace {

TEST(InstructionSet, EveryOpcodeHasACompleteDefinition) {
  ASSERT_EQ(instructionSet().size(), kOpcodeCount);
  std::set<std::string_view> names, nkiNames;
  for (unsigned i = 0; i < kOpcodeCount; ++i) {
    const auto op = static_cast<Opcode>(i);
    const InstructionDef &def = definition(op);
    SCOPED_TRACE(std::string(def.name));
    EXPECT_EQ(def.op, op);
    EXPECT_FALSE(def.name.empty());
    EXPECT_FALSE(def.summary.empty());
    EXPECT_FALSE(def.engines.empty());
    EXPECT_TRUE(def.engines.contains(def.preferredEngine));
    EXPECT_TRUE(def.since == "v2" || def.since == "v3" || def.since == "v4") << def.since;
    // Only the scalar core's grid_step has no operands.
    EXPECT_EQ(def.operands.empty(), op == Opcode::GridStep);
    if (def.family == "tpu") {
      // What Pallas calls it, then what Mosaic does: "jnp.dot / tpu.matmul".
      EXPECT_NE(def.nki.find(" / "), std::string_view::npos) << def.nki;
      EXPECT_FALSE(def.nki.starts_with("nki.")) << def.nki;
      EXPECT_EQ(def.since, "v4");
      for (Engine e : {Engine::Tensor, Engine::Vector, Engine::Scalar, Engine::GpSimd})
        EXPECT_FALSE(def.engines.contains(e)) << name(e);
    } else {
      EXPECT_TRUE(def.family == "neuroncore" || def.family == kAnyFamily) << def.family;
      EXPECT_TRUE(def.nki.starts_with("nki.")) << def.nki;
    }
    if (def.family == "neuroncore") {
      for (Engine e : {Engine::Mxu, Engine::Vpu, Engine::ScalarUnit})
        EXPECT_FALSE(def.engines.contains(e)) << name(e);
    }
    EXPECT_FALSE(def.cost.empty());
    EXPECT_TRUE(def.use && def.verify && def.execute && def.cycles);
    EXPECT_TRUE(names.insert(def.name).second) << "duplicate name";
    EXPECT_TRUE(nkiNames.insert(def.nki).second) << "duplicate NKI name";
    EXPECT_EQ(parseOpcode(def.name), op);
    EXPECT_EQ(name(op), def.name);
  }
  EXPECT_EQ(parseOpcode("no_such_instruction"), std::nullopt);
}

TEST(InstructionSet, OperatorNamesRoundTrip) {
  for (unsigned i = 0; i <= static_cast<unsigned>(AluOp::LogicalOr); ++i) {
    const auto op = static_cast<AluOp>(i);
    EXPECT_NE(name(op), "unknown");
    EXPECT_EQ(parseAluOp(name(op)), op);
  }
  for (unsigned i = 0; i <= static_cast<unsigned>(ActFunc::Reciprocal); ++i) {
    const auto f = static_cast<ActFunc>(i);
    EXPECT_NE(name(f), "unknown");
    EXPECT_EQ(parseActFunc(name(f)), f);
  }
}

TEST(InstructionSet, SharedChecks) {
  const Target trn1 = Target::find("trn1"), trn2 = Target::find("trn2");
  Instruction copy;
  copy.op = Opcode::TensorCopy;
  copy.dst = AccessPattern::dense(MemSpace::Psum, DType::F32, 0, 16, 0, 8);
  copy.src0 = AccessPattern::dense(MemSpace::Sbuf, DType::BF16, 0, 16, 0, 8);
  EXPECT_EQ(verifyInstruction(copy, Engine::Vector, &trn2), "");
  EXPECT_EQ(verifyInstruction(copy, Engine::Tensor, &trn2), "cannot run on the tensor engine");
  EXPECT_EQ(verifyInstruction(copy, Engine::GpSimd, &trn2),
            "operand dst is in PSUM, which the GpSimd engine cannot reach");
  Instruction fromHbm = copy;
  fromHbm.src0.space = MemSpace::Hbm;
  fromHbm.src0.tensor = 0;
  EXPECT_EQ(verifyInstruction(fromHbm, Engine::Vector, &trn2),
            "operand src0 is in HBM; compute engines reach only SBUF and PSUM");
  Instruction missing = copy;
  missing.src0 = {};
  EXPECT_EQ(verifyInstruction(missing, std::nullopt, nullptr), "needs operand src0");

  // An instruction that exists from v3 on is refused on trn1 (v2) with the generations named.
  for (const InstructionDef &def : instructionSet()) {
    if (def.since != "v3") continue;
    Instruction inst;
    inst.op = def.op;
    const std::string expected = "exists from NeuronCore-v3 on; target trn1 is NeuronCore-v2";
    const std::string cited = def.sinceSource.empty()
                                  ? std::string()
                                  : fmt::format(" [rule {}.generation: {}]", def.name, def.sinceSource);
    EXPECT_EQ(verifyInstruction(inst, std::nullopt, &trn1), expected + cited) << def.name;
  }
  EXPECT_TRUE(generationAtLeast(trn2, "v3"));
  EXPECT_FALSE(generationAtLeast(trn1, "v3"));
}

} // namespace
} // namespace tessera::isa
