/// \file
/// The golden model's object cache (GoldenObjectCache.h).

#include "GoldenObjectCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SHA256.h"
#include "llvm/TargetParser/Host.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace tessera::compiler::golden {

namespace fs = std::filesystem;

std::optional<GoldenObjectCache> GoldenObjectCache::fromEnvironment() {
  const auto variable = [](const char *name) -> std::optional<std::string> {
    const char *value = std::getenv(name);
    if (!value) return std::nullopt;
    return std::string(value);
  };
  fs::path root;
  if (std::optional<std::string> dir = variable("TESSERA_CACHE_DIR")) {
    if (dir->empty() || *dir == "off") return std::nullopt;
    root = *dir;
  } else if (std::optional<std::string> xdg = variable("XDG_CACHE_HOME"); xdg && !xdg->empty()) {
    root = fs::path(*xdg) / "tessera";
  } else if (std::optional<std::string> home = variable("HOME"); home && !home->empty()) {
    root = fs::path(*home) / ".cache" / "tessera";
  } else {
    return std::nullopt;
  }
  return GoldenObjectCache(root / "golden");
}

std::string GoldenObjectCache::keyOf(std::string_view moduleText, std::string_view codeGeneration) {
  std::vector<std::string> features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
    std::string flag(1, feature.getValue() ? '+' : '-');
    flag.append(feature.getKey().data(), feature.getKey().size());
    features.push_back(std::move(flag));
  }
  std::sort(features.begin(), features.end());
  llvm::SHA256 hash;
  const auto add = [&](std::string_view part) {
    hash.update(llvm::StringRef(part.data(), part.size()));
    hash.update(llvm::StringRef("\0", 1)); // parts cannot run into each other
  };
  add(LLVM_VERSION_STRING);
  add(llvm::sys::getProcessTriple());
  add(llvm::sys::getHostCPUName().str());
  add(llvm::join(features, ","));
  add(codeGeneration);
  add(moduleText);
  const std::array<uint8_t, 32> digest = hash.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()), /*LowerCase=*/true);
}

std::optional<std::string> GoldenObjectCache::load(const std::string &key) const {
  const fs::path path = pathOf(key);
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return std::nullopt; // absent, or something else under its name
  std::string bytes;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return std::nullopt;
  } catch (const std::exception &) { // a read error the stream reports by throwing (libstdc++'s underflow)
    return std::nullopt;
  }
  // A time not refreshed only makes the entry look older.
  fs::last_write_time(path, fs::file_time_type::clock::now(), error);
  return bytes;
}

void GoldenObjectCache::store(const std::string &key, const std::function<bool(const std::string &path)> &write) const {
  std::error_code error;
  fs::create_directories(folder_, error);
  if (error) return;
  // Unique in this process (a counter) and among processes (the pid): never another writer's file.
  static std::atomic<uint64_t> counter = 0;
  const fs::path temporary = folder_ / fmt::format(".{}.{}.{}.tmp", key, ::getpid(), counter++);
  if (!write(temporary.string()) || !fs::is_regular_file(temporary, error)) {
    fs::remove(temporary, error);
    return;
  }
  fs::rename(temporary, pathOf(key), error);
  if (error) {
    fs::remove(temporary, error);
    return;
  }
  evict();
}

void GoldenObjectCache::evict() const {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code error;
  // A writer that died between writing and renaming left its temporary file: gone after an hour.
  const fs::file_time_type stale = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (fs::directory_iterator it(folder_, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".tmp" && it->last_write_time(error) < stale && !error) {
      fs::remove(it->path(), error);
      error.clear();
      continue;
    }
    error.clear();
    if (it->path().extension() != ".o" || !it->is_regular_file(error)) continue;
    const uint64_t bytes = it->file_size(error);
    const fs::file_time_type time = it->last_write_time(error);
    if (error) {
      error.clear();
      continue; // removed by another process meanwhile
    }
    entries.push_back({it->path(), time, bytes});
    total += bytes;
  }
  if (total <= maxBytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (const Entry &e : entries) {
    if (total <= maxBytes_) break;
    fs::remove(e.path, error);
    total -= e.bytes;
  }
}

} // namespace tessera::compiler::golden
