//===- EmitNki.cpp - a compiled NeuronCore kernel as an NKI 0.6 kernel -------------------------------------===//
//
// The program the simulator ran, instruction by instruction in program order (Provenance::order), each as the
// nki.isa call of its definition (InstructionDef::nki, with the operand names InstructionDef::operands gives),
// on the engine it ran on. Tiles become nl.ndarray buffers, one per rotating copy in use, declared where the
// program first touches them; HBM outputs are nl.shared_hbm tensors the kernel returns. NKI's compiler does its
// own scheduling and synchronisation, so Tessera's semaphores and DMA queues are not emitted; NKI 0.6 unrolls
// every loop (nl.affine_range is an alias of range), so the straight-line program is what its loops become.
// Test: compiler/test/Backends/nki.test (golden text), hw-backends/check (Python compile, the 0.6 API manifest).
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/backends/Nki.h"

#include "../Operands.h"
#include "../PythonSource.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/Modes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

namespace tessera::backends {

namespace {

constexpr std::string_view kBackend = "NKI";

/// nki.language's name for `dtype`. Tessera's fp8 e4m3 has no infinities and a maximum of 448 (ml_dtypes'
/// float8_e4m3fn), which is NKI's float8_e4m3fn.
std::string nkiDtype(isa::DType dtype) {
  switch (dtype) {
  case isa::DType::F32: return "nl.float32";
  case isa::DType::BF16: return "nl.bfloat16";
  case isa::DType::F16: return "nl.float16";
  case isa::DType::F8E4M3: return "nl.float8_e4m3fn";
  case isa::DType::F8E5M2: return "nl.float8_e5m2";
  case isa::DType::I32: return "nl.int32";
  case isa::DType::U32: return "nl.uint32";
  case isa::DType::U8: return "nl.uint8";
  }
  return "nl.float32";
}

/// "nki.isa.tensor_scalar" -> "nisa.tensor_scalar", as the module imports them.
std::string callee(const isa::InstructionDef &def) {
  std::string_view name = def.nki;
  if (name.starts_with("nki.isa.")) return "nisa." + std::string(name.substr(8));
  if (name.starts_with("nki.language.")) return "nl." + std::string(name.substr(13));
  return std::string(name);
}

/// One call's keyword arguments, in the order NKI's signature lists them.
class Call {
public:
  explicit Call(std::string callee) : callee_(std::move(callee)) {}
  Call &arg(std::string_view name, std::string value) {
    args_ += fmt::format("{}{}={}", args_.empty() ? "" : ", ", name, value);
    return *this;
  }
  Call &flag(std::string_view name, bool value) { return value ? arg(name, "True") : *this; }
  std::string text() const { return fmt::format("{}({})", callee_, args_); }

private:
  std::string callee_, args_;
};

class NkiEmitter {
public:
  explicit NkiEmitter(const KernelSource &k) : k_(k), p_(*k.program), prov_(*k.provenance) {}

  std::string emit() {
    header();
    const std::vector<Step> steps = programOrder(k_);
    out_.indent();
    for (const isa::TensorInfo &t : p_.tensors)
      if (t.isOutput)
        out_.line(fmt::format("{} = nl.ndarray({}, dtype={}, buffer=nl.shared_hbm)", tensorName(t),
                              pythonShape(t.shape), nkiDtype(t.dtype)));
    std::string lastPlace;
    for (const Step &s : steps) {
      const std::string place = placeOf(s.loc);
      if (place != lastPlace) {
        out_.line();
        if (!place.empty()) out_.line("# " + place);
        lastPlace = place;
      }
      const std::string call = instruction(s); // declares the tiles it touches first
      out_.line(call);
    }
    out_.line();
    std::vector<std::string> outputs;
    for (const isa::TensorInfo &t : p_.tensors)
      if (t.isOutput) outputs.push_back(tensorName(t));
    out_.line(fmt::format("return {}", fmt::join(outputs, ", ")));
    out_.dedent();
    return out_.text();
  }

private:
  void header() {
    moduleDocstring(out_, k_, "program",
                    {"NKI 0.6 (Neuron SDK 2.32): one nki.isa call per instruction, in program order, on the engine the",
                     "simulator ran it on. NKI's compiler schedules and synchronises the engines itself, so Tessera's",
                     "semaphores and DMA queues are not part of this file."});
    out_.line("import nki");
    out_.line("import nki.isa as nisa");
    out_.line("import nki.language as nl");
    out_.line();
    out_.line();
    std::vector<std::string> inputs;
    for (const isa::TensorInfo &tensor : p_.tensors)
      if (!tensor.isOutput) inputs.push_back(tensorName(tensor));
    out_.line("@nki.jit");
    out_.line(fmt::format("def {}({}):", names_.make(k_.kernel), fmt::join(inputs, ", ")));
    out_.indent();
    std::vector<std::string> doc;
    for (const isa::TensorInfo &tensor : p_.tensors)
      doc.push_back(fmt::format("{}{} {} {}", tensor.isOutput ? "returns " : "", tensorName(tensor),
                                pythonShape(tensor.shape), isa::name(tensor.dtype)));
    out_.line(fmt::format("\"\"\"{}\"\"\"", fmt::join(doc, "; ")));
    out_.dedent();
  }

