#pragma once
/// \file
/// A target family: what sets the machines of one vendor's design apart, for every layer that includes no MLIR
/// (the simulator, the CLI, the backends). Each family is one file in isa/lib/families/; familyOf() picks it once
/// from the target file's [target] family, and nothing else asks which family a target is. The compiler's side of
/// a family (its dialect, legalisation and lowering) is compiler::TargetFamily (compiler/lib/Targets/<Family>/).

#include "tessera/isa/InstructionSet.h"
#include "tessera/isa/Target.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::isa {

/// One on-chip memory of a target: `partitions` of `bytesPerPartition` each (a flat memory is one partition).
struct FamilyMemory {
  MemSpace space;
  uint32_t partitions = 0;
  uint64_t bytesPerPartition = 0;
  uint64_t bytes() const { return uint64_t{partitions} * bytesPerPartition; }
};

/// Writes a target's family-specific figures as named groups of named numbers (`tessera targets --json`).
class FigureWriter {
public:
  virtual ~FigureWriter() = default;
  /// Starts group `name` (nested under the previous group until endGroup); "" for the target's top level.
  virtual void beginGroup(std::string_view name) = 0;
  virtual void endGroup() = 0;
  virtual void figure(std::string_view key, double value) = 0;
  virtual void count(std::string_view key, uint64_t value) = 0;
};

class Family {
public:
  virtual ~Family() = default;

  /// The family's name in target files and instruction definitions: "neuroncore", "tpu".
  virtual std::string_view name() const = 0;
  /// How its documentation names it, and a generation of it: "NeuronCore", "NeuronCore-v3"; "TPU", "TPU v5e".
  virtual std::string_view title() const = 0;
  virtual std::string generationLabel(std::string_view generation) const = 0;

  /// The engines its programs have streams for (DMA queues included), and what its documentation calls one
  /// ("engine"; a TPU's "unit").
  virtual EngineSet engines() const = 0;
  virtual std::string_view engineWord() const = 0;
  /// Whether its compute instructions belong to grid steps (a Pallas grid's; Instruction::step), which a
  /// grid_step instruction on its scalar unit starts.
  virtual bool gridSteps() const = 0;
  /// Its on-chip memories on `target`, as the simulator builds them.
  virtual std::vector<FamilyMemory> memories(const Target &target) const = 0;
  /// Whether its compute instructions reach memory `space` (DMAs move between HBM and these), and the rule said
  /// in words ("compute engines reach only SBUF and PSUM").
  virtual bool computeReaches(MemSpace space) const = 0;
  virtual std::string_view reachHint() const = 0;
  /// Why a program's stream or operand is of another family: what its programs run on and keep tiles in.
  virtual std::string_view programHint() const = 0;
  virtual std::string_view memoryHint() const = 0;
  /// "" when `inst`'s operands fit what `target` has beyond each instruction's own rules (a TPU: inside VMEM).
  virtual std::string checkOperands(const Instruction &inst, const Target &target) const = 0;
  /// "" when `target`'s family figures let the simulator run (positive clocks, sizes, rates it divides by); else
  /// what is wrong.
  virtual std::string checkFigures(const Target &target) const = 0;
  /// Whether an access pattern's minor stride slows its DMA (the NeuronCore's SBUF rule, isa/DmaCost.h).
  virtual bool stridedDmaPenalty() const = 0;

  /// The matrix unit, in reports ("tensor engine", "MXUs") and JSON keys ("tensor_engine", "mxu").
  virtual std::string_view matrixUnit() const = 0;
  virtual std::string_view matrixUnitKey() const = 0;
  /// Whether time on the stream of `engine` is bookkeeping rather than the kernel's work (a TPU's scalar core).
  virtual bool isBookkeeping(Engine engine) const = 0;
  /// Cores that share one chip's HBM (and its price).
  virtual uint32_t coresPerChip(const Target &target) const = 0;
  /// The vendor kernel language its kernels are emitted in: "nki", "pallas" (hw-backends/).
  virtual std::string_view deviceBackend() const = 0;
  /// What the ISA reference heads the vendor's names with: "NKI", "Pallas / Mosaic".
  virtual std::string_view vendorApi() const = 0;
  /// The name of its target dialect and compiler stage: "nc", "tpu" (`tessera compile --emit`).
  virtual std::string_view stage() const = 0;
  /// The coefficients `tessera calibrate` fits when asked for none ("table.key").
  virtual std::vector<std::string> defaultCalibration() const = 0;
  /// One line for `tessera targets`, and its figures for `--json`.
  virtual std::string summary(const Target &target) const = 0;
  virtual void describe(const Target &target, FigureWriter &out) const = 0;
};

/// The family of `target` (by Target::family; the target file's reader has checked it is known).
const Family &familyOf(const Target &target);
/// The family named `name`; null when there is none.
const Family *findFamily(std::string_view name);
/// Every family, in the order reports list them.
std::span<const Family *const> families();

} // namespace tessera::isa
