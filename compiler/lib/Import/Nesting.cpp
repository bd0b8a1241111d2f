#include "Import/Nesting.h"

namespace tessera::compiler {

std::optional<DeepNesting> findDeepNesting(std::string_view text, unsigned limit) {
  unsigned depth = 0;
  uint32_t line = 1, column = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') { // a comment, to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"') { // a string literal, escapes included
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
        else if (text[i] == '\n') ++line, column = 0;
      }
      continue;
    }
    if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > limit) return DeepNesting{line, column};
    } else if ((c == '}' || c == ')' || c == ']' || (c == '>' && (i == 0 || text[i - 1] != '-'))) && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

} // namespace tessera::compiler
