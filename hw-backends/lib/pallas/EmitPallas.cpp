//===- EmitPallas.cpp - a compiled TPU kernel as a Pallas TPU kernel ---------------------------------------===//
//
// The manual style: the program the simulator ran, one statement per instruction in program order
// (Provenance::order). Kernel tensors stay in HBM (memory_space=pl.ANY); every tile is a VMEM scratch buffer of
// shape (copies, rows, cols); MXU and VPU instructions read and write those buffers; every DMA is a
// pltpu.make_async_copy with a DMA semaphore of its own.
//
// Where the copies go. The simulated TensorCore issues MXU/VPU/scalar instructions in order while its DMA
// queues run ahead, ordered by the semaphores the compiler inserted. A Pallas kernel body is sequential, so each
// DMA is started at the earliest point of the compute sequence after which everything it waits for (its
// semaphores' producers, the DMA before it on its queue) is done, and waited on just before the first
// instruction that waits for it. A wait for a DMA also waits for the DMAs before it on its queue (a queue
// completes in order, so the compiler's semaphores rely on that), and two DMAs of one queue that touch the same
// bytes are ordered by a wait (a queue needs no semaphore for them). The result has the overlap of the
// simulated program, and Pallas' race detector (interpret mode, detect_races=True) checks its synchronisation.
// Test: compiler/test/Backends/pallas.test (golden text), hw-backends/check (interpret mode, TPU export).
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/backends/Pallas.h"

#include "../Operands.h"
#include "../PythonSource.h"
#include "Jnp.h"
#include "PallasGrid.h"
#include "tessera/isa/Family.h"
#include "tessera/isa/InstructionSet.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <set>

namespace tessera::backends {

namespace {

constexpr std::string_view kBackend = "Pallas";

bool isDma(const Step &s) { return s.stream->engine == isa::Engine::Dma; }

/// Two windows that share an element.
bool overlap(const Window &a, const Window &b) {
  if (a.onChip != b.onChip) return false;
  if (a.onChip ? (a.allocation != b.allocation || a.copy != b.copy) : a.tensor != b.tensor) return false;
  const int64_t aCols = a.broadcast ? 1 : a.cols, bCols = b.broadcast ? 1 : b.cols;
  return a.row < b.row + b.rows && b.row < a.row + a.rows && a.col < b.col + bCols && b.col < a.col + aCols;
}

class PallasEmitter {
public:
  explicit PallasEmitter(const KernelSource &k)
      : k_(k), p_(*k.program), prov_(*k.provenance), steps_(programOrder(k)) {}

  std::string emit() {
    nameEverything();
    scheduleDmas();
    header();
    kernelBody();
    wrapper();
    return out_.text();
  }

private:
  // --- names -----------------------------------------------------------------------------------------------

  void nameEverything() {
    for (const isa::TensorInfo &t : p_.tensors) tensorNames_.push_back(names_.make(t.name));
    for (const compiler::TileAllocation &a : prov_.allocations) tileNames_.push_back(names_.make(a.name));
    functionName_ = names_.make(k_.kernel);
    kernelName_ = names_.make("_" + k_.kernel + "_kernel");
    semaphores_ = names_.make("dma_semaphores");
  }

  /// Which allocations the program touches (only those get a scratch buffer).
  std::set<int32_t> usedAllocations() {
    std::set<int32_t> used;
    for (const Step &s : steps_)
      isa::forEachOperand(*s.inst, [&](const char *, const isa::AccessPattern &ap, bool) {
        if (ap.space != isa::MemSpace::Hbm) used.insert(windowOf(k_, s, ap, kBackend).allocation);
      });
    return used;
  }

  // --- where each DMA starts and is waited on --------------------------------------------------------------

