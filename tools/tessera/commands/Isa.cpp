// `tessera isa`: the instruction set reference (IsaReference.h) as text, JSON or the Markdown of docs/isa/.

#include "tessera/commands/Commands.h"

#include "tessera/CommandLine.h"
#include "tessera/Driver.h"
#include "tessera/IsaReference.h"
#include "tessera/JsonText.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <optional>
#include <vector>

namespace po = boost::program_options;

namespace tessera::driver {

int isaCommand(const std::vector<std::string> &args) {
  bool json = false, markdown = false;
  std::string target, only;
  po::options_description desc("tessera isa [INSTRUCTION]");
  desc.add_options()("target", po::value(&target)->value_name("T"),
                     "the target whose family, limits and costs to show (default: both families, no costs)")(
      "json", po::bool_switch(&json), "print JSON")(
      "markdown", po::bool_switch(&markdown), "print the whole reference for the built-in targets (docs/isa/README.md)")(
      "instruction", po::value(&only), "show only this instruction (by name or NKI name)");
  parse(args, desc, "instruction");
  if (markdown) {
    // Family by family: each family's tables have a column per built-in target of that family.
    std::vector<isa::Target> builtin;
    for (const isa::Target &t : isa::Target::all())
      if (t.file.parent_path() == isa::Target::builtinDirectory()) builtin.push_back(t);
    fmt::print("{}", isaReferenceMarkdown(builtin));
    return kOk;
  }
  std::optional<isa::Target> t;
  if (!target.empty()) t = loadTarget(target);
  const isa::Target *chosen = t ? &*t : nullptr;
  if (json) fmt::print("{}\n", jsonText(isaReferenceJson(chosen, only), 2));
  else fmt::print("{}", isaReferenceText(chosen, only));
  return kOk;
}

} // namespace tessera::driver
