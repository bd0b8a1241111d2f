#pragma once
/// \file
/// What the readers of SCALE-Sim's files (Config.cpp, Topology.cpp) share: a file's text, and trimming.

#include <filesystem>
#include <string>
#include <string_view>

namespace tessera::systolic::scalesim {

/// `s` without leading and trailing white space.
std::string_view trim(std::string_view s);

/// The whole file; throws tessera::Error "cannot read the <what> '<path>'".
std::string readText(const std::filesystem::path &path, std::string_view what);

} // namespace tessera::systolic::scalesim
