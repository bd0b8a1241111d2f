#include "tessera/Plugin.h"

#include "tessera/Driver.h"
#include "tessera/JsonText.h"

#include <fmt/format.h>

#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>

namespace tessera::driver {

namespace fs = std::filesystem;

namespace {

constexpr const char *kHint = "build the plugin with tessera_add_kernels() from the Tessera CMake package, against "
                              "this Tessera (docs/user-kernels.md)";

/// What each file loaded so far registered, by its canonical path (plugins are never unloaded: their kernels'
/// code must stay).
std::map<fs::path, std::vector<std::string>> &loaded() {
  static std::map<fs::path, std::vector<std::string>> plugins;
  return plugins;
}

/// Why each file that failed to load failed: loading it again would not run its registrations again.
std::map<fs::path, InputError> &failed() {
  static std::map<fs::path, InputError> plugins;
  return plugins;
}

/// The plugin whose static initialisers are running.
std::string &loading() {
  static std::string path;
  return path;
}

/// Whether initialiserThrew prints the error object on stdout too (`--json`: reportPluginFailuresAsJson).
bool &jsonReports() {
  static bool json = false;
  return json;
}

/// std::terminate while a plugin loads: its static initialisation threw. Says so as every bad input is said, exit 2.
[[noreturn]] void initialiserThrew() {
  std::string what = "something that is not a std::exception";
  try {
    if (std::exception_ptr e = std::current_exception()) std::rethrow_exception(e);
  } catch (const std::exception &e) {
    what = e.what();
  } catch (...) {
  }
  const std::string message = fmt::format("--plugin {}: its static initialisation threw: {}", loading(), what);
  fmt::print(stderr, "tessera: error: {}\n  hint: {}\n", message, kHint);
  if (jsonReports()) fmt::print("{}\n", jsonText(nlohmann::json{{"ok", false}, {"error", message}}, 2));
  std::fflush(nullptr);
  std::_Exit(2);
}

/// Loads `file` (the user's `path`) and returns the kernels it registered.
std::vector<std::string> open(const fs::path &file, const std::string &path) {
  tsr::Registry::PluginScope scope(path);
  // RTLD_NOW: a symbol the plugin needs and this Tessera lacks fails here, by name, not halfway through a run.
  // The plugin's static initialisers run inside dlopen, and an exception cannot leave it: it terminates. Until
  // dlopen returns, termination says which plugin threw what and exits 2, instead of aborting.
  loading() = path;
  const std::terminate_handler previous = std::set_terminate(initialiserThrew);
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::set_terminate(previous);
  if (!handle) {
    const char *why = dlerror();
    throw InputError(fmt::format("--plugin {}: cannot load it: {}", path, why ? why : "unknown reason"), {}, kHint);
  }
  if (!scope.errors().empty()) {
    const Error &first = scope.errors().front();
    throw InputError(fmt::format("--plugin {}: {}", path, first.message()), first.where(), first.hint());
  }
  if (scope.added().empty())
    throw InputError(fmt::format("--plugin {}: it registered no kernel in this tessera", path), {},
                     "a plugin's kernels are tsr::Registration objects in its source files; " + std::string(kHint));
  return scope.added();
}

} // namespace

void reportPluginFailuresAsJson(bool json) { jsonReports() = json; }

std::vector<std::string> loadPlugin(const std::string &path) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::error_code error;
  const fs::path file = fs::absolute(path, error);
  if (error || !fs::exists(file, error))
    throw InputError(fmt::format("--plugin {}: no such file", path), {}, kHint);
  if (!fs::is_regular_file(file, error))
    throw InputError(fmt::format("--plugin {}: not a regular file (a folder?)", path), {}, kHint);
  const fs::path canonical = fs::canonical(file, error);
  if (auto it = loaded().find(canonical); it != loaded().end()) return it->second;
  if (auto it = failed().find(canonical); it != failed().end()) throw it->second;
  try {
    std::vector<std::string> names = open(file, path);
    loaded()[canonical] = names;
    return names;
  } catch (const InputError &e) {
    failed().emplace(canonical, e);
    throw;
  }
}

std::vector<std::string> takePluginOptions(std::vector<std::string> &args) {
  std::vector<std::string> paths, rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a.starts_with("--plugin=")) {
      paths.push_back(a.substr(9));
      if (paths.back().empty())
        throw InputError("--plugin: expected a path, e.g. --plugin=build/libmy_kernels.so");
      continue;
    }
    if (a != "--plugin") {
      rest.push_back(a);
      continue;
    }
    if (i + 1 == args.size() || args[i + 1].empty() || args[i + 1].starts_with("--"))
      throw InputError("--plugin: expected a path, e.g. --plugin build/libmy_kernels.so");
    paths.push_back(args[++i]);
  }
  args = std::move(rest);
  return paths;
}

} // namespace tessera::driver
