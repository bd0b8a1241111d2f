#include "PythonSource.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace tessera::backends {

namespace {

/// Python 3's keywords and the soft keywords and builtins an emitted file must not rebind.
const std::set<std::string> &pythonReserved() {
  static const std::set<std::string> names = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "type",
      "print", "range", "len", "float", "int", "max", "min", "sum", "abs", "list", "tuple", "dict", "object"};
  return names;
}

} // namespace

Identifiers::Identifiers(std::set<std::string> reserved) : taken_(std::move(reserved)) {
  taken_.insert(pythonReserved().begin(), pythonReserved().end());
}

std::string Identifiers::make(std::string_view wanted) {
  std::string base;
  for (char c : wanted) base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base.front()))) base = "_" + base;
  std::string name = base;
  for (int n = 2; taken_.count(name); ++n) name = fmt::format("{}_{}", base, n);
  taken_.insert(name);
  return name;
}

std::string pythonFloat(float value) {
  if (std::isnan(value)) return "float('nan')";
  if (std::isinf(value)) return value > 0 ? "float('inf')" : "float('-inf')";
  std::string text = fmt::format("{}", value); // shortest text that reads back as `value`
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

void PythonWriter::line(std::string_view text) {
  if (!text.empty()) text_.append(static_cast<size_t>(depth_) * 4, ' ').append(text);
  text_ += '\n';
}

} // namespace tessera::backends
