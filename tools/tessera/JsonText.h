#pragma once
/// \file
/// JSON as text for everything the CLI writes (`--json`, tessera.json, traces, reports).

#include <string>

namespace tessera::driver {

/// `j` as JSON text (`indent` < 0: one line). Invalid UTF-8 in a string (a kernel name or path typed in another
/// encoding) becomes U+FFFD instead of an exception: output is never lost to an abort.
template <typename Json> std::string jsonText(const Json &j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace tessera::driver
