/// \file
/// The user-facing error type: a message, where it comes from, and how to fix it.

#include "tessera/isa/Error.h"

#include <utility>

namespace tessera {
namespace {

/// "file:line: error: message" (or "error: message" without a location), then "\n  hint: ..." if there is one.
std::string fullMessage(const std::string &message, const SourceLoc &where, const std::string &hint) {
  std::string text;
  if (where.known())
    text = where.str() + ": ";
  text += "error: " + message;
  if (!hint.empty())
    text += "\n  hint: " + hint;
  return text;
}

} // namespace

std::string SourceLoc::str() const {
  if (!known())
    return {};
  if (line == 0)
    return file;
  return file + ":" + std::to_string(line);
}

Error::Error(std::string message, SourceLoc where, std::string hint)
    : std::runtime_error(fullMessage(message, where, hint)), message_(std::move(message)), where_(std::move(where)),
      hint_(std::move(hint)) {}

} // namespace tessera
