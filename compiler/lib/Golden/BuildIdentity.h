#pragma once
/// \file
/// Internal to the golden model: who built the code that lowers a kernel to host code, so that the object cache
/// can key an object by the kernel's module as imported (GoldenObjectCache.h) and skip the lowering when the object
/// is there.

#include <optional>
#include <string>

namespace tessera::compiler::golden {

/// The GNU build IDs (the linker's hash of each file's contents) of the loaded files holding `addresses`' code, in
/// order, as hex joined by ','; nullopt when an address lies in no loaded file or its file has no build ID.
std::optional<std::string> buildIdsOf(std::initializer_list<const void *> addresses);

/// The build IDs of the libraries whose code lowers a tile module to host code: Tessera's compiler library (its
/// passes, and MLIR's linked into it), its ISA library (dtypes, the golden runtime's decoding) and LLVM's. Computed
/// once; nullopt when one has no build ID (then nothing can say the lowering is unchanged).
const std::optional<std::string> &loweringIdentity();

} // namespace tessera::compiler::golden
