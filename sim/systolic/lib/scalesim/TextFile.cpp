#include "TextFile.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace tessera::systolic::scalesim {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string readText(const std::filesystem::path &path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read the {} '{}'", what, path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace tessera::systolic::scalesim