  void scheduleDmas() {
    // The instruction whose k-th signal of semaphore s is the k-th (the producer a wait (s, k) waits for).
    std::map<uint32_t, std::vector<size_t>> signallers;
    for (size_t i = 0; i < steps_.size(); ++i)
      for (uint32_t sem : p_.signalsOf(*steps_[i].inst)) signallers[sem].push_back(i);
    dependsOn_.resize(steps_.size());
    for (size_t i = 0; i < steps_.size(); ++i)
      for (const isa::SemWait &w : p_.waitsOf(*steps_[i].inst)) {
        auto it = signallers.find(w.sem);
        if (it == signallers.end() || w.count == 0 || w.count > it->second.size())
          throw Error(fmt::format("Pallas: {} waits for signal {} of semaphore {}, which the program never gives",
                                  isa::name(steps_[i].inst->op), w.count, w.sem),
                      steps_[i].loc);
        dependsOn_[i].push_back(it->second[w.count - 1]);
      }
    // Compute instructions keep program order; a DMA starts before compute instruction readyAt_[i].
    std::map<uint32_t, size_t> lastOnQueue;
    size_t computed = 0;
    readyAt_.assign(steps_.size(), 0);
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (!isDma(steps_[i])) {
        computeIndex_[i] = computed++;
        continue;
      }
      size_t ready = 0;
      for (size_t d : dependsOn_[i]) ready = std::max(ready, isDma(steps_[d]) ? readyAt_[d] : computeIndex_.at(d) + 1);
      const uint32_t queue = steps_[i].stream->queue;
      if (auto prev = lastOnQueue.find(queue); prev != lastOnQueue.end())
        ready = std::max(ready, readyAt_[prev->second]);
      lastOnQueue[queue] = i;
      readyAt_[i] = ready;
      queueOrder_[queue].push_back(i);
      startBefore_[ready].push_back(i);
    }
    computeCount_ = computed;
  }

  // --- the module ------------------------------------------------------------------------------------------

  void header() {
    moduleDocstring(out_, k_, "program",
                    {"Pallas TPU, manual style: one statement per instruction the simulator ran, in program order. "
                     "Tiles are",
                     "VMEM scratch buffers (copies, rows, cols); every DMA is an async copy with its own semaphore, "
                     "started as",
                     "early as the simulated program's semaphores allow and waited on just before its data is "
                     "needed."});
    pallasPreamble(out_, k_);
  }

  void kernelBody() {
    used_ = usedAllocations();
    // The body first: it decides which staging buffers strided loads need, which the signature lists.
    PythonWriter signature;
    std::swap(signature, out_);
    out_.indent();
    std::string lastPlace;
    size_t compute = 0;
    for (size_t i = 0; i < steps_.size(); ++i) {
      const Step &s = steps_[i];
      if (isDma(s)) continue;
      startDmas(compute, lastPlace);
      const std::string place = placeOf(s.loc);
      if (s.inst->op == isa::Opcode::GridStep) {
        out_.line(fmt::format("# grid step {}{}", s.inst->step, place.empty() ? "" : " (" + place + ")"));
        lastPlace.clear();
        ++compute;
        continue;
      }
      if (place != lastPlace && !place.empty()) out_.line("# " + place);
      lastPlace = place;
      for (size_t d : dependsOn_[i])
        if (isDma(steps_[d])) waitFor(d);
      computeStatement(s);
      ++compute;
    }
    startDmas(computeCount_, lastPlace);
    for (auto &[queue, dmas] : queueOrder_)
      if (!dmas.empty()) waitFor(dmas.back());
    out_.dedent();
    std::swap(signature, out_); // out_: the module so far; signature: the body
    std::vector<std::string> params = tensorNames_;
    for (int32_t a : used_) params.push_back(tileNames_[a]);
    for (const Stage &stage : stages_) params.push_back(stage.name);
    params.push_back(semaphores_);
    out_.line(fmt::format("def {}({}):", kernelName_, fmt::join(params, ", ")));
    out_.append(signature.text());
    out_.line();
    out_.line();
  }

