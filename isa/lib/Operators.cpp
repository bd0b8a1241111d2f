/// \file
/// The engines' ALU operations and activation functions: their names (in DSL code, MLIR text, reports and the
/// ISA reference) and what they compute, in FP32.

#include "tessera/isa/InstructionSet.h"

#include <array>
#include <cmath>
#include <numbers>

namespace tessera::isa {
namespace {

template <typename Enum> struct Named {
  Enum value;
  std::string_view name;
  std::string_view nki; ///< NKI 0.6's nki.language function for it (nki.api.shared.rst, "NKI ALU operators" and
                        ///< "activation functions"), "" where NKI has none
};

constexpr std::array<Named<AluOp>, 17> kAluOps = {{
    {AluOp::Add, "add", "add"},
    {AluOp::Subtract, "subtract", "subtract"},
    {AluOp::Multiply, "multiply", "multiply"},
    {AluOp::Max, "max", "maximum"},
    {AluOp::Min, "min", "minimum"},
    {AluOp::Divide, "divide", "divide"},
    {AluOp::Bypass, "bypass", "bypass"},
    {AluOp::Power, "power", "power"},
    {AluOp::AbsMax, "abs_max", "abs_max"},
    {AluOp::IsEqual, "is_equal", "equal"},
    {AluOp::NotEqual, "not_equal", "not_equal"},
    {AluOp::IsGt, "is_gt", "greater"},
    {AluOp::IsGe, "is_ge", "greater_equal"},
    {AluOp::IsLt, "is_lt", "less"},
    {AluOp::IsLe, "is_le", "less_equal"},
    {AluOp::LogicalAnd, "logical_and", "logical_and"},
    {AluOp::LogicalOr, "logical_or", "logical_or"},
}};

constexpr std::array<Named<ActFunc>, 13> kActFuncs = {{
    {ActFunc::Identity, "identity", "copy"},
    {ActFunc::Exp, "exp", "exp"},
    {ActFunc::Log, "log", "log"},
    {ActFunc::Tanh, "tanh", "tanh"},
    {ActFunc::Gelu, "gelu", "gelu"},
    {ActFunc::GeluApproxTanh, "gelu_apprx_tanh", "gelu_apprx_tanh"},
    {ActFunc::Silu, "silu", "silu"},
    {ActFunc::Sigmoid, "sigmoid", "sigmoid"},
    {ActFunc::Relu, "relu", "relu"},
    {ActFunc::Rsqrt, "rsqrt", "rsqrt"},
    {ActFunc::Square, "square", "square"},
    {ActFunc::Sqrt, "sqrt", "sqrt"},
    {ActFunc::Reciprocal, "reciprocal", "reciprocal"},
}};

template <typename Enum, size_t N> std::string_view nameIn(const std::array<Named<Enum>, N> &table, Enum value) {
  for (const Named<Enum> &entry : table)
    if (entry.value == value)
      return entry.name;
  return "unknown";
}

template <typename Enum, size_t N> std::string_view nkiNameIn(const std::array<Named<Enum>, N> &table, Enum value) {
  for (const Named<Enum> &entry : table)
    if (entry.value == value)
      return entry.nki;
  return "";
}

template <typename Enum, size_t N>
std::optional<Enum> parseIn(const std::array<Named<Enum>, N> &table, std::string_view name) {
  for (const Named<Enum> &entry : table)
    if (entry.name == name)
      return entry.value;
  return std::nullopt;
}

float truth(bool b) { return b ? 1.0f : 0.0f; }

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

} // namespace

std::string_view name(Opcode op) { return definition(op).name; }

std::optional<Opcode> parseOpcode(std::string_view name) {
  for (const InstructionDef &def : instructionSet())
    if (def.name == name)
      return def.op;
  return std::nullopt;
}

std::string_view name(AluOp op) { return nameIn(kAluOps, op); }

bool isComparison(AluOp op) {
  switch (op) {
  case AluOp::IsEqual:
  case AluOp::NotEqual:
  case AluOp::IsGt:
  case AluOp::IsGe:
  case AluOp::IsLt:
  case AluOp::IsLe: return true;
  default: return false;
  }
}
std::optional<AluOp> parseAluOp(std::string_view name) { return parseIn(kAluOps, name); }
std::string_view name(ActFunc f) { return nameIn(kActFuncs, f); }
std::string_view nkiName(AluOp op) { return nkiNameIn(kAluOps, op); }
std::string_view nkiName(ActFunc f) { return nkiNameIn(kActFuncs, f); }
std::optional<ActFunc> parseActFunc(std::string_view name) { return parseIn(kActFuncs, name); }

float apply(AluOp op, float a, float b) {
  switch (op) {
  case AluOp::Add: return a + b;
  case AluOp::Subtract: return a - b;
  case AluOp::Multiply: return a * b;
  case AluOp::Max: return (a > b || std::isnan(a)) ? a : b;
  case AluOp::Min: return (a < b || std::isnan(a)) ? a : b;
  case AluOp::Divide: return a / b;
  case AluOp::Bypass: return a;
  case AluOp::Power: return std::pow(a, b);
  case AluOp::AbsMax: return apply(AluOp::Max, std::fabs(a), std::fabs(b));
  case AluOp::IsEqual: return truth(a == b);
  case AluOp::NotEqual: return truth(a != b);
  case AluOp::IsGt: return truth(a > b);
  case AluOp::IsGe: return truth(a >= b);
  case AluOp::IsLt: return truth(a < b);
  case AluOp::IsLe: return truth(a <= b);
  case AluOp::LogicalAnd: return truth(a != 0.0f && b != 0.0f);
  case AluOp::LogicalOr: return truth(a != 0.0f || b != 0.0f);
  }
  return a;
}

float apply(ActFunc f, float x) {
  switch (f) {
  case ActFunc::Identity: return x;
  case ActFunc::Exp: return std::exp(x);
  case ActFunc::Log: return std::log(x);
  case ActFunc::Tanh: return std::tanh(x);
  case ActFunc::Gelu: return 0.5f * x * (1.0f + std::erf(x / std::numbers::sqrt2_v<float>));
  case ActFunc::GeluApproxTanh: {
    // tanh approximation of GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks & Gimpel).
    constexpr float kSqrt2OverPi = 0.7978845608028654f;
    constexpr float kCubic = 0.044715f;
    return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + kCubic * x * x * x)));
  }
  case ActFunc::Silu: return x * sigmoid(x);
  case ActFunc::Sigmoid: return sigmoid(x);
  case ActFunc::Relu: return (x > 0.0f || std::isnan(x)) ? x : 0.0f;
  case ActFunc::Rsqrt: return 1.0f / std::sqrt(x);
  case ActFunc::Square: return x * x;
  case ActFunc::Sqrt: return std::sqrt(x);
  case ActFunc::Reciprocal: return 1.0f / x;
  }
  return x;
}

} // namespace tessera::isa
