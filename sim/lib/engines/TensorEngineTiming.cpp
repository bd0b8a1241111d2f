#include "engines/TensorEngineTiming.h"

#include "SimulatedTime.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/Modes.h"

#include <algorithm>

namespace tessera::sim {

TensorEngineTiming::TensorEngineTiming(const isa::Target &target, double psPerCycle)
    : target_(target), psPerCycle_(psPerCycle), rowFreePs_(std::max(1u, target.tensor.maxRowTiles), 0) {}

std::pair<unsigned, unsigned> TensorEngineTiming::rowsOf(const isa::Instruction &inst) const {
  const auto finest = static_cast<unsigned>(rowFreePs_.size());
  if (inst.op != isa::Opcode::Matmul)
    return {0, finest};
  const isa::MatmulMode mode = isa::MatmulMode::decode(inst.mode);
  // verifyInstruction made rowTiles() <= max_row_tiles, both powers of two.
  if (!mode.tiled() || mode.rowTiles() > finest)
    return {0, finest};
  const unsigned perTile = finest / mode.rowTiles();
  return {mode.rowTile * perTile, (mode.rowTile + 1) * perTile};
}

uint64_t TensorEngineTiming::completion(const isa::Instruction &inst, uint64_t cycles, uint64_t nowPs,
                                        uint64_t waitedPs) {
  const bool loadExposed = first_ || waitedPs > 0;
  first_ = false;
  const uint64_t charged = cycles + (loadExposed ? isa::loadStationaryCycles(inst, target_) : 0);
  const uint64_t durationPs = picosecondsOfCycles(charged, psPerCycle_, "a matmul");

  const auto [first, last] = rowsOf(inst);
  uint64_t startPs = inst.waitCount != 0 ? nowPs : lastStartPs_;
  for (unsigned tile = first; tile < last; ++tile)
    startPs = std::max(startPs, rowFreePs_[tile]);
  const uint64_t endPs = endOf(startPs, durationPs, "a matmul");
  for (unsigned tile = first; tile < last; ++tile)
    rowFreePs_[tile] = endPs;
  lastStartPs_ = startPs;
  return std::max(endPs, nowPs);
}

} // namespace tessera::sim
