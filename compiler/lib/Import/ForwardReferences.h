#pragma once
/// \file
/// A textual check that runs before MLIR parses a `.mlir` file: no SSA value may be used above its definition.
/// Tessera's modules have one block per region, so such a forward reference is always an error; and the MLIR 19
/// parser, when a forward reference is then defined inside a nested region and the file has a further error,
/// frees memory it still uses (reproduced with stock mlir-opt 19.1.7: a use of %c in a loop body, %c defined in a
/// loop nested in it, then a redefined %1). Refusing forward references first turns that into a clear error.
/// No MLIR here: it reads text.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::compiler {

/// The first use of an SSA value (`%name`) that no definition in an enclosing region precedes.
struct ForwardReference {
  std::string name;  ///< "%c128"
  uint32_t line = 0, column = 0;
};

/// Scans MLIR source text: `//` comments and string literals are skipped; `{` and `}` open and close regions (and
/// attribute dictionaries, which define nothing); a `%name` is a definition when `=` follows it (results,
/// scf.for and iter_args variables), when it is one of the results listed before a statement's `=`, or when `:`
/// follows it inside the argument list of a function (`@f(...)`) or block (`^bb(...)`); anything else uses it.
std::optional<ForwardReference> findForwardReference(std::string_view text);

} // namespace tessera::compiler
