/// \file
/// The Scalar engine's activation and activation_reduce: every activation function against its definition written
/// out here (not isa::apply), with scale and bias as immediates and as a [P, 1] tile, on random and edge inputs
/// (NaN, infinities, signed zeros, overflow), with BF16, FP8 and integer outputs; the shape and reduce-op rules;
/// and the cost on every NeuronCore target from its coefficients.

#include "InstructionTestSupport.h"

#include "tessera/isa/Cost.h"

#include <fmt/format.h>

#include <limits>
#include <numbers>

namespace tessera::isa {
namespace {

using namespace tessera::isa::testing;

/// Each activation function from its mathematical definition, in double precision: the value the engine's FP32
/// result approximates.
double exactValue(ActFunc f, double x) {
  switch (f) {
  case ActFunc::Identity: return x;
  case ActFunc::Exp: return std::exp(x);
  case ActFunc::Log: return std::log(x);
  case ActFunc::Tanh: return std::tanh(x);
  case ActFunc::Gelu: return x * 0.5 * (1.0 + std::erf(x / std::numbers::sqrt2));
  case ActFunc::GeluApproxTanh:
    return x * 0.5 * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
  case ActFunc::Silu: return x / (1.0 + std::exp(-x));
  case ActFunc::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
  case ActFunc::Relu: return std::isnan(x) ? x : (x > 0.0 ? x : 0.0);
  case ActFunc::Rsqrt: return 1.0 / std::sqrt(x);
  case ActFunc::Square: return x * x;
  case ActFunc::Sqrt: return std::sqrt(x);
  case ActFunc::Reciprocal: return 1.0 / x;
  }
  ADD_FAILURE() << "unknown function";
  return 0.0;
}

/// The function's value at the FP32 argument `v`, as FP32 (overflowing to infinity where FP32 does).
float reference(ActFunc f, float v) { return static_cast<float>(exactValue(f, v)); }

constexpr ActFunc kAllFunctions[] = {
    ActFunc::Identity, ActFunc::Exp,     ActFunc::Log,  ActFunc::Tanh,  ActFunc::Gelu,
    ActFunc::GeluApproxTanh, ActFunc::Silu, ActFunc::Sigmoid, ActFunc::Relu, ActFunc::Rsqrt,
    ActFunc::Square,   ActFunc::Sqrt,    ActFunc::Reciprocal,
};

/// Functions that FP32 computes correctly rounded (a single operation); the others are compared within a
/// tolerance (see accurate()).
bool exact(ActFunc f) { return f == ActFunc::Identity || f == ActFunc::Relu || f == ActFunc::Square; }
constexpr float kUlps = 8;

/// `actual` is within 16 FP32 ulps of f(v), plus 4 epsilon x |v| for the cancellation in 1 + erf(v) and
/// 1 + tanh(...) of the GELUs at negative v; NaN, infinities and zeros' signs must match exactly.
::testing::AssertionResult accurate(ActFunc f, float v, float actual) {
  const float expected = reference(f, v);
  if (sameFloat(expected, actual))
    return ::testing::AssertionSuccess();
  if (std::isfinite(expected) && std::isfinite(actual)) {
    const float ulp = std::nextafter(std::fabs(expected), INFINITY) - std::fabs(expected);
    const double tolerance = 16.0 * ulp + 4.0 * std::numeric_limits<float>::epsilon() * std::fabs(v);
    if (std::fabs(double(actual) - exactValue(f, v)) <= tolerance)
      return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << name(f) << "(" << v << ") = " << exactValue(f, v) << ", got " << actual;
}

/// Inputs that probe every function's edges, for one partition's row.
std::vector<float> edgeInputs() {
  const float inf = INFINITY;
  return {std::nanf(""), inf, -inf, 0.0f, -0.0f, 1.0f, -1.0f, 1e-30f, -1e-30f, 88.0f, 89.0f, -104.0f,
          1e20f, -1e20f, 0.5f, -0.5f, 3.0f, -3.0f, 20.0f, -20.0f};
}

struct Case {
  ActFunc func;
  bool biasTile;
};

class EachActivation : public ::testing::TestWithParam<Case> {};

/// activation and activation_reduce on 6 partitions (from partition 3) of 20 elements: random values, with the
/// edge inputs in the last partition; dst FP32 at another partition; scale 0.75, bias 0.5 or a tile.
TEST_P(EachActivation, MatchesTheDefinitionAndReducesTheFp32Results) {
  const auto [func, biasTile] = GetParam();
  for (Opcode op : {Opcode::Activation, Opcode::ActivationReduce}) {
    SCOPED_TRACE(std::string(name(op)) + " " + std::string(name(func)) + (biasTile ? " bias tile" : " bias imm"));
    TestMemory mem;
    constexpr uint32_t kRows = 6;
    const std::vector<float> edges = edgeInputs();
    const int64_t n = static_cast<int64_t>(edges.size());
    Instruction inst;
    inst.op = op;
    inst.func = func;
    inst.alu = AluOp::Add;
    inst.scale = 0.75f;
    inst.bias = 0.5f;
    inst.src0 = sbuf(DType::F32, 3, kRows, 0, n);
    inst.dst = sbuf(DType::F32, 40, kRows, 1024, n);
    std::vector<float> x = mem.fillRandom(inst.src0, 7, -4.0f, 4.0f);
    std::copy(edges.begin(), edges.end(), x.end() - n);
    x = mem.write(inst.src0, x);
    std::vector<float> bias(kRows, inst.bias);
    if (biasTile) {
      inst.src1 = sbuf(DType::F32, 3, kRows, 4096, 1);
      bias = mem.write(inst.src1, {0.25f, -1.0f, 2.0f, 0.0f, -0.125f, 1.5f});
    }
    if (op == Opcode::ActivationReduce) {
      inst.dst2 = sbuf(DType::F32, 60, kRows, 2048, 1);
      mem.poison(inst.dst2);
    }
    mem.poison(inst.dst);
    ASSERT_EQ(verifyInstruction(inst, Engine::Scalar, nullptr), "");
    execute(inst, mem.memories());

    const std::vector<float> out = mem.readAll(inst.dst);
    for (uint32_t p = 0; p < kRows; ++p) {
      double sum = 0, magnitude = 0;
      bool nan = false;
      for (int64_t i = 0; i < n; ++i) {
        const size_t at = p * n + i;
        const float v = x[at] * inst.scale + bias[p];
        const float expected = reference(func, v);
        if (exact(func))
          EXPECT_TRUE(sameFloat(expected, out[at])) << "p " << p << " i " << i << ": " << expected << " vs " << out[at];
        else
          EXPECT_TRUE(accurate(func, v, out[at])) << "p " << p << " i " << i;
        sum += expected;
        magnitude += std::fabs(expected);
        nan = nan || std::isnan(expected);
      }
      if (op != Opcode::ActivationReduce)
        continue;
      const float reduced = mem.read(inst.dst2, p, 0);
      if (nan || std::isinf(sum) || std::isnan(sum)) {
        EXPECT_TRUE(!std::isfinite(reduced)) << "p " << p << ": " << reduced;
        continue;
      }
      EXPECT_NEAR(reduced, sum, 4e-6 * magnitude + 1e-30) << "p " << p;
    }
  }
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (ActFunc f : kAllFunctions)
    for (bool tile : {false, true})
      cases.push_back({f, tile});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllFunctions, EachActivation, ::testing::ValuesIn(allCases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(name(info.param.func)) + (info.param.biasTile ? "_BiasTile" : "_BiasImm");
                         });

TEST(Activation, EdgeValuesOfEachFunction) {
  // A few values whose results are known without any formula.
  struct Known {
    ActFunc f;
    float x, y;
  };
  const float inf = INFINITY;
  const Known known[] = {
      {ActFunc::Exp, -inf, 0.0f},       {ActFunc::Exp, inf, inf},          {ActFunc::Exp, 0.0f, 1.0f},
      {ActFunc::Log, 0.0f, -inf},       {ActFunc::Log, 1.0f, 0.0f},        {ActFunc::Log, inf, inf},
      {ActFunc::Tanh, inf, 1.0f},       {ActFunc::Tanh, -inf, -1.0f},      {ActFunc::Tanh, -0.0f, -0.0f},
      {ActFunc::Gelu, 0.0f, 0.0f},      {ActFunc::Gelu, inf, inf},         {ActFunc::GeluApproxTanh, inf, inf},
      {ActFunc::Silu, 0.0f, 0.0f},      {ActFunc::Silu, inf, inf},         {ActFunc::Sigmoid, 0.0f, 0.5f},
      {ActFunc::Sigmoid, -inf, 0.0f},   {ActFunc::Sigmoid, inf, 1.0f},     {ActFunc::Relu, -0.0f, 0.0f},
      {ActFunc::Relu, -inf, 0.0f},      {ActFunc::Relu, 2.5f, 2.5f},       {ActFunc::Rsqrt, 0.0f, inf},
      {ActFunc::Rsqrt, 4.0f, 0.5f},     {ActFunc::Rsqrt, inf, 0.0f},       {ActFunc::Square, -3.0f, 9.0f},
      {ActFunc::Sqrt, 4.0f, 2.0f},      {ActFunc::Sqrt, -0.0f, -0.0f},     {ActFunc::Reciprocal, -0.0f, -inf},
      {ActFunc::Reciprocal, 4.0f, 0.25f},
  };
  const float nan = std::nanf("");
  const Known nans[] = {{ActFunc::Log, -1.0f, nan},  {ActFunc::Sqrt, -1.0f, nan}, {ActFunc::Rsqrt, -4.0f, nan},
                        {ActFunc::Relu, nan, nan},   {ActFunc::Exp, nan, nan},    {ActFunc::Sigmoid, nan, nan}};
  for (const auto &list : {std::span<const Known>(known), std::span<const Known>(nans)})
    for (const Known &k : list) {
      TestMemory mem;
      Instruction inst;
      inst.op = Opcode::Activation;
      inst.func = k.f;
      inst.scale = 1.0f;
      inst.bias = -0.0f; // x * 1 + (-0) is x, also for x = -0 (+0 would turn -0 into +0)
      inst.src0 = sbuf(DType::F32, 0, 1, 0, 1);
      inst.dst = sbuf(DType::F32, 0, 1, 64, 1);
      mem.write(inst.src0, {k.x});
      execute(inst, mem.memories());
      EXPECT_TRUE(sameFloat(mem.read(inst.dst, 0, 0), k.y))
          << name(k.f) << "(" << k.x << ") = " << mem.read(inst.dst, 0, 0) << ", expected " << k.y;
    }
}

TEST(Activation, RoundsOutputsToBf16Fp8AndIntegers) {
  // BF16 input walked with a stride; outputs rounded to nearest even in each format (saturating for integers).
  for (DType out : {DType::BF16, DType::F8E4M3, DType::F8E5M2, DType::I32, DType::U8}) {
    for (ActFunc f : {ActFunc::Identity, ActFunc::Exp, ActFunc::Tanh, ActFunc::Square}) {
      SCOPED_TRACE(std::string(name(out)) + " " + std::string(name(f)));
      TestMemory mem;
      Instruction inst;
      inst.op = Opcode::ActivationReduce;
      inst.func = f;
      inst.scale = 1.5f;
      inst.bias = -0.25f;
      inst.src0 = strided(DType::BF16, 0, 4, 0, {2, 16}, {64, 2}); // every other element of two rows 64 apart
      inst.dst = sbuf(out, 8, 4, 4096, 32);
      inst.dst2 = sbuf(DType::BF16, 8, 4, 8192, 1);
      std::vector<float> x = mem.fillRandom(inst.src0, 11, -6.0f, 6.0f);
      x[0] = 2.0f / 3.0f;   // x * 1.5 - 0.25 = 0.75: exact, not a tie anywhere
      x[1] = 500.0f / 1.5f; // beyond FP8 e4m3's 448
      x = mem.write(inst.src0, x);
      ASSERT_EQ(verifyInstruction(inst, Engine::Scalar, nullptr), "");
      execute(inst, mem.memories());
      const std::vector<float> got = mem.readAll(inst.dst);
      for (size_t i = 0; i < x.size(); ++i) {
        const float expected = reference(f, x[i] * inst.scale + inst.bias);
        EXPECT_TRUE(roundsTo(out, expected, got[i], exact(f) ? 0 : kUlps)) << "element " << i;
      }
      // The reduction adds the FP32 results, not the rounded ones, and is rounded once, to BF16.
      for (uint32_t p = 0; p < 4; ++p) {
        float sum = 0.0f;
        for (int64_t i = 0; i < 32; ++i)
          sum += reference(f, x[p * 32 + i] * inst.scale + inst.bias);
        EXPECT_TRUE(roundsTo(DType::BF16, sum, mem.read(inst.dst2, p, 0), 64)) << "partition " << p;
      }
    }
  }
}

TEST(Activation, IntegerInputsDecodeExactly) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::Activation;
  inst.func = ActFunc::Square;
  inst.scale = 1.0f;
  inst.src0 = sbuf(DType::I32, 0, 2, 0, 4);
  inst.dst = sbuf(DType::F32, 0, 2, 64, 4);
  mem.write(inst.src0, {-3, 0, 4095, -2, 7, 1, -1, 100});
  execute(inst, mem.memories());
  EXPECT_EQ(mem.readAll(inst.dst), (std::vector<float>{9, 0, 4095.0f * 4095.0f, 4, 49, 1, 1, 10000}));
}

TEST(ActivationReduce, ReducesWithAddOnly) {
  TestMemory mem;
  Instruction inst;
  inst.op = Opcode::ActivationReduce;
  inst.func = ActFunc::Exp;
  inst.scale = 1.0f;
  inst.src0 = sbuf(DType::F32, 0, 2, 0, 5);
  inst.dst = sbuf(DType::F32, 0, 2, 64, 5);
  inst.dst2 = sbuf(DType::F32, 0, 2, 128, 1);
  const std::vector<float> x = mem.write(inst.src0, {0, -1, 2, -3, 1, 5, 4, -7, 3, 0});
  const Target trn1 = Target::find("trn1"), trn2 = Target::find("trn2"), trn3 = Target::find("trn3");
  inst.alu = AluOp::Add;
  for (const Target *target : {&trn1, &trn2, &trn3})
    EXPECT_EQ(verifyInstruction(inst, Engine::Scalar, target), "") << target->name;
  // The scalar engine's reduction registers only sum (NKI 2.33): every other reduce_op is refused on every
  // generation, naming the rule.
  for (AluOp op : {AluOp::Max, AluOp::Min, AluOp::Multiply}) {
    inst.alu = op;
    for (const Target *target : {&trn1, &trn2, &trn3})
      EXPECT_NE(verifyInstruction(inst, Engine::Scalar, target)
                    .find(fmt::format("reduce_op must be add, not {}: the scalar engine's reduction registers only "
                                      "sum (reduce with tensor_reduce instead) [rule activation_reduce.reduce-op",
                                      name(op))),
                std::string::npos)
          << target->name;
  }
}

TEST(ActivationReduce, UsesItsOperands) {
  Instruction inst;
  inst.op = Opcode::ActivationReduce;
  inst.src0 = sbuf(DType::F32, 0, 4, 0, 8);
  inst.dst = sbuf(DType::F32, 0, 4, 64, 8);
  inst.dst2 = sbuf(DType::F32, 0, 4, 128, 1);
  OperandUse use = operandUse(inst);
  EXPECT_TRUE(use.src0 && use.writesDst && use.writesDst2);
  EXPECT_FALSE(use.src1 || use.src2 || use.readsDst);
  inst.src1 = sbuf(DType::F32, 0, 4, 256, 1);
  EXPECT_TRUE(operandUse(inst).src1);
}

TEST(Activation, ATileOfScalesScalesEachRow) {
  Instruction inst;
  inst.op = Opcode::Activation;
  inst.func = ActFunc::Identity;
  inst.src0 = sbuf(DType::F32, 0, 4, 0, 8);
  inst.dst = sbuf(DType::F32, 0, 4, 64, 8);
  inst.src2 = sbuf(DType::F32, 0, 4, 128, 1);
  ASSERT_EQ(verifyInstruction(inst, Engine::Scalar, nullptr), "");
  EXPECT_TRUE(operandUse(inst).src2);
  // A scale tile wider than one value per row is refused.
  inst.src2 = sbuf(DType::F32, 0, 4, 128, 2);
  EXPECT_NE(verifyInstruction(inst, Engine::Scalar, nullptr).find("scale"), std::string::npos);
}

TEST(ActivationReduce, Verify) {
  Instruction inst;
  inst.op = Opcode::ActivationReduce;
  inst.src0 = sbuf(DType::F32, 0, 4, 0, 8);
  inst.dst = sbuf(DType::F32, 0, 4, 64, 8);
  inst.dst2 = sbuf(DType::F32, 0, 4, 128, 1);
  EXPECT_EQ(verifyInstruction(inst, Engine::Scalar, nullptr), "");
  EXPECT_NE(verifyInstruction(inst, Engine::Vector, nullptr).find("cannot run on the vector engine"),
            std::string::npos);

  Instruction wrong = inst;
  wrong.dst2 = sbuf(DType::F32, 0, 4, 128, 2);
  EXPECT_NE(verifyInstruction(wrong, Engine::Scalar, nullptr).find("reduce_res must be a [4, 1] tile"),
            std::string::npos);
  wrong = inst;
  wrong.dst2 = AccessPattern{};
  EXPECT_NE(verifyInstruction(wrong, Engine::Scalar, nullptr).find("needs operand dst2"), std::string::npos);
  wrong = inst;
  wrong.dst = sbuf(DType::F32, 0, 4, 64, 7);
  EXPECT_NE(verifyInstruction(wrong, Engine::Scalar, nullptr).find("dst is [4, 7] but data is [4, 8]"),
            std::string::npos);
  wrong = inst;
  wrong.src1 = sbuf(DType::F32, 0, 3, 256, 1);
  EXPECT_NE(verifyInstruction(wrong, Engine::Scalar, nullptr).find("bias must be a [4, 1] tile"), std::string::npos);
}

TEST(Activation, CostOnEveryNeuronCore) {
  const std::vector<Target> targets = neuronCoreTargets();
  ASSERT_GE(targets.size(), 2u);
  for (const Target &t : targets) {
    SCOPED_TRACE(t.name);
    for (int64_t n : {1, 64, 65, 300, 2048}) {
      Instruction inst;
      inst.op = Opcode::Activation;
      inst.src0 = sbuf(DType::BF16, 0, 128, 0, n);
      inst.dst = sbuf(DType::BF16, 0, 128, 0, n);
      EXPECT_EQ(engineCycles(inst, Engine::Scalar, t), expectedStreamingCycles(t, Engine::Scalar, n));
      inst.op = Opcode::ActivationReduce;
      inst.dst2 = sbuf(DType::F32, 0, 128, 0, 1);
      // NKI: max(MIN_II, N) + MIN_II; the second term reads the reduction registers out.
      EXPECT_EQ(engineCycles(inst, Engine::Scalar, t),
                expectedStreamingCycles(t, Engine::Scalar, n) + t.cost.actReadAccumulatorCycles);
    }
    EXPECT_EQ(t.cost.actReadAccumulatorCycles, t.cost.minInitiationCycles); // the documented "+ MIN_II"
  }
}

TEST(Activation, CostFollowsTheTargetCoefficients) {
  Target t = Target::find("trn2");
  t.cost.accessOverheadCycles = 3;
  t.cost.minInitiationCycles = 5;
  t.cost.actReadAccumulatorCycles = 7;
  Instruction inst;
  inst.op = Opcode::ActivationReduce;
  inst.src0 = sbuf(DType::F32, 0, 16, 0, 100);
  inst.dst = sbuf(DType::F32, 0, 16, 0, 100);
  inst.dst2 = sbuf(DType::F32, 0, 16, 0, 1);
  EXPECT_EQ(engineCycles(inst, Engine::Scalar, t), 3u + 100u + 7u);
  inst.src0 = sbuf(DType::F32, 0, 16, 0, 2);
  EXPECT_EQ(engineCycles(inst, Engine::Scalar, t), 3u + 5u + 7u);
}

} // namespace
} // namespace tessera::isa
