#pragma once
/// \file
/// Internal to the golden model: a folder of the host objects its JIT compiled, so that a kernel run again (another
/// seed, another target: the golden module does not depend on either) loads its object instead of compiling it.
/// At a kernel's default shapes the JIT is most of the golden model's time and the golden model a run's critical
/// path (conv2d on trn2: 60 ms of JIT in a 120 ms run).
///
/// An object is stored under the SHA-256 of everything that decides its code: the module as text (as imported, with
/// the build IDs of the libraries that lower it, BuildIdentity.h; or, where those are unknown, as lowered to the
/// LLVM dialect), the LLVM version, the host's triple, CPU and features, and the code generation's settings. So an
/// entry is never stale: a changed kernel, lowering or host is another key. Files are written to a unique temporary name and
/// renamed into place (processes running at once each leave a whole object); an entry that fails to load is
/// compiled again and replaced. The least recently used objects go once the folder holds more than its limit.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::compiler::golden {

class GoldenObjectCache {
public:
  /// The most bytes of objects the folder keeps (a kernel's object is tens of kilobytes).
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{256} << 20;

  /// The cache the environment names, in its "golden" folder: $TESSERA_CACHE_DIR ("off" or empty: no cache), else
  /// $XDG_CACHE_HOME/tessera, else $HOME/.cache/tessera. nullopt when there is none.
  static std::optional<GoldenObjectCache> fromEnvironment();

  explicit GoldenObjectCache(std::filesystem::path folder, uint64_t maxBytes = kDefaultMaxBytes)
      : folder_(std::move(folder)), maxBytes_(maxBytes) {}

  /// The key of the object compiled from `moduleText` with `codeGeneration` (the settings, as text) on this host.
  static std::string keyOf(std::string_view moduleText, std::string_view codeGeneration);

  /// The bytes of the object stored under `key`, its file's time refreshed (the least recently used go first);
  /// nullopt when there is none or it cannot be read.
  std::optional<std::string> load(const std::string &key) const;

  /// Stores the file `write(path)` writes (true when it did) under `key`, then evicts. A folder that cannot be made
  /// or written leaves the cache as it was: caching is never an error.
  void store(const std::string &key, const std::function<bool(const std::string &path)> &write) const;

  /// Removes the least recently used objects while the folder holds more than the limit.
  void evict() const;

  const std::filesystem::path &folder() const { return folder_; }

private:
  std::filesystem::path pathOf(const std::string &key) const { return folder_ / (key + ".o"); }
  std::filesystem::path folder_;
  uint64_t maxBytes_;
};

} // namespace tessera::compiler::golden
