//===- EmitNki.cpp - a compiled NeuronCore kernel as an NKI 0.6 kernel -------------------------------------===//
//
// The program the simulator ran, instruction by instruction in program order (Provenance::order), each as the
// nki.isa call of its definition (InstructionDef::nki, with the operand names InstructionDef::operands gives),
// on the engine it ran on, inside the kernel's own loops: the loop nest is rebuilt from each instruction's
// iterations (LoopNest.h), and a loop's iterations whose calls differ only in offsets that grow by a fixed step
// become one Python `for ... in range(...)` (NKI 0.6 deprecates nl.affine_range, an alias of range), and so do
// iterations whose offsets follow i // d and i % d (an index divided in the kernel); iterations
// that differ otherwise (the first matmul of an accumulation, which overwrites) stay apart, and where iterations
// ran on different engines the loop leaves the choice to NKI. Tiles become nl.ndarray buffers declared in the
// loop body that allocates them (NKI allocates them per iteration, so Tessera's rotating copies are not written
// out); HBM outputs are nl.shared_hbm tensors the kernel returns. The calls are in the kernel's order
// (kernelOrder): a scheduled program's interleaved iterations are put back in turn, since NKI's compiler does
// its own scheduling (and synchronisation: Tessera's semaphores and DMA queues are not emitted either). Where
// that order cannot be rebuilt, the program is written straight-line, one buffer per rotating copy. An SPMD
// launch's axis 0 (tsr::program_id), on a target whose launch spans a logical NeuronCore's cores, becomes
// nl.program_id(0) and the module's LAUNCH_GRID, which the caller launches as kernel[LAUNCH_GRID](...).
// Test: compiler/test/Backends/nki.test and spmd.test (golden text), hw-backends/check (the NumPy model, the API
// rules).
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/backends/Nki.h"

#include "../LoopNest.h"
#include "../Operands.h"
#include "../PythonSource.h"
#include "tessera/isa/Family.h"
#include "tessera/isa/FreePattern.h"
#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/Modes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <regex>
#include <set>