  const std::string &tensorName(const isa::TensorInfo &t) {
    auto [it, fresh] = tensorNames_.try_emplace(&t);
    if (fresh) it->second = names_.make(t.name);
    return it->second;
  }

  /// The buffer of copy `copy` of allocation `a`, declared before its first use.
  const std::string &tileName(int32_t a, int64_t copy) {
    auto [it, fresh] = tileNames_.try_emplace({a, copy});
    if (!fresh) return it->second;
    const compiler::TileAllocation &tile = prov_.allocations[a];
    it->second = names_.make(tile.bufs > 1 ? fmt::format("{}_{}", tile.name, copy) : tile.name);
    const char *buffer = tile.space == isa::MemSpace::Psum ? "nl.psum" : "nl.sbuf";
    out_.line(fmt::format("{} = nl.ndarray(({}, {}), dtype={}, buffer={})", it->second, tile.rows, tile.cols,
                          nkiDtype(tile.dtype), buffer));
    return it->second;
  }

  /// An operand as NKI names it: a whole buffer, or a slice of a buffer or of an HBM tensor.
  std::string operand(const Step &s, const isa::AccessPattern &ap) {
    const Window w = windowOf(k_, s, ap, kBackend);
    if (!w.onChip) {
      const isa::TensorInfo &t = p_.tensors[w.tensor];
      auto range = [](int64_t first, int64_t span, int64_t step) {
        return step == 1 ? fmt::format("{}:{}", first, first + span) : fmt::format("{}:{}:{}", first, first + span, step);
      };
      return fmt::format("{}[{}, {}]", tensorName(t), range(w.row, w.rowSpan(), w.rowStep),
                         range(w.col, w.colSpan(), w.colStep));
    }
    const std::string &name = tileName(w.allocation, w.copy);
    const compiler::TileAllocation &tile = prov_.allocations[w.allocation];
    if (w.broadcast)
      return fmt::format("{}[{}:{}, {}:{}].broadcast(1, {})", name, w.row, w.row + w.rows, w.col, w.col + 1, w.cols);
    if (w.row == 0 && w.col == 0 && w.rows == tile.rows && w.cols == tile.cols) return name;
    return fmt::format("{}[{}:{}, {}:{}]", name, w.row, w.row + w.rows, w.col, w.col + w.cols);
  }

  static bool present(const isa::AccessPattern &ap) { return ap.partitions != 0; }

  /// A tile operand, or the number `value` when the instruction has none in that slot.
  std::string operandOr(const Step &s, const isa::AccessPattern &ap, float value) {
    return present(ap) ? operand(s, ap) : pythonFloat(value);
  }

  static std::string op(isa::AluOp a) { return fmt::format("nl.{}", isa::nkiName(a)); }
  static std::string func(isa::ActFunc f) { return fmt::format("nl.{}", isa::nkiName(f)); }

  /// engine=nisa.engine.X, for instructions more than one engine can run.
  static void engineArg(Call &c, const Step &s) {
    const isa::InstructionDef &def = isa::definition(s.inst->op);
    int engines = 0;
    for (isa::Engine e : {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd})
      engines += def.engines.contains(e) ? 1 : 0;
    if (engines > 1) c.arg("engine", fmt::format("nisa.engine.{}", isa::name(s.stream->engine)));
  }

  Error unsupported(const Step &s, const std::string &why) {
    return Error(fmt::format("NKI: {} {}", isa::name(s.inst->op), why), s.loc);
  }