  /// Starts the DMAs that are ready before compute instruction `compute`.
  void startDmas(size_t compute, std::string &lastPlace) {
    auto it = startBefore_.find(compute);
    if (it == startBefore_.end()) return;
    for (size_t d : it->second) {
      for (size_t dep : dependsOn_[d])
        if (isDma(steps_[dep])) waitFor(dep);
      waitForConflictsOnQueue(d);
      const Step &s = steps_[d];
      const std::string place = placeOf(s.loc);
      if (place != lastPlace && !place.empty()) out_.line("# " + place);
      lastPlace = place;
      const int slot = takeSlot(d);
      const std::string name = fmt::format("dma{}", dmaNumber(d));
      const Window from = windowOf(k_, s, s.inst->src0, kBackend), to = windowOf(k_, s, s.inst->dst, kBackend);
      if (to.strided())
        throw Error("Pallas: a strided window of an HBM tensor is written: Mosaic copies only whole windows, and "
                    "writing the window around it would overwrite the elements between",
                    s.loc, "store whole (unstrided) windows of the output");
      std::string destination = ref(s, s.inst->dst);
      if (from.strided()) { // Mosaic DMAs take no strided slice: copy the window around it, then a strided load
        const size_t stage = takeStage(from.rowSpan(), from.colSpan(), s.inst->dst.dtype);
        destination = stages_[stage].name + ".at[...]";
        afterWait_[d] = {stage, fmt::format("{}[{}] = {}[pl.ds(0, {}, {}), pl.ds(0, {}, {})]", tileNames_[to.allocation],
                                            indices(to), stages_[stage].name, from.rows, from.rowStep, from.cols,
                                            from.colStep)};
      }
      out_.line(fmt::format("{} = pltpu.make_async_copy({}, {}, {}.at[{}])", name, ref(s, s.inst->src0), destination,
                            semaphores_, slot));
      out_.line(fmt::format("{}.start()", name));
      started_.insert(d);
    }
    startBefore_.erase(it);
  }

  /// Waits for DMA `d` and for the DMAs before it on its queue that nothing has waited for yet.
  void waitFor(size_t d) {
    if (waited_.count(d)) return;
    if (!started_.count(d)) throw Error("Pallas: internal error: a DMA is waited on before it starts", steps_[d].loc);
    for (size_t e : queueOrder_.at(steps_[d].stream->queue)) {
      if (e > d) break;
      if (waited_.count(e)) continue;
      out_.line(fmt::format("dma{}.wait()", dmaNumber(e)));
      waited_.insert(e);
      freeSlots_.insert(slots_.at(e));
      if (auto copy = afterWait_.find(e); copy != afterWait_.end()) { // a strided load out of its staging copy
        out_.line(copy->second.statement);
        stages_[copy->second.stage].busy = false;
        afterWait_.erase(copy);
      }
    }
  }

  /// DMAs of one queue that touch the same bytes (one writing) are ordered by the queue alone: wait for the
  /// earlier one before starting `d`.
  void waitForConflictsOnQueue(size_t d) {
    const Step &s = steps_[d];
    const Window dDst = windowOf(k_, s, s.inst->dst, kBackend), dSrc = windowOf(k_, s, s.inst->src0, kBackend);
    for (size_t e : queueOrder_.at(s.stream->queue)) {
      if (e >= d) break;
      if (waited_.count(e)) continue;
      const Step &o = steps_[e];
      const Window eDst = windowOf(k_, o, o.inst->dst, kBackend), eSrc = windowOf(k_, o, o.inst->src0, kBackend);
      if (overlap(eDst, dSrc) || overlap(eDst, dDst) || overlap(eSrc, dDst)) waitFor(e);
    }
  }

  /// A staging buffer of rows x cols `dtype` for a strided load: one no copy in flight is using, else a new one.
  size_t takeStage(int64_t rows, int64_t cols, isa::DType dtype) {
    for (size_t i = 0; i < stages_.size(); ++i)
      if (!stages_[i].busy && stages_[i].rows == rows && stages_[i].cols == cols && stages_[i].dtype == dtype) {
        stages_[i].busy = true;
        return i;
      }
    stages_.push_back({names_.make(fmt::format("stage{}", stages_.size())), rows, cols, dtype, true});
    return stages_.size() - 1;
  }

  int takeSlot(size_t d) {
    int slot = 0;
    if (!freeSlots_.empty()) {
      slot = *freeSlots_.begin();
      freeSlots_.erase(freeSlots_.begin());
    } else {
      slot = slotCount_++;
    }
    slots_[d] = slot;
    return slot;
  }

