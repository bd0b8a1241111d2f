/// \file
/// The TPU TensorCore's vector unit (VPU) instructions: vpu_binary, vpu_unary (transcendentals on the EUP),
/// vpu_reduce (the cross-lane step on the XLU), vpu_convert and vpu_fill. Operands live in VMEM as rows x free
/// elements; the semantics are the NeuronCore ones they match (tensor_tensor, activation, tensor_reduce,
/// tensor_copy, memset), shared through Common.h.
///
/// Cost: the VPU works on vregs of tpu.sublanes x tpu.lanes 32-bit elements, every dtype widened to 32 bits
/// (assumption: v5e has no bf16 VALU). Per destination vreg an instruction needs `loads` vreg loads, `ops` VALU
/// ops, `eup` transcendental pushes and `stores` vreg stores; the unit overlaps them, so
///   cycles = vregs x max(loads / vpu_load_slots, ops, eup x eup_cycles_per_vreg, stores / vpu_store_slots)
///            + vpu_latency_cycles
/// rounded up. The ops and EUP pushes of each operation are the tables below (assumptions: Mosaic's lowering is
/// not published).

#include "Common.h"

#include "tessera/isa/FreePattern.h"
#include "tessera/isa/RowRelayout.h"
#include "tessera/isa/TpuDtypes.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <variant>

