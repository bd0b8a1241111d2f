#pragma once
/// \file
/// The instruction sets of both families (NeuronCore engines, TPU TensorCore units): one definition per
/// instruction, read by everything that needs to know about it. The compiler's nc verifier checks instructions with `verify`, the simulator runs `execute` and charges
/// `cycles`, the race and memory checks ask `use` which operands are read and written, and `tessera isa` and
/// docs/isa/ print the reference from the same fields. Definitions live in isa/lib/instructions/, grouped by
/// what they do.

#include "tessera/isa/NkiCall.h"
#include "tessera/isa/Program.h"
#include "tessera/isa/Semantics.h"
#include "tessera/isa/Settings.h"
#include "tessera/isa/Target.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tessera::isa {

/// A set of engines, one bit per Engine.
class EngineSet {
public:
  constexpr EngineSet() = default;
  constexpr EngineSet(std::initializer_list<Engine> engines) {
    for (Engine e : engines)
      bits_ |= bit(e);
  }
  constexpr bool contains(Engine e) const { return (bits_ & bit(e)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }

private:
  static constexpr uint16_t bit(Engine e) { return uint16_t(1u << static_cast<unsigned>(e)); }
  uint16_t bits_ = 0;
};

/// One operand slot of an instruction, for the reference.
struct OperandDef {
  std::string_view slot;    ///< the Instruction field: "dst", "dst2", "src0", "src1", "src2"
  std::string_view nkiName; ///< the name NKI gives it: "data", "operand0", "bias", ...
  std::string_view doc;     ///< spaces, shape and dtype rules, whether optional
};

/// A setting an instruction reads (Settings.h), and what the vendor's API calls it.
struct SettingDef {
  Setting setting;
  std::string_view vendorName; ///< NKI's argument ("op0", "scale"); for a TPU instruction, its Pallas spelling
};

/// A rule the vendor's documentation states for an instruction beyond its shapes (`verify`): the engines,
/// generations, ALU operations and memories it may use. verifyInstruction checks every rule of the instruction's
/// definition, and a broken rule's message names it and its source.
struct Rule {
  std::string_view id;     ///< "tensor_copy.scalar-engine": the instruction, then what the rule is about
  std::string_view source; ///< the document and section that state it
  /// "" when `inst` on `engine` obeys the rule on `target` (null: no target known, so only rules that need none
  /// apply); else what is wrong, in one sentence.
  std::string (*check)(const Instruction &inst, Engine engine, const Target *target);
};

/// What an instruction does, for the report's timeline colours and breakdown.
enum class Category : uint8_t {
  Matmul,      ///< the tensor engine's and MXU's work: matmuls and transposes
  Elementwise, ///< ALU work element by element, selections
  Activation,  ///< the scalar engine's (and EUP's) functions
  Reduction,   ///< reductions, scans, statistics, top-8 searches
  Copy,        ///< copies and gathers between on-chip tiles
  Fill,        ///< memsets, iotas, fills
  Dma,         ///< DMA transfers (the report splits them by direction)
  Print,       ///< device prints
  Control,     ///< the scalar core's bookkeeping (TPU grid steps)
};
std::string_view name(Category c);
inline constexpr unsigned kCategoryCount = static_cast<unsigned>(Category::Control) + 1;

/// Everything about one instruction.
struct InstructionDef {
  Opcode op;
  std::string_view name;     ///< the name in reports, traces and the nc dialect (NKI's, but "matmul")
  std::string_view nki;      ///< what NKI calls it: "nki.isa.tensor_scalar"
  std::string_view summary;  ///< what it computes, one line
  EngineSet engines;         ///< the engines that can run it
  Engine preferredEngine;    ///< where the compiler puts it unless the kernel says otherwise
  std::string_view since;    ///< the first generation of its family that has it ("v2", "v3"; TPU "v4")
  std::string_view sinceSource = {}; ///< where the vendor says so, when it is later than the family's first
  std::span<const OperandDef> operands;
  std::string_view limits;   ///< shape and space rules, for the reference
  std::string_view cost;     ///< the cost formula, naming the target file's [cost] keys
  /// Which operands it reads and writes.
  OperandUse (*use)(const Instruction &inst);
  /// Shape, space and dtype rules: "" when `inst` satisfies them, else what is wrong, in one sentence. With
  /// `target` also the target's limits (partitions, free sizes, generation).
  std::string (*verify)(const Instruction &inst, const Target *target);
  /// The reference semantics: computes in FP32, decoding and encoding operands (Semantics.h).
  void (*execute)(const Instruction &inst, const Memories &mem);
  /// Cycles on compute engine `engine` at its clock (DMA instructions: 0, the simulator times transfers).
  uint64_t (*cycles)(const Instruction &inst, Engine engine, const Target &target);
  /// Where `inst.mode` selects an engine form (nc_transpose), the engine that form runs on; null when any of
  /// `engines` may run every form.
  Engine (*modeEngine)(const Instruction &inst) = nullptr;
  /// The target family whose machines run it: Target::family ("neuroncore" or "tpu"), or kAnyFamily.
  std::string_view family = "neuroncore";
  /// The settings it reads; every other setting must keep its default (verifyInstruction checks).
  std::span<const SettingDef> settings = {};
  Category category = Category::Elementwise;
  /// Floating-point operations it performs: one per ALU stage per element, two per multiply-accumulate.
  uint64_t (*flops)(const Instruction &inst) = nullptr;
  /// Writes its NKI call's keyword arguments (`dst` first), in NKI's order, the callee being `nki`. Null: NKI has no
  /// call for it (TPU instructions).
  void (*nkiCall)(const Instruction &inst, NkiCall &call) = nullptr;
  /// The vendor's rules for it beyond `verify` (checked by verifyInstruction, each naming its source).
  std::span<const Rule> rules = {};
};

/// The family of the simulator's own instructions that machines of every family run (print).
inline constexpr std::string_view kAnyFamily = "any";
/// Whether machines of `family` (Target::family) run `def`.
bool runsOnFamily(const InstructionDef &def, std::string_view family);

/// The definition of `op`.
const InstructionDef &definition(Opcode op);
/// Every definition, in Opcode order (InstructionSetTest checks that every opcode has one).
std::span<const InstructionDef> instructionSet();
/// Adds `def` to the instruction set under a new opcode, after the built-in ones, and returns it: an instruction
/// defined outside the library (a test's, a user's plugin's), which every layer then reads as it reads the
/// built-in ones. Its name must be new (tessera::Error otherwise). Register before tracing, compiling or
/// simulating anything that uses it: the set is not guarded for threads (definitions handed out before stay
/// valid; a span from instructionSet() taken before does not include the new one).
Opcode registerInstruction(InstructionDef def);

/// How a family's documentation names a generation: "NeuronCore-v3", "TPU v5e".
std::string generationLabel(std::string_view family, std::string_view generation);

/// Whether `target`'s generation ("v2", "v3"...; TPU "v5e", "7x") is at least `since`: the numbers are compared.
bool generationAtLeast(const Target &target, std::string_view since);

/// The settings of `inst` that differ from their defaults, one bit per Setting.
uint32_t changedSettings(const Instruction &inst);
/// Whether `def` reads setting `s`.
bool readsSetting(const InstructionDef &def, Setting s);

/// The checks every instruction shares, then its own: engine allowed, family and generation, operand presence, the
/// family's memories (NeuronCore: SBUF and PSUM; TPU: VMEM, inside the target's; DMA instructions check their
/// sides), then def.verify. "" when `inst` may run on `engine` (nullopt: any of its engines) of `target` (null:
/// any); else the problem in one sentence, without the instruction's name (the caller says where it is). A setting
/// the instruction does not read must keep its default; then every rule of def.rules holds, a broken one named
/// with its source ("... [rule tensor_copy.scalar-engine: NKI ISA reference, nki.isa.tensor_copy]").
std::string verifyInstruction(const Instruction &inst, std::optional<Engine> engine, const Target *target);

} // namespace tessera::isa