  size_t dmaNumber(size_t d) {
    auto [it, fresh] = dmaNumbers_.try_emplace(d, dmaNumbers_.size());
    return it->second;
  }

  // --- operands --------------------------------------------------------------------------------------------

  /// The window as a ref (for a DMA): `x.at[0:128, 0:512]`, `t0.at[1, 0:128, 0:512]`.
  std::string ref(const Step &s, const isa::AccessPattern &ap) {
    const Window w = windowOf(k_, s, ap, kBackend);
    if (w.broadcast) throw Error("Pallas: a DMA operand repeats an element (stride 0)", s.loc);
    if (w.strided()) // the window around it: every row and column from its first element to its last
      return fmt::format("{}.at[{}:{}, {}:{}]", tensorNames_[w.tensor], w.row, w.row + w.rowSpan(), w.col,
                         w.col + w.colSpan());
    return fmt::format("{}.at[{}]", w.onChip ? tileNames_[w.allocation] : tensorNames_[w.tensor], indices(w));
  }

  /// "1, 0:128, 0:512": the copy (when the tile has several) and the rows and columns of `w`.
  std::string indices(const Window &w) {
    const int64_t cols = w.broadcast ? 1 : w.cols;
    std::string rc = fmt::format("{}:{}, {}:{}", w.row, w.row + w.rows, w.col, w.col + cols);
    if (w.onChip && prov_.allocations[w.allocation].bufs > 1) return fmt::format("{}, {}", w.copy, rc);
    return rc;
  }

  /// The operand's values, in FP32 unless `keepDtype`.
  std::string load(const Step &s, const isa::AccessPattern &ap, bool keepDtype = false) {
    const Window w = windowOf(k_, s, ap, kBackend);
    std::string value = fmt::format("{}[{}]", tileNames_[w.allocation], indices(w));
    if (!keepDtype && kernelDtype(ap.dtype) != isa::DType::F32) value += ".astype(jnp.float32)";
    return value;
  }

  /// `dst = value`, converting FP32 to dst's dtype as the hardware rounds (to nearest even; integers saturate).
  void store(const Step &s, const std::string &value, bool broadcastResult = false) {
    const isa::AccessPattern &ap = s.inst->dst;
    const Window w = windowOf(k_, s, ap, kBackend);
    std::string v = value;
    if (broadcastResult) v = fmt::format("jnp.broadcast_to({}, ({}, {}))", v, w.rows, w.cols);
    v = convert(v, ap.dtype);
    out_.line(fmt::format("{}[{}] = {}", tileNames_[w.allocation], indices(w), v));
  }

  // --- instructions ----------------------------------------------------------------------------------------

  void computeStatement(const Step &s) {
    const isa::Instruction &i = *s.inst;
    switch (i.op) {
    case isa::Opcode::MxuMatmul: {
      const std::string product =
          fmt::format("jax.lax.dot_general({}, {}, (((0,), (0,)), ((), ())), preferred_element_type=jnp.float32)",
                      load(s, i.src0, true), load(s, i.src1, true));
      store(s, i.accumulate ? fmt::format("{} + {}", load(s, i.dst), product) : product);
      return;
    }
    case isa::Opcode::VpuBinary: {
      const bool bothColumns =
          windowOf(k_, s, i.src0, kBackend).broadcast && windowOf(k_, s, i.src1, kBackend).broadcast;
      store(s, binary(i.alu, load(s, i.src0), load(s, i.src1)), bothColumns);
      return;
    }
    case isa::Opcode::VpuUnary: {
      std::string x = load(s, i.src0);
      if (i.scale != 1.0f) x = fmt::format("({} * {})", x, pythonFloat(i.scale));
      store(s, unary(i.func, x));
      return;
    }
    case isa::Opcode::VpuReduce: {
      std::optional<std::string> r = reduction(i.alu, load(s, i.src0));
      if (!r) throw Error(fmt::format("Pallas: a {} reduction has no jnp equivalent", isa::name(i.alu)), s.loc);
      store(s, *r);
      return;
    }
    case isa::Opcode::VpuConvert: store(s, load(s, i.src0)); return;
    case isa::Opcode::VpuFill: {
      const Window w = windowOf(k_, s, i.dst, kBackend);
      store(s, fmt::format("jnp.full(({}, {}), {}, jnp.float32)", w.rows, w.cols, pythonFloat(i.value)));
      return;
    }
    case isa::Opcode::Print:
      out_.line(fmt::format("# device_print \"{}\" is not emitted: Pallas TPU prints scalars only", p_.textOf(i)));
      return;
    default:
      throw Error(fmt::format("Pallas: {} is not a TPU instruction; Pallas runs TPU kernels", isa::name(i.op)), s.loc);
    }
  }

