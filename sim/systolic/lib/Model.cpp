#include "tessera/systolic/Model.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>

namespace tessera::systolic {

ModelKind parseModelKind(std::string_view text) {
  if (text == "pe") return ModelKind::Pe;
  if (text == "fold") return ModelKind::Fold;
  throw Error(fmt::format("--model: unknown model '{}'", text), {},
              "pe (every PE, every cycle) or fold (closed form)");
}

std::string_view shortName(ModelKind kind) { return kind == ModelKind::Pe ? "pe" : "fold"; }

ModelKind defaultModel(const ArrayConfig &config, const Gemm &gemm) {
  if (config.rows > kPeModelDefaultMaxSide || config.cols > kPeModelDefaultMaxSide) return ModelKind::Fold;
  double peCycles = double(mapGemm(config, gemm).computeCycles()) * double(config.rows * config.cols);
  return peCycles <= double(kPeModelDefaultMaxPeCycles) ? ModelKind::Pe : ModelKind::Fold;
}

Result simulate(const ArrayConfig &config, const Gemm &gemm, ModelKind kind, const PeModelOptions &options) {
  return kind == ModelKind::Pe ? runPeModel(config, gemm, options) : runFoldModel(config, gemm);
}

} // namespace tessera::systolic
