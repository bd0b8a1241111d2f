#pragma once
/// \file
/// The compiler's side of a target family: where the shared tile stages (verify-target, allocate-memory, the
/// unroller) put its tiles, what it checks of a tile module, and the passes that take its placed tiles to its own
/// dialect's instructions. Each family is a folder of compiler/lib/Targets/ (its dialect, legalisation, lowering,
/// scheduling, this interface's implementation); targetFamily() picks it from the target's isa::Family, and the
/// pipeline (lib/Pipeline.cpp) and shared passes ask it rather than which family a target is. Adding a family is
/// adding a folder and a line in TargetFamily.cpp.

#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/isa/Family.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <span>
#include <string>

namespace tessera::compiler {

/// `value` rounded up to a multiple of `multiple` (unchanged for a multiple of 1 or less): tile sizes padded to a
/// target's tiling or alignment.
inline int64_t roundUp(int64_t value, int64_t multiple) {
  return multiple > 1 ? (value + multiple - 1) / multiple * multiple : value;
}

/// How the lowering is asked to run.
struct LoweringOptions {
  uint64_t maxInstructions = 0; ///< 0: no limit
  bool recordOrigins = false;   ///< mark each instruction with its tile op (Provenance)
  bool schedule = false;        ///< reorder the engines' streams where the family list-schedules them
};

/// TileBudget::remedy for a memory a tile takes by bytes (SBUF, VMEM).
inline constexpr const char *kSmallerTilesRemedy = "use smaller tiles, fewer tiles live at once (a tile made in a loop "
                                                   "body ends with it), or fewer rotating copies of loop tiles "
                                                   "(--loop-buffers)";

/// What one kernel's tiles may take of a memory (TargetFamily::tileBudget), and how its author counts it there.
struct TileBudget {
  int64_t bytes = 0;
  std::string limitedBy; ///< empty: the whole memory; else what sets the smaller figure, in a user's terms
  int64_t bankBytes = 0; ///< > 0: each tile takes whole banks of this many bytes (NeuronCore PSUM), counted so
  std::string remedy;    ///< what a kernel whose tiles do not fit can do, in its author's terms
};

class TargetFamily {
public:
  virtual ~TargetFamily() = default;

  /// The family as the layers without MLIR know it.
  virtual const isa::Family &family() const = 0;
  /// Its dialect, and its passes (for tessera-opt).
  virtual void registerDialects(mlir::DialectRegistry &registry) const = 0;
  virtual void registerPasses() const = 0;

  /// Passes before verify-target and allocation: the language ops it has no instruction for, rewritten.
  virtual void addLegalization(mlir::OpPassManager &pm) const = 0;
  /// From placed tiles to its dialect's instructions (and their checks), before insert-semaphores.
  virtual void addLowering(mlir::OpPassManager &pm, const LoweringOptions &options) const = 0;
  /// The passes that plan its device backend's code from the placed tile module (tile::kPlan* attributes, exported
  /// as CompileResult::tileProgram), `launchGrid` asking for a launch grid where the loops allow; false when its
  /// backend emits from the unrolled program instead (NeuronCore: NKI's loops are folded back from it).
  virtual bool addDeviceCodePlanning(mlir::OpPassManager &pm, bool launchGrid) const { return false; }
  /// The tessera-opt name of its lowering pass ("lower-tile-to-nc"), for errors that send a user to it.
  virtual llvm::StringRef loweringPass() const = 0;
  /// What a module of its dialect read from a file is checked with.
  virtual void addChecks(mlir::OpPassManager &pm) const = 0;

  /// The machine memory a tile of the tile dialect's `space` lives in (NeuronCore: SBUF or PSUM; TPU: VMEM).
  virtual isa::MemSpace tileSpace(tile::MemorySpace space) const = 0;
  /// Bytes one copy of a tile of type `t` takes (per partition where the memory has partitions), and the elements
  /// from one of its rows to the next in a flat memory (0: the memory has partitions).
  virtual int64_t tileCopyBytes(mlir::MemRefType t, const isa::Target &target) const = 0;
  virtual int64_t tilePitch(mlir::MemRefType t, const isa::Target &target) const = 0;
  /// How many bytes (per partition where the memory has partitions) of memory `m` one kernel's tiles may take, and,
  /// when that is less than the memory holds, why (for the error that refuses a kernel over it).
  virtual TileBudget tileBudget(const isa::FamilyMemory &m, const isa::Target &target) const = 0;
  /// The most rotating copies a loop-local tile gets, given what the kernel asked for.
  virtual int64_t loopBuffers(int64_t requested) const = 0;
  /// Checks one op of a tile module against the target's limits (verify-target); emits the error itself.
  virtual mlir::LogicalResult verifyTileOp(mlir::Operation *op, const isa::Target &target) const = 0;
  /// After allocation: notes for the kernel author about how its tiles were placed (remarks), if any.
  virtual void noteAllocation(mlir::func::FuncOp fn, const isa::Target &target) const = 0;
};

/// The compiler's side of `target`'s family.
const TargetFamily &targetFamily(const isa::Target &target);
/// Every family, in isa::families() order.
std::span<const TargetFamily *const> targetFamilies();

/// Fails `pass` when `module`'s target is not of `family`, saying which pass runs there: a family's passes guard
/// themselves with it.
mlir::LogicalResult requireFamily(mlir::Operation *module, const isa::Target &target, const TargetFamily &family,
                                  llvm::StringRef pass);

// The families (their folders).
const TargetFamily &neuronCoreFamily();
const TargetFamily &tpuFamily();

} // namespace tessera::compiler