  void wrapper() {
    std::vector<std::string> inputs, operands, outShapes, inSpecs, outSpecs, scratch;
    std::vector<isa::DType> outDtypes;
    for (size_t t = 0; t < p_.tensors.size(); ++t) {
      const isa::TensorInfo &tensor = p_.tensors[t];
      if (tensor.isOutput) {
        outShapes.push_back(fmt::format("jax.ShapeDtypeStruct({}, {})", pythonShape(tensor.shape),
                                        jnpDtype(kernelDtype(tensor.dtype))));
        outSpecs.push_back("pl.BlockSpec(memory_space=pl.ANY)");
        outDtypes.push_back(tensor.dtype);
      } else {
        inputs.push_back(tensorNames_[t]);
        operands.push_back(kernelOperand(tensorNames_[t], tensor.dtype));
        inSpecs.push_back("pl.BlockSpec(memory_space=pl.ANY)");
      }
    }
    bool outputsFirst = false;
    for (const isa::TensorInfo &tensor : p_.tensors) {
      if (tensor.isOutput)
        outputsFirst = true;
      else if (outputsFirst)
        throw Error(fmt::format("Pallas: kernel '{}' lists input '{}' after an output; pallas_call passes every "
                                "input before the outputs",
                                k_.kernel, tensor.name));
    }
    auto tuple = [](const std::vector<std::string> &items) {
      return items.size() == 1 ? items[0] : fmt::format("({})", fmt::join(items, ", "));
    };
    out_.line(fmt::format("def {}({}, *, interpret=False):", functionName_, fmt::join(inputs, ", ")));
    out_.indent();
    out_.line("\"\"\"interpret: False on a TPU; pltpu.InterpretParams(...) to run on a CPU.\"\"\"");
    const bool convertOutputs = convertsOutputs(outDtypes);
    out_.line(convertOutputs ? "result = pl.pallas_call(" : "return pl.pallas_call(");
    out_.indent();
    out_.line(kernelName_ + ",");
    out_.line(fmt::format("out_shape={},", tuple(outShapes)));
    out_.line(fmt::format("in_specs=({}{}),", fmt::join(inSpecs, ", "), inSpecs.size() == 1 ? "," : ""));
    out_.line(fmt::format("out_specs={},", tuple(outSpecs)));
    uint64_t vmemNeed = 0; // what the scratch buffers take in Mosaic's VMEM
    for (int32_t a : used_) {
      const compiler::TileAllocation &tile = prov_.allocations[a];
      vmemNeed += mosaicVmemBytes({tile.bufs, tile.rows, tile.cols}, kernelDtype(tile.dtype));
    }
    for (const Stage &stage : stages_)
      vmemNeed += mosaicVmemBytes({stage.rows, stage.cols}, kernelDtype(stage.dtype));
    const std::string vmemLimit = vmemLimitArgument(k_, vmemNeed);
    out_.line("scratch_shapes=(");
    out_.indent();
    for (int32_t a : used_) {
      const compiler::TileAllocation &tile = prov_.allocations[a];
      const std::string shape = tile.bufs > 1 ? fmt::format("({}, {}, {})", tile.bufs, tile.rows, tile.cols)
                                              : fmt::format("({}, {})", tile.rows, tile.cols);
      const std::string place = placeOf(tile.loc);
      out_.line(fmt::format("pltpu.VMEM({}, {}),  # {}{}", shape, jnpDtype(kernelDtype(tile.dtype)), tileNames_[a],
                            place.empty() ? "" : ", " + place));
    }
    for (const Stage &stage : stages_)
      out_.line(fmt::format("pltpu.VMEM(({}, {}), {}),  # {}: the window around a strided load", stage.rows,
                            stage.cols, jnpDtype(kernelDtype(stage.dtype)), stage.name));
    out_.line(fmt::format("pltpu.SemaphoreType.DMA(({},)),", std::max(1, slotCount_)));
    out_.dedent();
    out_.line("),");
    if (!vmemLimit.empty()) {
      out_.line(vmemLimitComment(k_, vmemNeed));
      out_.line(fmt::format("compiler_params=pltpu.CompilerParams({}),", vmemLimit));
    }
    if (const std::string cost = costEstimateArgument(k_); !cost.empty()) out_.line(cost + ",");
    out_.line("interpret=interpret,");
    out_.dedent();
    out_.line(fmt::format(")({})", fmt::join(operands, ", ")));
    if (convertOutputs) returnOutputs(out_, outDtypes);
    out_.dedent();
  }

