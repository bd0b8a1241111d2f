// `tessera list`: the kernels, their shape parameters (--shape) and kernel parameters (--param).

#include "tessera/commands/Commands.h"

#include "tessera/CommandLine.h"
#include "tessera/Driver.h"
#include "tessera/JsonText.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace tessera::driver {

int listCommand(const std::vector<std::string> &args) {
  const bool json = parseJsonOption(args, "tessera list");
  nlohmann::json out = nlohmann::json::array();
  auto joined = [](const std::vector<std::pair<std::string, int64_t>> &params) {
    std::string s;
    for (auto &[name, value] : params) s += fmt::format("{}{}={}", s.empty() ? "" : ",", name, value);
    return s;
  };
  // The kernel and scalar parameters, as --param takes them.
  auto kernelJoined = [&](const tsr::KernelInfo &k) {
    std::string s = joined(k.kernelParams);
    for (auto &[name, value] : k.scalarParams) s += fmt::format("{}{}={}", s.empty() ? "" : ",", name, value);
    return s;
  };
  size_t width = 10, paramsWidth = 0; // the longest name and kernel parameters set the columns
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) {
    width = std::max(width, k->name.size());
    paramsWidth = std::max(paramsWidth, kernelJoined(*k).size());
  }
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) {
    if (json) {
      // "params": the shape parameters (--shape); "kernel_params": the kernel and scalar parameters (--param;
      // integers and real numbers).
      nlohmann::json params = nlohmann::json::object(), kernelParams = nlohmann::json::object();
      for (auto &[name, value] : k->params) params[name] = value;
      for (auto &[name, value] : k->kernelParams) kernelParams[name] = value;
      for (auto &[name, value] : k->scalarParams) kernelParams[name] = value;
      nlohmann::json j = {
          {"name", k->name}, {"summary", k->summary}, {"params", params}, {"kernel_params", kernelParams}};
      if (!k->plugin.empty()) j["plugin"] = k->plugin; // loaded with --plugin
      out.push_back(std::move(j));
      continue;
    }
    const std::string summary = k->plugin.empty() ? k->summary : fmt::format("{} (plugin {})", k->summary, k->plugin);
    if (paramsWidth == 0) fmt::print("{:<{}} {:<24} {}\n", k->name, width, joined(k->params), summary);
    else
      fmt::print("{:<{}} {:<24} {:<{}} {}\n", k->name, width, joined(k->params), kernelJoined(*k), paramsWidth,
                 summary);
  }
  if (json) fmt::print("{}\n", jsonText(out, 2));
  return kOk;
}

} // namespace tessera::driver
