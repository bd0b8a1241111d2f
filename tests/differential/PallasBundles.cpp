#include "PallasBundles.h"

#include "tessera/AtomicFile.h"
#include "tessera/Deploy.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>

namespace tessera::difftest {

namespace fs = std::filesystem;

namespace {

/// The command that writes one seed's bundle again, for its manifest.
std::string commandFor(uint64_t seed, const std::string &target, const std::string &style, const fs::path &dir) {
  return fmt::format("tessera-difftest --seeds {}..{} --target {} --pallas {} --pallas-style {}", seed, seed, target,
                     dir.string(), style);
}

/// An emitter error that is Tessera's bug, not the style declining the kernel.
bool isInternal(const std::string &message) { return message.find("internal error") != std::string::npos; }

} // namespace

std::string refusalKind(const std::string &refusal) {
  std::string reason = refusal;
  const std::string grid = "is not a Pallas grid: ";
  if (size_t at = reason.find(grid); at != std::string::npos) reason = "not a grid: " + reason.substr(at + grid.size());
  std::string kind;
  for (size_t i = 0; i < reason.size(); ++i) {
    const char c = reason[i];
    if (c == '\'') { // a name: 'x0' -> '*'
      const size_t close = reason.find('\'', i + 1);
      if (close == std::string::npos) break;
      kind += "'*'";
      i = close;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      kind += 'N';
      while (i + 1 < reason.size() && (std::isdigit(static_cast<unsigned char>(reason[i + 1])) || reason[i + 1] == '.'))
        ++i;
    } else {
      kind += c;
    }
  }
  return kind;
}

SeedBundles writePallasBundles(const KernelSpec &spec, const std::string &target,
                               const std::vector<std::string> &styles, const fs::path &dir) {
  SeedBundles result;
  result.seed = spec.seed;
  const tsr::KernelInfo kernel = kernelOf(spec);
  driver::RunRequest request;
  request.kernel = kernel.name;
  request.kernelInfo = &kernel;
  request.target = target;
  request.seed = 1; // the inputs tessera-difftest's other runs use
  request.compile.loopBuffers = spec.loopBuffers;
  driver::RunReport report;
  try {
    report = driver::runForDeploy(request);
  } catch (const std::exception &e) {
    result.failure = e.what();
    return result;
  }
  for (const std::string &style : styles) {
    StyleBundle b{style, fmt::format("{}-{}", spec.seed, style), ""};
    try {
      driver::writeDeployBundle(request, report, dir / b.bundle, commandFor(spec.seed, target, style, dir), style);
    } catch (const driver::InputError &e) {
      if (isInternal(e.message())) {
        result.failure = fmt::format("the {} style: {}", style, e.what());
        return result;
      }
      fs::remove_all(dir / b.bundle); // a bundle of an earlier batch must not be checked as this one's
      b.refusal = e.message();
      b.bundle.clear();
    }
    result.styles.push_back(b);
  }
  return result;
}

PallasBatch writePallasBatch(uint64_t first, uint64_t last, const std::string &target,
                             const std::vector<std::string> &styles, const fs::path &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw driver::InputError(fmt::format("--pallas: cannot create the folder '{}'", dir.string()), {},
                             "give a folder that can be written");
  PallasBatch batch;
  nlohmann::json seeds = nlohmann::json::array();
  for (uint64_t seed = first; seed <= last; ++seed) {
    const KernelSpec spec = generate(seed);
    const SeedBundles s = writePallasBundles(spec, target, styles, dir);
    ++batch.kernels;
    nlohmann::json entry = {{"seed", seed}, {"kernel", spec.str()}, {"styles", nlohmann::json::array()}};
    if (!s.failure.empty()) {
      ++batch.failures;
      batch.failureReports.push_back(fmt::format("seed {} failed on {}: {}\n{}", seed, target, s.failure, spec.str()));
      entry["failure"] = s.failure;
    }
    for (const StyleBundle &b : s.styles) {
      if (b.bundle.empty()) ++batch.refusals[b.style][refusalKind(b.refusal)];
      else ++batch.bundles;
      entry["styles"].push_back({{"style", b.style},
                                 {"bundle", b.bundle.empty() ? nlohmann::json() : nlohmann::json(b.bundle)},
                                 {"refusal", b.refusal.empty() ? nlohmann::json() : nlohmann::json(b.refusal)},
                                 {"refusal_kind", b.refusal.empty() ? nlohmann::json()
                                                                    : nlohmann::json(refusalKind(b.refusal))}});
    }
    seeds.push_back(entry);
  }
  const nlohmann::json summary = {{"target", target}, {"first", first}, {"last", last}, {"styles", styles},
                                  {"seeds", seeds}};
  driver::AtomicFile(dir / "difftest.json", "difftest summary").commit(summary.dump(2) + "\n"); // whole or not at all
  return batch;
}

} // namespace tessera::difftest