  const KernelSource &k_;
  const isa::Program &p_;
  const compiler::Provenance &prov_;
  std::vector<Step> steps_;
  PythonWriter out_;
  Identifiers names_{
      {"jax", "jnp", "pl", "pltpu", "KERNEL", "TARGET", "INPUTS", "OUTPUTS", "interpret", "result", "_round_to_f16"}};
  std::vector<std::string> tensorNames_, tileNames_;
  std::string functionName_, kernelName_, semaphores_;
  std::set<int32_t> used_;

  std::vector<std::vector<size_t>> dependsOn_;         ///< per step: the steps whose signals it waits for
  std::vector<size_t> readyAt_;                        ///< per DMA: the compute instruction it starts before
  std::map<size_t, size_t> computeIndex_;              ///< per compute step: its position among compute steps
  std::map<uint32_t, std::vector<size_t>> queueOrder_; ///< per DMA queue: its DMAs in order
  std::map<size_t, std::vector<size_t>> startBefore_;  ///< compute position -> DMAs to start just before it
  size_t computeCount_ = 0;
  std::set<size_t> started_, waited_;
  std::map<size_t, int> slots_;
  std::set<int> freeSlots_;
  int slotCount_ = 0;
  std::map<size_t, size_t> dmaNumbers_;

  /// A VMEM buffer a strided load lands in before its strided read into the tile.
  struct Stage {
    std::string name;
    int64_t rows = 0, cols = 0;
    isa::DType dtype = isa::DType::F32;
    bool busy = false;
  };
  std::vector<Stage> stages_;
  struct AfterWait {
    size_t stage;
    std::string statement;
  };
  std::map<size_t, AfterWait> afterWait_; ///< per DMA: what its wait must be followed by (a strided read)
};

} // namespace

std::string emitPallas(const KernelSource &kernel, PallasStyle style) {
  if (const isa::Family &family = isa::familyOf(*kernel.target); family.deviceBackend() != "pallas")
    throw Error(fmt::format("Pallas: target {} is a {}; Pallas kernels run on TPU targets", kernel.target->name,
                            family.title()),
                {}, fmt::format("use --emit {} for a {} target", family.deviceBackend(), family.title()));
  if (style == PallasStyle::Manual) return PallasEmitter(kernel).emit();
  std::string whyNot;
  if (std::optional<std::string> grid = emitPallasGrid(kernel, whyNot)) return *grid;
  if (style == PallasStyle::Grid)
    throw Error(fmt::format("Pallas: kernel '{}' is not a Pallas grid: {}", kernel.kernel, whyNot), {},
                "--pallas-style manual (or auto) writes any TPU kernel");
  return PallasEmitter(kernel).emit();
}

std::optional<PallasStyle> parsePallasStyle(std::string_view name) {
  if (name == "manual") return PallasStyle::Manual;
  if (name == "grid") return PallasStyle::Grid;
  if (name == "auto") return PallasStyle::Auto;
  return std::nullopt;
}

} // namespace tessera::backends