namespace tessera::backends {

namespace {

constexpr std::string_view kBackend = "NKI";

/// nki.language's name for `dtype` on `target`. Tessera's fp8 e4m3 is the OCP format (ml_dtypes' float8_e4m3fn:
/// no infinities, largest finite 448); the tensor engine's own E4M3 is the target's (tensor_engine.fp8_e4m3:
/// float8_e4m3 before NeuronCore-v4, which holds the same values up to 240).
std::string nkiDtype(isa::DType dtype, const isa::Target &target) {
  switch (dtype) {
  case isa::DType::F32: return "nl.float32";
  case isa::DType::BF16: return "nl.bfloat16";
  case isa::DType::F16: return "nl.float16";
  case isa::DType::F8E4M3: return "nl." + target.tensor.fp8E4m3;
  case isa::DType::F8E5M2: return "nl.float8_e5m2";
  case isa::DType::I32: return "nl.int32";
  case isa::DType::U32: return "nl.uint32";
  case isa::DType::U8: return "nl.uint8";
  case isa::DType::I8: return "nl.int8";
  case isa::DType::I16: return "nl.int16";
  case isa::DType::U16: return "nl.uint16";
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

class NkiEmitter {
public:
  explicit NkiEmitter(const KernelSource &k) : k_(k), p_(*k.program), prov_(*k.provenance) {}

  std::string emit() {
    header();
    const std::vector<Step> steps = kernelOrder(programOrder(k_), prov_);
    out_.indent();
    // The outputs, and the kernel's HBM scratch tensors (tsr::shared_hbm: made here, not returned).
    for (const isa::TensorInfo &t : p_.tensors)
      if (!t.isInput())
        out_.line(fmt::format("{} = nl.ndarray({}, dtype={}, buffer=nl.shared_hbm)", tensorName(t),
                              pythonShape(t.shape), nkiDtype(t.dtype, *k_.target)));
    Block top{-1};
    open_.push_back(&top);
    if (std::optional<std::vector<LoopNode>> nest = loopNest(steps, prov_)) {
      body(*nest, top);
    } else {
      perCopy_ = true; // iterations interleave: one buffer per rotating copy, as the simulator ran them
      for (const Step &s : steps) instructionLines(s, top);
    }
    open_.clear();
    for (const std::string &line : top.lines) out_.line(withoutZeroTerms(line));
    out_.line();
    std::vector<std::string> outputs;
    for (const isa::TensorInfo &t : p_.tensors)
      if (t.isOutput) outputs.push_back(tensorName(t));
    out_.line(fmt::format("return {}", fmt::join(outputs, ", ")));
    out_.dedent();
    if (launchCores_ > 1) {
      out_.line();
      out_.line();
      out_.line(fmt::format("# The SPMD launch the simulator ran: call the kernel as {}[LAUNCH_GRID](...), on the {} physical",
                            k_.kernel, launchCores_));
      out_.line("# NeuronCores of a logical NeuronCore (NEURON_LOGICAL_NC_CONFIG must match).");
      out_.line(fmt::format("LAUNCH_GRID = ({},)", launchCores_));
    }
    return out_.text();
  }

private:
  /// The lines of one scope: the kernel's body (loop -1) or one iteration of a loop; `declared` holds the tiles
  /// declared in it, and declarations go in before the child node at `childStart`.
  struct Block {
    int32_t loop = -1;
    std::vector<std::string> lines;
    size_t childStart = 0;
    std::set<int32_t> declared;
    std::string lastPlace;
  };

  /// The nodes of one scope, into `block`: instructions as calls, loops folded (foldIterations).
  void body(const std::vector<LoopNode> &nodes, Block &block) {
    for (const LoopNode &node : nodes) {
      if (node.step) {
        instructionLines(*node.step, block);
        continue;
      }
      block.childStart = block.lines.size();
      block.lastPlace.clear();
      std::vector<Lines> iterations;
      for (const std::vector<LoopNode> &iteration : node.iterations) {
        Block inner{node.loop};
        open_.push_back(&inner);
        body(iteration, inner);
        open_.pop_back();
        iterations.push_back(std::move(inner.lines));
      }
      static const std::regex engineChoice(", engine=nisa\\.engine\\.\\w+");
      Lines folded = foldIterations(iterations, loopVariable(node.loop),
                                    [](const std::string &line) { return std::regex_replace(line, engineChoice, ""); });
      if (prov_.tileOps[node.loop].spmdAxis == 0) folded = programsOfCore(std::move(folded), node.loop);
      if (!block.lines.empty() && !folded.empty() && !folded.front().empty()) block.lines.emplace_back();
      block.lines.insert(block.lines.end(), folded.begin(), folded.end());
    }
  }

  /// The launch grid's axis 0 (`loop`, folded to `folded`) as NKI's SPMD launch: on a target whose launch spans
  /// several cores (trn2/trn3's logical NeuronCore), each core's block of programs, as the simulator split them:
  /// `i = nl.program_id(0)` with one program per core, else a loop over the core's programs. On one core the
  /// programs stay a loop, run one after another, as simulated.
  Lines programsOfCore(Lines folded, int32_t loop) {
    const compiler::TileOpRecord &record = prov_.tileOps[loop];
    const int64_t cores = std::min<int64_t>(k_.target->hbm.launchCores, record.trips);
    if (cores <= 1) return folded;
    const std::string &var = loopVariable(loop);
    const std::string header = fmt::format("for {} in range({}):", var, record.trips);
    const bool oneLoop = !folded.empty() && folded.front() == header &&
                         std::all_of(folded.begin() + 1, folded.end(),
                                     [](const std::string &line) { return line.empty() || line.starts_with("    "); });
    if (!oneLoop || record.trips % cores != 0)
      throw Error(fmt::format("{}: kernel '{}' is launched over {} programs on {}'s {} cores, but {}", kBackend,
                              k_.kernel, record.trips, k_.target->name, cores,
                              oneLoop ? "they do not divide evenly between the cores"
                                      : "its programs differ in more than their offsets, so one SPMD kernel cannot "
                                        "write them"),
                  record.loc, "launch a multiple of the target's launch cores, each program the same code");
    launchCores_ = cores;
    const int64_t perCore = record.trips / cores;
    Lines out;
    if (perCore == 1) {
      out.push_back(fmt::format("{} = nl.program_id(0)", var));
      for (auto line = folded.begin() + 1; line != folded.end(); ++line) out.push_back(line->empty() ? *line : line->substr(4));
      return out;
    }
    const std::string local = names_.make(var + "_local");
    out.push_back(fmt::format("for {} in range({}):", local, perCore));
    out.push_back(fmt::format("    {} = nl.program_id(0) * {} + {}", var, perCore, local));
    out.insert(out.end(), folded.begin() + 1, folded.end());
    return out;
  }

  /// One instruction's call, after the kernel line it came from when that changed.
  void instructionLines(const Step &s, Block &block) {
    const std::string place = placeOf(s.loc);
    if (place != block.lastPlace) {
      if (!block.lines.empty()) block.lines.emplace_back();
      if (!place.empty()) block.lines.push_back("# " + place);
      block.lastPlace = place;
    }
    block.childStart = block.lines.size();
    std::string call = instruction(s); // declares the tiles it touches first
    block.lines.push_back(std::move(call));
  }

  /// The variable of scf.for record `loop`: i, j, k... by its depth in the nest, as a kernel author names them.
  const std::string &loopVariable(int32_t loop) {
    const int depth = loopDepth(prov_, loop);
    auto [it, fresh] = loopVariables_.try_emplace(depth);
    if (fresh) {
      static constexpr std::string_view kNames[] = {"i", "j", "k", "l", "m", "n"};
      it->second = names_.make(depth < 6 ? std::string(kNames[depth]) : fmt::format("i{}", depth));
    }
    return it->second;
  }

  void header() {
    moduleDocstring(out_, k_, "program",
                    {"NKI 0.6 (Neuron SDK 2.32): one nki.isa call per instruction, on the engine the simulator ran it",
                     "on, inside the kernel's loops. NKI's compiler schedules and synchronises the engines itself, so",
                     "Tessera's semaphores and DMA queues are not part of this file."});
    out_.line("import nki");
    out_.line("import nki.isa as nisa");
    out_.line("import nki.language as nl");
    out_.line();
    out_.line();
    std::vector<std::string> inputs;
    for (const isa::TensorInfo &tensor : p_.tensors)
      if (tensor.isInput()) inputs.push_back(tensorName(tensor));
    out_.line("@nki.jit");
    out_.line(fmt::format("def {}({}):", names_.make(k_.kernel), fmt::join(inputs, ", ")));
    out_.indent();
    // "x (128, 512) f32; b (1, 512) f32; returns y (128, 512) f32, s (128, 1) f32"
    std::vector<std::string> takes, returns;
    for (const isa::TensorInfo &tensor : p_.tensors)
      if (!tensor.isScratch)
        (tensor.isOutput ? returns : takes)
            .push_back(fmt::format("{} {} {}", tensorName(tensor), pythonShape(tensor.shape), isa::name(tensor.dtype)));
    std::string doc = fmt::format("{}", fmt::join(takes, "; "));
    if (!returns.empty()) doc += fmt::format("{}returns {}", takes.empty() ? "" : "; ", fmt::join(returns, ", "));
    out_.line(fmt::format("\"\"\"{}\"\"\"", doc));
    out_.dedent();
  }

  const std::string &tensorName(const isa::TensorInfo &t) {
    auto [it, fresh] = tensorNames_.try_emplace(&t);
    if (fresh) it->second = names_.make(t.name);
    return it->second;
  }

  /// The buffer of allocation `a` (of its copy `copy` when the program is written straight-line), declared before
  /// its first use in the scope that allocates it.
  const std::string &tileName(int32_t a, int64_t copy) {
    const compiler::TileAllocation &tile = prov_.allocations[a];
    if (!perCopy_) copy = 0;
    auto [it, fresh] = tileNames_.try_emplace({a, copy});
    if (fresh) it->second = names_.make(perCopy_ && tile.bufs > 1 ? fmt::format("{}_{}", tile.name, copy) : tile.name);
    // The innermost open scope of the loop that allocates the tile (the kernel's body when none is open).
    Block *scope = open_.front();
    for (auto b = open_.rbegin(); b != open_.rend(); ++b)
      if ((*b)->loop == tile.loop) {
        scope = *b;
        break;
      }
    if (scope->declared.insert(static_cast<int32_t>(copy) * kCopyStride + a).second) {
      const char *buffer = tile.space == isa::MemSpace::Psum ? "nl.psum" : "nl.sbuf";
      scope->lines.insert(scope->lines.begin() + static_cast<std::ptrdiff_t>(scope->childStart),
                          fmt::format("{} = nl.ndarray(({}, {}), dtype={}, buffer={})", it->second, tile.rows,
                                      tile.cols, nkiDtype(tile.dtype, *k_.target), buffer));
      ++scope->childStart;
    }
    return it->second;
  }

  /// An operand as NKI names it: a whole buffer, or a slice of a buffer or of an HBM tensor.
  std::string operand(const Step &s, const isa::AccessPattern &ap) {
    const Window w = windowOf(k_, s, ap, kBackend);
    if (!w.onChip) {
      const isa::TensorInfo &t = p_.tensors[w.tensor];
      auto range = [](int64_t first, int64_t span, int64_t step) {
        if (step == 0) return fmt::format("{}:{}", first, first + 1); // a broadcast: the one row or column
        return step == 1 ? fmt::format("{}:{}", first, first + span) : fmt::format("{}:{}:{}", first, first + span, step);
      };
      std::string lead; // an N-D tensor's leading indices: x[b, h, rows, columns]
      for (int64_t i : w.lead) lead += fmt::format("{}, ", i);
      std::string window = fmt::format("{}[{}{}, {}]", tensorName(t), lead, range(w.row, w.tensorRowSpan(), w.rowStep),
                                       range(w.col, w.tensorColSpan(), w.colStep));
      // A transposed window is the view with its two dimensions swapped (NKI language reference,
      // nki.language.NkiTensor.permute), as a store through out[i_f, i_p] walks it.
      if (w.transposed) window += ".permute((1, 0))";
      // A step of 0 repeats that row (column): NkiTensor.broadcast(dim, size) expands a size-1 dimension (NKI
      // language reference, nki.language.NkiTensor).
      if (w.rowStep == 0) window += fmt::format(".broadcast(0, {})", w.rows);
      if (w.colStep == 0) window += fmt::format(".broadcast(1, {})", w.cols);
      return window;
    }
    const std::string &name = tileName(w.allocation, w.copy);
    const compiler::TileAllocation &tile = prov_.allocations[w.allocation];
    if (w.broadcast)
      return fmt::format("{}[{}:{}, {}:{}].broadcast(1, {})", name, w.row, w.row + w.rows, w.col, w.col + 1, w.cols);
    if (!w.pattern.empty()) { // NkiTensor.ap (NKI Access Patterns): partitions whole, then the free dimensions
      std::string pattern = fmt::format("[{}, {}]", tile.cols, w.rows);
      for (const auto &[step, count] : w.pattern) pattern += fmt::format(", [{}, {}]", step, count);
      return fmt::format("{}.ap(pattern=[{}], offset={})", name, pattern, w.row * tile.cols + w.col);
    }
    if (w.row == 0 && w.col == 0 && w.rows == tile.rows && w.cols == tile.cols) return name;
    return fmt::format("{}[{}:{}, {}:{}]", name, w.row, w.row + w.rows, w.col, w.col + w.cols);
  }

  /// One call as the instruction's definition writes it (InstructionDef::nkiCall), its operands named as this
  /// kernel's buffers and slices.
  class Call final : public isa::NkiCall {
  public:
    Call(NkiEmitter &emitter, const Step &step) : emitter_(emitter), step_(step) {}

    NkiCall &operand(std::string_view name, isa::Slot slot) override {
      const isa::AccessPattern &ap = isa::operandIn(*step_.inst, slot);
      std::string text = emitter_.operand(step_, ap);
      // Beside an access pattern of several free dimensions (NkiTensor.ap: its shape is the pattern's), a
      // contiguous operand of as many elements takes that shape too, so that both sides of the call agree.
      if (std::optional<std::vector<int64_t>> shape = patternShapeBeside(ap))
        text += fmt::format(".reshape([{}])", fmt::join(*shape, ", "));
      return code(name, text);
    }
    NkiCall &real(std::string_view name, float value) override { return code(name, pythonFloat(value)); }
    NkiCall &integer(std::string_view name, int64_t value) override { return code(name, fmt::format("{}", value)); }
    NkiCall &code(std::string_view name, std::string text) override {
      args_ += fmt::format("{}{}={}", args_.empty() ? "" : ", ", name, text);
      return *this;
    }
    NkiCall &engine(std::string_view name) override {
      if (!choosesEngine(isa::definition(step_.inst->op))) return *this; // the instruction has one engine
      return code(name, fmt::format("nisa.engine.{}", isa::name(step_.stream->engine)));
    }
    NkiCall &label(std::string_view name) override {
      return code(name, fmt::format("\"{}\"", emitter_.p_.textOf(*step_.inst)));
    }
    NkiCall &reshaped(std::string_view name, isa::Slot slot, std::vector<int64_t> shape) override {
      return code(name, fmt::format("{}.reshape([{}])", emitter_.operand(step_, isa::operandIn(*step_.inst, slot)),
                                    fmt::join(shape, ", ")));
    }
    const isa::Target &target() const override { return *emitter_.k_.target; }

    /// The shape [P, count_1, ...] of another operand of this call that walks several free dimensions on chip,
    /// when `ap` is a contiguous on-chip operand of as many partitions and elements; nullopt otherwise.
    std::optional<std::vector<int64_t>> patternShapeBeside(const isa::AccessPattern &ap) const {
      auto walked = [](const isa::AccessPattern &x) { return x.partitions > 0 && x.space != isa::MemSpace::Hbm; };
      if (!walked(ap) || !isa::isContiguous(ap)) return std::nullopt; // a backend names it a [P, F] slice
      for (isa::Slot slot : {isa::Slot::Dst, isa::Slot::Dst2, isa::Slot::Src0, isa::Slot::Src1, isa::Slot::Src2}) {
        const isa::AccessPattern &other = isa::operandIn(*step_.inst, slot);
        if (&other == &ap || !walked(other) || other.freeRank < 2 || isa::isContiguous(other) ||
            other.partitions != ap.partitions || other.freeElements() != ap.freeElements())
          continue;
        std::vector<int64_t> shape{other.partitions};
        shape.insert(shape.end(), other.sizes.begin(), other.sizes.begin() + other.freeRank);
        return shape;
      }
      return std::nullopt;
    }

    std::string text(std::string_view callee) const { return fmt::format("{}({})", callee, args_); }

  private:
    NkiEmitter &emitter_;
    const Step &step_;
    std::string args_;
  };

  /// Whether NKI lets the caller choose among the definition's engines (engine=nisa.engine.X).
  static bool choosesEngine(const isa::InstructionDef &def) {
    int engines = 0;
    for (isa::Engine e : {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd})
      engines += def.engines.contains(e) ? 1 : 0;
    return engines > 1;
  }

  std::string instruction(const Step &s) {
    const isa::InstructionDef &def = isa::definition(s.inst->op);
    if (!isa::runsOnFamily(def, "neuroncore") || !def.nkiCall)
      throw Error(fmt::format("NKI: {} is not a NeuronCore instruction; NKI runs NeuronCore kernels", def.name), s.loc);
    Call call(*this, s);
    def.nkiCall(*s.inst, call);
    return call.text(callee(def));
  }

  const KernelSource &k_;
  const isa::Program &p_;
  int64_t launchCores_ = 1; ///< the cores the kernel's SPMD launch runs on (LAUNCH_GRID); 1: no SPMD launch
  const compiler::Provenance &prov_;
  PythonWriter out_;
  Identifiers names_{{"nki", "nisa", "nl", "np"}};
  std::map<const isa::TensorInfo *, std::string> tensorNames_;
  std::map<std::pair<int32_t, int64_t>, std::string> tileNames_;
  static constexpr int32_t kCopyStride = 1 << 20; ///< Block::declared keys: copy * kCopyStride + allocation
  std::vector<Block *> open_;                     ///< the scopes being written, outermost first
  std::map<int, std::string> loopVariables_;      ///< by loop depth
  bool perCopy_ = false;                          ///< straight-line: one buffer per rotating copy
};

} // namespace

std::string emitNki(const KernelSource &kernel) {
  if (const isa::Family &family = isa::familyOf(*kernel.target); family.deviceBackend() != "nki")
    throw Error(fmt::format("NKI: target {} is a {}; NKI kernels run on Trainium (NeuronCore) targets",
                            kernel.target->name, family.title()),
                {}, fmt::format("use --emit {} for a {} target", family.deviceBackend(), family.title()));
  return NkiEmitter(kernel).emit();
}

} // namespace tessera::backends
