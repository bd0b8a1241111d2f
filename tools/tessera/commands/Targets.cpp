// `tessera targets`: the machines that can be simulated, with their headline figures.

#include "tessera/commands/Commands.h"
#include "tessera/isa/Family.h"

#include "tessera/CommandLine.h"
#include "tessera/Report.h"
#include "tessera/JsonText.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tessera::driver {

int targetsCommand(const std::vector<std::string> &args) {
  const bool json = parseJsonOption(args, "tessera targets");
  nlohmann::json out = nlohmann::json::array();
  for (const isa::Target &t : isa::Target::all()) {
    if (json) out.push_back(toJson(t));
    else
      fmt::print("{}\n", isa::familyOf(t).summary(t));
  }
  if (json) fmt::print("{}\n", jsonText(out, 2));
  return kOk;
}

} // namespace tessera::driver