  std::string instruction(const Step &s) {
    const isa::Instruction &i = *s.inst;
    const isa::InstructionDef &def = isa::definition(i.op);
    if (!isa::runsOnFamily(def, "neuroncore"))
      throw unsupported(s, "is not a NeuronCore instruction; NKI runs NeuronCore kernels");
    Call c(callee(def));
    auto dst = [&] { return operand(s, i.dst); };
    switch (i.op) {
    case isa::Opcode::DmaCopy:
    case isa::Opcode::DmaTranspose:
      for (const isa::AccessPattern *ap : {&i.dst, &i.src0})
        if (ap->space == isa::MemSpace::Psum)
          throw Error("NKI: NKI 0.6's DMA cannot read or write PSUM", s.loc,
                      "copy the PSUM tile to an SBUF tile (tsr::copy) and move that one");
      c.arg("dst", dst()).arg("src", operand(s, i.src0));
      break;
    case isa::Opcode::Matmul: {
      c.arg("dst", dst()).arg("stationary", operand(s, i.src0)).arg("moving", operand(s, i.src1));
      const isa::MatmulMode mode = isa::MatmulMode::decode(i.mode);
      if (mode.tiled()) { // NKI counts rows of the PE array
        const int64_t rows = static_cast<int64_t>(k_.target->tensor.rows) / mode.rowTiles();
        c.arg("tile_position", fmt::format("({}, 0)", mode.rowTile * rows))
            .arg("tile_size", fmt::format("({}, {})", rows, k_.target->tensor.cols));
      }
      if (mode.doubleRow) c.arg("perf_mode", "nisa.matmul_perf_mode.double_row");
      c.arg("accumulate", i.accumulate ? "True" : "False");
      break;
    }
    case isa::Opcode::Transpose:
      c.arg("dst", dst()).arg("data", operand(s, i.src0));
      c.arg("engine", fmt::format("nisa.engine.{}", isa::name(s.stream->engine)));
      break;
    case isa::Opcode::TensorTensor:
      c.arg("dst", dst()).arg("data1", operand(s, i.src0)).arg("data2", operand(s, i.src1)).arg("op", op(i.alu));
      engineArg(c, s);
      break;
    case isa::Opcode::TensorScalar:
      c.arg("dst", dst()).arg("data", operand(s, i.src0)).arg("op0", op(i.alu));
      c.arg("operand0", operandOr(s, i.src1, i.imm)).flag("reverse0", i.reverse0);
      if (i.alu1 != isa::AluOp::Bypass || present(i.src2)) {
        c.arg("op1", op(i.alu1)).arg("operand1", operandOr(s, i.src2, i.imm1)).flag("reverse1", i.reverse1);
      }
      engineArg(c, s);
      break;
    case isa::Opcode::ScalarTensorTensor:
      c.arg("dst", dst()).arg("data", operand(s, i.src0)).arg("op0", op(i.alu));
      c.arg("operand0", operandOr(s, i.src1, i.imm)).arg("op1", op(i.alu1)).arg("operand1", operand(s, i.src2));
      c.flag("reverse0", i.reverse0).flag("reverse1", i.reverse1);
      break;
    case isa::Opcode::Activation:
    case isa::Opcode::ActivationReduce:
      c.arg("dst", dst()).arg("op", func(i.func)).arg("data", operand(s, i.src0));
      if (i.op == isa::Opcode::ActivationReduce) c.arg("reduce_op", op(i.alu)).arg("reduce_res", operand(s, i.dst2));
      if (present(i.src1))
        c.arg("bias", operand(s, i.src1));
      else if (i.bias != 0.0f)
        c.arg("bias", pythonFloat(i.bias));
      if (i.imm != 1.0f) c.arg("scale", pythonFloat(i.imm));
      break;
    case isa::Opcode::TensorReduce: // NKI 0.6's tensor_reduce takes no engine: its compiler picks one
      c.arg("dst", dst()).arg("op", op(i.alu)).arg("data", operand(s, i.src0)).arg("axis", "1");
      c.flag("negate", i.negate).arg("keepdims", "True");
      if (s.stream->engine != def.preferredEngine)
        return fmt::format("{}  # Tessera ran it on {}", c.text(), isa::name(s.stream->engine));
      break;
    case isa::Opcode::TensorPartitionReduce:
      c.arg("dst", dst()).arg("op", op(i.alu)).arg("data", operand(s, i.src0));
      break;
    case isa::Opcode::TensorTensorScan:
      c.arg("dst", dst()).arg("data0", operand(s, i.src0)).arg("data1", operand(s, i.src1));
      c.arg("initial", operandOr(s, i.src2, i.imm1)).arg("op0", op(i.alu)).arg("op1", op(i.alu1));
      c.flag("reverse0", i.reverse0).flag("reverse1", i.reverse1);
      break;
    case isa::Opcode::TensorCopy:
      c.arg("dst", dst()).arg("src", operand(s, i.src0));
      engineArg(c, s);
      break;
    case isa::Opcode::TensorCopyPredicated:
      c.arg("dst", dst()).arg("src", operandOr(s, i.src0, i.imm)).arg("predicate", operand(s, i.src1));
      c.flag("reverse_pred", i.reverse0);
      break;
    case isa::Opcode::Memset:
      c.arg("dst", dst());
      c.arg("value", isa::isInteger(i.dst.dtype) ? fmt::format("{}", static_cast<int64_t>(i.imm)) : pythonFloat(i.imm));
      engineArg(c, s);
      break;
    case isa::Opcode::Iota:
      c.arg("dst", dst()).arg("pattern", fmt::format("[[{}, {}]]", i.pattern.steps[0], i.dst.freeElements()));
      c.arg("offset", fmt::format("{}", i.pattern.base))
          .arg("channel_multiplier", fmt::format("{}", i.pattern.partitionStep));
      break;
    case isa::Opcode::AffineSelect:
      c.arg("dst", dst()).arg("pattern", fmt::format("[[{}, {}]]", i.pattern.steps[0], i.dst.freeElements()));
      c.arg("channel_multiplier", fmt::format("{}", i.pattern.partitionStep)).arg("on_true_tile", operand(s, i.src0));
      c.arg("on_false_value", pythonFloat(i.imm))
          .arg("cmp_op", op(i.alu))
          .arg("offset", fmt::format("{}", i.pattern.base));
      break;
    case isa::Opcode::RangeSelect:
      c.arg("dst", dst())
          .arg("on_true_tile", operand(s, i.src0))
          .arg("comp_op0", op(i.alu))
          .arg("comp_op1", op(i.alu1));
      c.arg("bound0", operand(s, i.src1)).arg("bound1", operand(s, i.src2));
      if (present(i.dst2)) c.arg("reduce_res", operand(s, i.dst2));
      c.arg("range_start", fmt::format("{}", i.pattern.base)).arg("on_false_value", pythonFloat(i.imm));
      break;
    case isa::Opcode::BnStats:
    case isa::Opcode::BnAggr:
    case isa::Opcode::Reciprocal: c.arg("dst", dst()).arg("data", operand(s, i.src0)); break;
    case isa::Opcode::Max8: c.arg("dst", dst()).arg("src", operand(s, i.src0)); break;
    case isa::Opcode::FindIndex8:
      c.arg("dst", dst()).arg("data", operand(s, i.src0)).arg("vals", operand(s, i.src1));
      break;
    case isa::Opcode::MatchReplace8:
      c.arg("dst", dst())
          .arg("data", operand(s, i.src0))
          .arg("vals", operand(s, i.src1))
          .arg("imm", pythonFloat(i.imm));
      if (present(i.dst2)) c.arg("dst_idx", operand(s, i.dst2));
      break;
    case isa::Opcode::LocalGather:
      c.arg("dst", dst()).arg("src_buffer", operand(s, i.src0)).arg("index", operand(s, i.src1));
      c.arg("num_elem_per_idx", fmt::format("{}", i.count0));
      if (i.count1 > 0) c.arg("num_valid_indices", fmt::format("{}", i.count1));
      break;
    case isa::Opcode::Print:
      c.arg("print_prefix", fmt::format("\"{}\"", p_.textOf(i))).arg("tensor", operand(s, i.src0));
      break;
    default: throw unsupported(s, "has no NKI 0.6 equivalent");
    }
    return c.text();
  }

  const KernelSource &k_;
  const isa::Program &p_;
  const compiler::Provenance &prov_;
  PythonWriter out_;
  Identifiers names_{{"nki", "nisa", "nl", "np"}};
  std::map<const isa::TensorInfo *, std::string> tensorNames_;
  std::map<std::pair<int32_t, int64_t>, std::string> tileNames_;
};

} // namespace

std::string emitNki(const KernelSource &kernel) {
  if (kernel.target->isTpu())
    throw Error(
        fmt::format("NKI: target {} is a TPU; NKI kernels run on Trainium (NeuronCore) targets", kernel.target->name),
        {}, "use --emit pallas for a TPU target");
  return NkiEmitter(kernel).emit();
}

} // namespace tessera::backends
