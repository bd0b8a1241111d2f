#pragma once
/// \file
/// Plugins: a user's kernels built into a shared library (tessera_add_kernels in CMake) and loaded at run time,
/// `tessera run my_kernel --plugin libmy_kernels.so`. The plugin links libtessera.so, as the tessera program does,
/// so its kernels' static registrations go into the one tsr::Registry the CLI searches.

#include <string>
#include <vector>

namespace tessera::driver {

/// Loads the plugin at `path` (relative to the working directory) and returns the names of the kernels it
/// registered. Loading the same file again returns the same names. A file that does not exist or does not load
/// (not a shared library, built against another Tessera, a missing symbol), a kernel whose registration fails
/// (a name already taken), or a plugin that registers no kernel is an InputError that says which and why (and
/// the same error again for the same file); kernels that did register before a failure stay registered.
std::vector<std::string> loadPlugin(const std::string &path);
/// Whether a plugin whose static initialisation throws (which terminates: it happens inside dlopen) is reported as
/// `--json` asks, the error object on stdout too, before the exit with status 2.
void reportPluginFailuresAsJson(bool json);

/// Removes every `--plugin PATH` and `--plugin=PATH` from `args` (anywhere, before or after the command) and
/// returns the paths in order. `--plugin` without a path is an InputError.
std::vector<std::string> takePluginOptions(std::vector<std::string> &args);

} // namespace tessera::driver