namespace tessera::isa::instructions {
namespace {

// ---- the cost model -----------------------------------------------------------------------------------------

/// What one vreg of a VPU instruction needs.
struct VregWork {
  uint64_t loads = 0;  ///< vreg loads (one per source that is not a row broadcast)
  uint64_t ops = 0;    ///< VALU operations
  uint64_t eup = 0;    ///< pushes to the transcendental unit
  uint64_t stores = 0; ///< vreg stores
};

/// The vregs an operand occupies once widened to 32 bits: ceil(rows / sublanes) x ceil(free elements / lanes).
uint64_t vregsOf(const AccessPattern &ap, const TpuSpec &tpu) {
  return ceilDiv(ap.partitions, tpu.sublanes) * ceilDiv(elementsPerPartition(ap), tpu.lanes);
}

/// Cycles `vregs` vregs of `work` keep the VPU busy: the busiest of its load slots, VALU, EUP and store slots.
uint64_t busyCycles(uint64_t vregs, const VregWork &work, const TpuCostModel &cost) {
  return std::max({ceilDiv(vregs * work.loads, cost.vpuLoadSlots), vregs * work.ops,
                   vregs * work.eup * cost.eupCyclesPerVreg, ceilDiv(vregs * work.stores, cost.vpuStoreSlots)});
}

// ---- shared rules -------------------------------------------------------------------------------------------

std::string requireVpuType(const char *slot, const AccessPattern &ap) {
  if (!present(ap) || vpuComputes(ap.dtype))
    return {};
  return fmt::format("{} is {}; VPU arithmetic takes f32, bf16, i32 or u32: convert it with vpu_convert first", slot,
                     name(ap.dtype));
}

/// Whether `src` is an [R, 1] operand broadcast along the rows of a wider `dst`.
bool isRowBroadcast(const AccessPattern &src, const AccessPattern &dst) {
  return src.freeElements() == 1 && dst.freeElements() > 1;
}

/// A pattern that repeats one element along the row (every free dimension of size > 1 has stride 0): the
/// zero-stride form of a row broadcast, which tensor_tensor also takes.
bool isZeroStrideBroadcast(const AccessPattern &ap) {
  bool repeats = false;
  for (unsigned d = 0; d < ap.freeRank; ++d) {
    if (ap.sizes[d] > 1 && ap.strides[d] != 0)
      return false;
    repeats |= ap.sizes[d] > 1;
  }
  return repeats;
}

/// One vreg load unless `src` is a broadcast of one value per row (loaded once per row group, not per vreg).
uint64_t loadsOf(const AccessPattern &src, const AccessPattern &dst) {
  return isRowBroadcast(src, dst) || isZeroStrideBroadcast(src) ? 0 : 1;
}

/// Cycles to materialise `arrays` (rows first) in vregs: xlu_relayout_cycles_per_vreg per vreg of each, laid out
/// in (sublanes, lanes) tiles, rounded up.
uint64_t materialiseCycles(const std::vector<std::vector<int64_t>> &arrays, const Target &target) {
  int64_t vregs = 0;
  for (const std::vector<int64_t> &shape : arrays) vregs += paddedVregs(shape, target.tpu.sublanes, target.tpu.lanes);
  return static_cast<uint64_t>(std::ceil(double(vregs) * target.tpuCost.xluRelayoutCyclesPerVreg));
}

/// The relayout an access-pattern operand (Tile::ap) needs on a TPU, whose vector unit loads rows in whole tiles:
/// the arrays its reshape and transpose materialise (isa/RowRelayout.h). None for a contiguous operand or a
/// broadcast.
uint64_t relayoutCycles(const AccessPattern &ap, const Target &target) {
  if (!present(ap) || isContiguous(ap) || isZeroStrideBroadcast(ap)) return 0;
  std::vector<int64_t> pattern;
  for (unsigned d = 0; d < ap.freeRank; ++d) pattern.insert(pattern.end(), {ap.strides[d], ap.sizes[d]});
  auto relayout = rowRelayout(pattern, MovingOffset{}, std::numeric_limits<int64_t>::max() / 4);
  if (!std::holds_alternative<RowRelayout>(relayout)) return 0; // refused before, by tile-legalize-for-tpu
  return materialiseCycles(std::get<RowRelayout>(relayout).intermediates(ap.partitions), target);
}

/// The cycles of a VPU instruction doing `work` per destination vreg (the formula of the file comment), and the
/// relayouts of its access-pattern operands.
uint64_t vpuCycles(const Instruction &inst, const VregWork &work, const Target &target) {
  return busyCycles(vregsOf(inst.dst, target.tpu), work, target.tpuCost) + target.tpuCost.vpuLatencyCycles +
         relayoutCycles(inst.src0, target) + relayoutCycles(inst.src1, target) + relayoutCycles(inst.dst, target);
}

// ---- vpu_binary ---------------------------------------------------------------------------------------------

constexpr OperandDef kBinaryOperands[] = {
    {"dst", "out", "VMEM, [R, F], f32, bf16, i32 or u32"},
    {"src0", "lhs", "VMEM, [R, F] or [R, 1] (broadcast along the row)"},
    {"src1", "rhs", "VMEM, [R, F] or [R, 1] (broadcast along the row); absent: the number operand0"},
};

/// VALU ops and EUP pushes per vreg of each ALU operation (assumptions): add, subtract, multiply, max, min one op;
/// divide a reciprocal on the EUP, one Newton step for FP32 accuracy (two ops) and the multiply; power exp(b log a);
/// abs_max two absolute values and a max; a comparison a compare into a mask and a select of 1.0 or 0.0; a logical
/// operation two compares with zero, the and/or of the masks and a select; bypass nothing.
VregWork aluWork(AluOp op) {
  switch (op) {
  case AluOp::Add:
  case AluOp::Subtract:
  case AluOp::Multiply:
  case AluOp::Max:
  case AluOp::Min: return {.ops = 1};
  case AluOp::Divide: return {.ops = 3, .eup = 1};
  case AluOp::Bypass: return {};
  case AluOp::Power: return {.ops = 1, .eup = 2};
  case AluOp::AbsMax: return {.ops = 3};
  case AluOp::IsEqual:
  case AluOp::NotEqual:
  case AluOp::IsGt:
  case AluOp::IsGe:
  case AluOp::IsLt:
  case AluOp::IsLe: return {.ops = 2};
  case AluOp::LogicalAnd:
  case AluOp::LogicalOr: return {.ops = 4};
  }
  return {.ops = 1};
}

std::string requireSameOrRowShape(const char *slot, const AccessPattern &src, const AccessPattern &dst) {
  if (src.partitions == dst.partitions && (src.freeElements() == dst.freeElements() || src.freeElements() == 1))
    return {};
  return fmt::format("{} is [{}, {}] but out is [{}, {}]; it must be [{}, {}] or [{}, 1] (broadcast along the row)",
                     slot, src.partitions, src.freeElements(), dst.partitions, dst.freeElements(), dst.partitions,
                     dst.freeElements(), dst.partitions);
}

std::string verifyBinary(const Instruction &inst, const Target *) {
  if (!present(inst.src1) && inst.alu1 != AluOp::Bypass)
    return "a second stage (op1) needs tensor_scalar; vpu_binary with a number has one operation";
  return firstProblem({requireSameOrRowShape("lhs", inst.src0, inst.dst),
                       present(inst.src1) ? requireSameOrRowShape("rhs", inst.src1, inst.dst) : "",
                       requireVpuType("out", inst.dst), requireVpuType("lhs", inst.src0),
                       requireVpuType("rhs", inst.src1)});
}

/// lhs <op> rhs, or lhs <op> operand0 (operand0 <op> lhs when reverse0) when there is no rhs: a number splatted
/// into a vreg once, as jnp broadcasts a Python float.
void binary(const Instruction &inst, const Memories &mem) {
  if (present(inst.src1)) return tensorTensor(inst, mem);
  tensorScalar(inst, mem);
}

/// A number needs no load: it is splatted into a vreg once per instruction.
uint64_t binaryCycles(const Instruction &inst, Engine, const Target &target) {
  VregWork work = aluWork(inst.alu);
  work.loads = loadsOf(inst.src0, inst.dst) + (present(inst.src1) ? loadsOf(inst.src1, inst.dst) : 0);
  work.stores = 1;
  return vpuCycles(inst, work, target);
}

// ---- vpu_unary ----------------------------------------------------------------------------------------------

constexpr OperandDef kUnaryOperands[] = {
    {"dst", "out", "VMEM, same shape as x; f32, bf16, i32 or u32"},
    {"src0", "x", "VMEM"},
};

/// VALU ops and EUP pushes per vreg of each function, from its composition (assumptions): exp, log, tanh, rsqrt,
/// sqrt and reciprocal are one EUP push; sigmoid = 1 / (1 + exp(-x)) two ops and two pushes; silu = x sigmoid(x)
/// one op more; gelu_apprx_tanh 0.5 x (1 + tanh(c (x + 0.044715 x^3))) eight ops and a tanh; gelu 0.5 x (1 +
/// erf(x / sqrt 2)) with erf as XLA's f32 rational approximation (a clamp, x^2, a 7-term and a 5-term Horner
/// polynomial in x^2 without FMA, the division as a reciprocal and a multiply): 29 ops and one push; identity
/// nothing, relu a max, square a multiply.
VregWork functionWork(ActFunc func) {
  switch (func) {
  case ActFunc::Identity: return {};
  case ActFunc::Exp:
  case ActFunc::Log:
  case ActFunc::Tanh:
  case ActFunc::Rsqrt:
  case ActFunc::Sqrt:
  case ActFunc::Reciprocal: return {.eup = 1};
  case ActFunc::Sigmoid: return {.ops = 2, .eup = 2};
  case ActFunc::Silu: return {.ops = 3, .eup = 2};
  case ActFunc::GeluApproxTanh: return {.ops = 8, .eup = 1};
  case ActFunc::Gelu: return {.ops = 29, .eup = 1};
  case ActFunc::Relu:
  case ActFunc::Square: return {.ops = 1};
  }
  return {.ops = 1};
}

/// out = func(x * scale) in FP32. The scale is applied as activation's `x * scale + bias` with bias -0, which
/// adds nothing to any value (x + -0 = x, also for x = -0).
void unary(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  float *x = rowsOf(scratch().a, src, true);
  activateRows(inst.func, x, src.rows, src.rowElements, {nullptr, inst.scale}, {nullptr, -0.0f});
  scatter(dst, x);
}

OperandUse readsSrc0(const Instruction &) { return {.src0 = true}; }

std::string verifyUnary(const Instruction &inst, const Target *) {
  if (present(inst.src1) || inst.bias != 0.0f)
    return "vpu_unary computes func(x * scale) and takes no bias: add one with vpu_binary";
  return firstProblem({requireSameShape("out", inst.dst, "x", inst.src0), requireVpuType("out", inst.dst),
                       requireVpuType("x", inst.src0)});
}

uint64_t unaryCycles(const Instruction &inst, Engine, const Target &target) {
  VregWork work = functionWork(inst.func);
  if (inst.scale != 1.0f)
    ++work.ops; // the scale
  work.loads = 1;
  work.stores = 1;
  return vpuCycles(inst, work, target);
}

// ---- vpu_reduce ---------------------------------------------------------------------------------------------

constexpr OperandDef kReduceOperands[] = {
    {"dst", "out", "VMEM, [R, 1], or [R, G] (each of G groups of F / G consecutive elements); f32, bf16, i32 or u32"},
    {"src0", "x", "VMEM, [R, F]"},
};

std::string verifyReduce(const Instruction &inst, const Target *) {
  if (inst.alu != AluOp::Add && inst.alu != AluOp::Max && inst.alu != AluOp::Min)
    return fmt::format("reduction {} is not one the VPU does: use add, max or min", name(inst.alu));
  if (inst.negate)
    return "vpu_reduce does not negate its result: negate it with vpu_binary or vpu_unary's scale";
  const int64_t groups = inst.dst.freeElements(), elements = inst.src0.freeElements();
  std::string shape = groups <= 1 ? requirePerPartition("out", inst.dst, inst.src0.partitions) : std::string();
  if (groups > 1 && (inst.dst.partitions != inst.src0.partitions || elements % groups != 0))
    shape = fmt::format("out is [{}, {}]: it reduces x [{}, {}] to [{}, 1], or to [{}, G] groups of consecutive "
                        "elements, G dividing {}",
                        inst.dst.partitions, groups, inst.src0.partitions, elements, inst.src0.partitions,
                        inst.src0.partitions, elements);
  return firstProblem({shape, requireVpuType("out", inst.dst), requireVpuType("x", inst.src0)});
}

/// Each source vreg is loaded and folded into a per-row-group accumulator (one VALU op); then each row group's
/// accumulator is reduced across lanes on the XLU and stored: vpu_latency_cycles + max(source vregs / load slots,
/// source vregs, row groups / store slots) + ceil(R / sublanes) x xlu_reduce_cycles.
uint64_t reduceCycles(const Instruction &inst, Engine, const Target &target) {
  const TpuCostModel &cost = target.tpuCost;
  const uint64_t sourceVregs = vregsOf(inst.src0, target.tpu), rowGroups = vregsOf(inst.dst, target.tpu);
  const uint64_t streaming = std::max(busyCycles(sourceVregs, {.loads = 1, .ops = 1}, cost),
                                      busyCycles(rowGroups, {.stores = 1}, cost));
  // Groups of consecutive elements: x reshaped to [R, G, F / G] first, as jnp writes it (materialised like a
  // relayout's box), reduced along its last dimension.
  const uint64_t grouping = materialiseCycles(
      groupedReductionArrays(inst.src0.partitions, inst.src0.freeElements(), inst.dst.freeElements()), target);
  return streaming + rowGroups * cost.xluReduceCycles + cost.vpuLatencyCycles + grouping +
         relayoutCycles(inst.src0, target);
}

// ---- vpu_convert --------------------------------------------------------------------------------------------

constexpr OperandDef kConvertOperands[] = {
    {"dst", "out", "VMEM, same shape as x; any dtype (rounded to nearest even, integers saturate)"},
    {"src0", "x", "VMEM; any dtype"},
};

std::string verifyConvert(const Instruction &inst, const Target *) {
  return requireSameShape("out", inst.dst, "x", inst.src0);
}

/// One load, one VALU op converting (none when the dtype stays: a copy) and one store per vreg.
uint64_t convertCycles(const Instruction &inst, Engine, const Target &target) {
  const uint64_t ops = inst.dst.dtype == inst.src0.dtype ? 0 : 1;
  return vpuCycles(inst, {.loads = 1, .ops = ops, .stores = 1}, target);
}

// ---- vpu_fill -----------------------------------------------------------------------------------------------

constexpr OperandDef kFillOperands[] = {{"dst", "out", "VMEM; any dtype"}};

OperandUse writesOnly(const Instruction &) { return {}; }

std::string verifyFill(const Instruction &, const Target *) { return {}; }

/// The value is splatted into a vreg once (packed to dst's dtype when the kernel is compiled); each destination
/// vreg is one store.
uint64_t fillCycles(const Instruction &inst, Engine, const Target &target) {
  return vpuCycles(inst, {.stores = 1}, target);
}

constexpr SettingDef kBinarySettings[] = {{Setting::Alu, "jnp operator"},
                                          {Setting::Operand0, "the number, when there is no rhs"},
                                          {Setting::Reverse0, "the number is the left operand"}};
constexpr SettingDef kUnarySettings[] = {{Setting::Func, "jnp function"}, {Setting::Scale, "x * scale"}};
constexpr SettingDef kReduceSettings[] = {{Setting::Alu, "jnp.sum / jnp.max / jnp.min"}};
constexpr SettingDef kFillSettings[] = {{Setting::Value, "jnp.full's fill_value"}};

const InstructionDef kDefinitions[] = {
    {.op = Opcode::VpuBinary,
     .name = "vpu_binary",
     .nki = "jnp.add, jnp.maximum... / arith.addf, arith.maximumf... on vectors",
     .summary = "out = lhs <op> rhs elementwise in FP32 on the VPU; an [R, 1] operand is broadcast along the row; "
                "without rhs, lhs <op> operand0 (operand0 <op> lhs when reverse0), a number",
     .engines = {Engine::Vpu},
     .preferredEngine = Engine::Vpu,
     .since = "v4",
     .operands = kBinaryOperands,
     .limits = "operands in VMEM; lhs and rhs [R, F] like out, or [R, 1] (also as a zero-stride pattern); f32, bf16, "
               "i32, u32 (others through vpu_convert)",
     .cost = "per vreg: loads = sources that are not [R, 1] broadcasts (a number none), stores 1, VALU ops and EUP pushes by op "
             "(add/subtract/multiply/max/min 1 op; divide 3 ops + 1 push; power 1 op + 2 pushes; abs_max 3 ops; "
             "comparisons 2 ops; logical_and/or 4 ops; assumptions); "
             "vregs = ceil(R / sublanes) x ceil(F / lanes) of dst; cycles = vregs x max(loads / vpu_load_slots, ops, "
             "eup x eup_cycles_per_vreg, stores / vpu_store_slots) + vpu_latency_cycles, rounded up; + each "
             "access-pattern operand's relayout (xlu_relayout_cycles_per_vreg per vreg of the box it is reshaped "
             "into and of its transpose, in (sublanes, lanes) tiles)",
     .use = readsPresentSources,
     .verify = verifyBinary,
     .execute = binary,
     .cycles = binaryCycles,
     .family = "tpu",
     .settings = kBinarySettings,
     .category = Category::Elementwise,
     .flops = flopsPerOutputElement},
    {.op = Opcode::VpuUnary,
     .name = "vpu_unary",
     .nki = "jnp.exp, jnp.tanh, jax.nn.sigmoid... / math.exp, math.tanh... on vectors",
     .summary = "out = func(x * scale) in FP32 on the VPU, transcendentals on the EUP",
     .engines = {Engine::Vpu},
     .preferredEngine = Engine::Vpu,
     .since = "v4",
     .operands = kUnaryOperands,
     .limits = "operands in VMEM, the same shape; f32, bf16, i32, u32; func any activation function; no bias",
     .cost = "per vreg: 1 load, 1 store, VALU ops and EUP pushes by func (exp, log, tanh, rsqrt, sqrt, reciprocal 1 "
             "push; sigmoid 2 ops + 2 pushes; silu 3 + 2; gelu_apprx_tanh 8 + 1; gelu 29 + 1; relu, square 1 op; "
             "identity none; a scale != 1 one op more; assumptions); vregs = ceil(R / sublanes) x ceil(F / lanes) "
             "of dst; cycles = vregs x max(loads / vpu_load_slots, ops, eup x eup_cycles_per_vreg, stores / "
             "vpu_store_slots) + vpu_latency_cycles, rounded up; + an access-pattern operand's relayout (as "
             "vpu_binary's)",
     .use = readsSrc0,
     .verify = verifyUnary,
     .execute = unary,
     .cycles = unaryCycles,
     .family = "tpu",
     .settings = kUnarySettings,
     .category = Category::Activation,
     .flops = flopsPerSourceElement},
    {.op = Opcode::VpuReduce,
     .name = "vpu_reduce",
     .nki = "jnp.sum, jnp.max, jnp.min over the last axis / vector.multi_reduction",
     .summary = "out[r, 0] = reduce_<op>(x[r, :]) in FP32: vregs folded on the VPU, then a cross-lane reduce on the "
                "XLU; into [R, G], each of G groups of consecutive elements",
     .engines = {Engine::Vpu},
     .preferredEngine = Engine::Vpu,
     .since = "v4",
     .operands = kReduceOperands,
     .limits = "operands in VMEM; out is [R, 1] or [R, G], G dividing F; op add, max or min; f32, bf16, i32, u32",
     .cost = "max(ceil(source vregs / vpu_load_slots), source vregs, ceil(out vregs / vpu_store_slots)) + "
             "out vregs x xlu_reduce_cycles + vpu_latency_cycles (source vregs = ceil(R / sublanes) x "
             "ceil(F / lanes): one load and one VALU op each); into [R, G > 1], + x reshaped to [R, G, F / G] "
             "(xlu_relayout_cycles_per_vreg per vreg of it in (sublanes, lanes) tiles); + an access-pattern x's "
             "relayout (as vpu_binary's)",
     .use = readsSrc0,
     .verify = verifyReduce,
     .execute = tensorReduce,
     .cycles = reduceCycles,
     .family = "tpu",
     .settings = kReduceSettings,
     .category = Category::Reduction,
     .flops = flopsPerSourceElement},
    {.op = Opcode::VpuConvert,
     .name = "vpu_convert",
     .nki = "x.astype(dtype) / arith.extf, arith.truncf, arith.fptosi...",
     .summary = "out = x, converting the dtype (round to nearest even) on the VPU",
     .engines = {Engine::Vpu},
     .preferredEngine = Engine::Vpu,
     .since = "v4",
     .operands = kConvertOperands,
     .limits = "operands in VMEM, the same shape; any dtypes",
     .cost = "per vreg: 1 load, 1 store, 1 VALU op when the dtype changes (none for a copy); vregs = ceil(R / "
             "sublanes) x ceil(F / lanes) of dst; cycles = vregs x max(loads / vpu_load_slots, ops, stores / "
             "vpu_store_slots) + vpu_latency_cycles, rounded up; + an access-pattern operand's relayout, either "
             "side (as vpu_binary's)",
     .use = readsSrc0,
     .verify = verifyConvert,
     .execute = convertingCopy,
     .cycles = convertCycles,
     .family = "tpu",
     .category = Category::Copy,
     .flops = noFlops},
    {.op = Opcode::VpuFill,
     .name = "vpu_fill",
     .nki = "jnp.full / vector.broadcast of a constant",
     .summary = "out = value: stores of one splatted vreg",
     .engines = {Engine::Vpu},
     .preferredEngine = Engine::Vpu,
     .since = "v4",
     .operands = kFillOperands,
     .limits = "out in VMEM; any dtype",
     .cost = "per vreg: 1 store; vregs = ceil(R / sublanes) x ceil(F / lanes); cycles = ceil(vregs / "
             "vpu_store_slots) + vpu_latency_cycles",
     .use = writesOnly,
     .verify = verifyFill,
     .execute = fill,
     .cycles = fillCycles,
     .family = "tpu",
     .settings = kFillSettings,
     .category = Category::Fill,
     .flops = noFlops},
};

} // namespace

std::span<const InstructionDef> tpuVectorInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
