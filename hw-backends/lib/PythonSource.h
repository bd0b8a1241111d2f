#pragma once
/// \file
/// Internal to the backends: writing Python source. Identifiers that cannot clash with Python or with the
/// modules the emitted file imports, number literals that read back as the same float, and indented lines.

#include <set>
#include <string>
#include <string_view>

namespace tessera::backends {

/// Hands out Python identifiers: each is `wanted` made valid (letters, digits, '_'; not a keyword or a name the
/// emitted module imports), and different from every one handed out before.
class Identifiers {
public:
  /// `reserved`: names of the emitted module's own (its imports, its helpers).
  explicit Identifiers(std::set<std::string> reserved = {});
  std::string make(std::string_view wanted);

private:
  std::set<std::string> taken_;
};

/// A float as a Python literal that reads back as exactly `value`: "0.5", "1e-05", "float('inf')".
std::string pythonFloat(float value);

/// Lines of Python, indented by four spaces per level.
class PythonWriter {
public:
  void line(std::string_view text = {});
  void indent() { ++depth_; }
  void dedent() { --depth_; }
  const std::string &text() const { return text_; }

private:
  std::string text_;
  int depth_ = 0;
};

} // namespace tessera::backends
