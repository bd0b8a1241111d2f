#pragma once
/// \file
/// A textual check that runs before MLIR parses a `.mlir` file: brackets may not nest deeper than a limit. The
/// MLIR 19 parser recurses once per nested region, list or type, so a file nested 10,000 deep ran `tessera sim`
/// and `tessera-opt` out of stack (a crash, exit 139). No MLIR here: it reads text.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera::compiler {

/// How deep a Tessera module may nest its brackets: far more than any kernel (a loop nest, its types and
/// attributes nest a few dozen levels), far less than the parser's stack holds.
inline constexpr unsigned kMaxNesting = 500;

/// Where the first bracket that opens a level past the limit is.
struct DeepNesting {
  uint32_t line = 0, column = 0;
};

/// Scans MLIR source text for `{`, `(`, `[` and `<` opening levels and `}`, `)`, `]` and `>` closing them (not the
/// `>` of `->`), skipping `//` comments and string literals; returns the first opening past `limit` levels.
std::optional<DeepNesting> findDeepNesting(std::string_view text, unsigned limit = kMaxNesting);

} // namespace tessera::compiler
