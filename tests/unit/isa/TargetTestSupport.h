#pragma once
/// \file
/// What the target-file tests (TargetTest.cpp, TpuTargetTest.cpp) share: reading and editing a copy of a built-in
/// target file line by line, and the check that a broken copy is an Error naming the file, the field and the line.

#include "tessera/isa/Error.h"
#include "tessera/isa/Target.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace tessera::isa::targettest {

namespace fs = std::filesystem;

inline std::string readText(const fs::path &file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void writeText(const fs::path &file, const std::string &text) {
  std::ofstream out(file);
  out << text;
}

/// The built-in target file of `name`.
inline fs::path builtinFile(const std::string &name) { return Target::builtinDirectory() / (name + ".toml"); }

/// The 1-based line of the first line of `text` that contains `needle`; 0 when none does.
inline uint32_t lineContaining(const std::string &text, const std::string &needle) {
  std::istringstream lines(text);
  std::string line;
  for (uint32_t number = 1; std::getline(lines, line); ++number)
    if (line.find(needle) != std::string::npos)
      return number;
  return 0;
}

/// `text` with the first line that starts with `prefix` replaced by `replacement` (which may be empty).
inline std::string replaceLine(const std::string &text, const std::string &prefix, const std::string &replacement) {
  std::istringstream lines(text);
  std::ostringstream result;
  std::string line;
  bool replaced = false;
  while (std::getline(lines, line)) {
    if (!replaced && line.starts_with(prefix)) {
      result << replacement << '\n';
      replaced = true;
      continue;
    }
    result << line << '\n';
  }
  EXPECT_TRUE(replaced) << "no line starts with '" << prefix << "'";
  return result.str();
}

inline bool near(double actual, double expected, double relative) {
  return std::abs(actual - expected) <= relative * std::abs(expected);
}

/// Each `key = value` line of a built-in target file carries a comment naming where the figure comes from.
inline void expectEveryFigureHasASource(const std::string &name) {
  std::istringstream lines(readText(builtinFile(name)));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line.starts_with("#") || line.starts_with("[") || line.find('=') == std::string::npos)
      continue;
    if (line.starts_with("name") || line.starts_with("family") || line.starts_with("generation") ||
        line.starts_with("description"))
      continue;
    EXPECT_NE(line.find('#'), std::string::npos) << name << ": no source comment: " << line;
  }
}

/// One way to break a built-in target file, and the Error it must give.
struct BadFileCase {
  std::string label;
  std::string linePrefix;     ///< the line of the built-in file to replace
  std::string replacement;    ///< what replaces it ("" deletes the field)
  std::string expectedText;   ///< must appear in the error message
  std::string expectedLineOf; ///< the error's line is the line holding this text ("" = no line)
};

inline void PrintTo(const BadFileCase &c, std::ostream *out) { *out << c.label; }

/// Loads built-in target `name` broken as `c` says, from a temporary file, and checks the Error: its message,
/// the file and the line.
inline void expectBadFileError(const std::string &name, const BadFileCase &c) {
  const std::string text = replaceLine(readText(builtinFile(name)), c.linePrefix, c.replacement);
  const fs::path file =
      fs::temp_directory_path() / ("tessera-bad-" + std::to_string(::getpid()) + "-" + c.label + ".toml");
  writeText(file, text);
  const uint32_t expectedLine = c.expectedLineOf.empty() ? 0 : lineContaining(text, c.expectedLineOf);
  ASSERT_TRUE(c.expectedLineOf.empty() || expectedLine > 0) << "test case error: no line holds " << c.expectedLineOf;

  std::optional<Error> error;
  try {
    Target::load(file);
  } catch (const Error &e) {
    error = e;
  }
  fs::remove(file);

  ASSERT_TRUE(error.has_value()) << "loading the file did not fail";
  EXPECT_NE(error->message().find(c.expectedText), std::string::npos)
      << "message: " << error->message() << "\nexpected to contain: " << c.expectedText;
  EXPECT_EQ(error->where().file, file.string());
  EXPECT_EQ(error->where().line, expectedLine) << "message: " << error->message();
}

} // namespace tessera::isa::targettest
