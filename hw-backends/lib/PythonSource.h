#pragma once
/// \file
/// Internal to the backends: writing Python source. Identifiers that cannot clash with Python or with the
/// modules the emitted file imports, number literals that read back as the same float, and indented lines.

#include "tessera/backends/KernelSource.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

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
  /// Lines written by another writer, as they are.
  void append(std::string_view text) { text_ += text; }
  void indent() { ++depth_; }
  void dedent() { --depth_; }
  const std::string &text() const { return text_; }

private:
  std::string text_;
  int depth_ = 0;
};

/// A shape as a Python tuple: "(128, 512)", "(4,)".
std::string pythonShape(const std::vector<int64_t> &shape);

/// A kernel source line as the emitted files name it: "matmul.cpp:25" (the file's name), or "".
std::string placeOf(const SourceLoc &loc);

/// The module's docstring: what the kernel computes, where it came from and the command that writes it again,
/// then `about` (one line each: what the file is).
void moduleDocstring(PythonWriter &out, const KernelSource &kernel, std::string_view from,
                     const std::vector<std::string_view> &about);

} // namespace tessera::backends
