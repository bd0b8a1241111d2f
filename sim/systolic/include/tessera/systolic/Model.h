#pragma once
/// \file
/// The one interface to both models: pick one, or let the array's size pick.

#include "tessera/systolic/FoldModel.h"
#include "tessera/systolic/PeModel.h"

#include <string_view>

namespace tessera::systolic {

enum class ModelKind { Pe, Fold };

/// "pe" or "fold"; throws tessera::Error.
ModelKind parseModelKind(std::string_view text);
std::string_view shortName(ModelKind kind);

/// Arrays up to this many rows and columns get the PE model by default...
inline constexpr int64_t kPeModelDefaultMaxSide = 32;
/// ...unless it would step more PE-cycles than this (about a second).
inline constexpr int64_t kPeModelDefaultMaxPeCycles = int64_t(1) << 28;

/// The PE model for arrays up to kPeModelDefaultMaxSide x kPeModelDefaultMaxSide and runs of up to
/// kPeModelDefaultMaxPeCycles PE-cycles; the fold model otherwise. Call validate() first.
ModelKind defaultModel(const ArrayConfig &config, const Gemm &gemm);

/// Runs the chosen model. `options` only matter to the PE model.
Result simulate(const ArrayConfig &config, const Gemm &gemm, ModelKind kind, const PeModelOptions &options = {});

} // namespace tessera::systolic
