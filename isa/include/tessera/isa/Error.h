#pragma once
/// \file
/// The one error type users see. It carries the place the problem comes from (a kernel's source line, a target
/// file and field, a command-line flag) and a hint on how to fix it. Internal invariants use assert instead.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera {

/// A position in a user's file: a kernel source line, a target file, an MLIR file.
struct SourceLoc {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;

  bool known() const { return !file.empty(); }
  /// "file:line" (or "file" alone when the line is unknown; "" when nothing is known).
  std::string str() const;
};

/// A user-facing error: what went wrong, where, and what was expected.
class Error : public std::runtime_error {
public:
  Error(std::string message, SourceLoc where = {}, std::string hint = {});

  const std::string &message() const { return message_; }
  const SourceLoc &where() const { return where_; }
  const std::string &hint() const { return hint_; }

private:
  std::string message_;
  SourceLoc where_;
  std::string hint_;
};

} // namespace tessera
