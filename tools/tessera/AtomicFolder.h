#pragma once
/// \file
/// A folder that appears whole or not at all: what `tessera deploy -o DIR` writes.

#include <filesystem>
#include <functional>
#include <string>

namespace tessera::driver {

/// Decides whether an existing, non-empty folder may be replaced (an earlier bundle may; a user's folder may not).
using ReplaceableFolder = std::function<bool(const std::filesystem::path &)>;

/// The constructor checks `path` (following symbolic links, which stay links): it must be absent, an empty folder,
/// or a folder `replaceable` accepts; anything else is an InputError naming it, before any work. It then creates
/// a temporary folder of a unique name beside it (`.NAME.tessera-XXXXXX`), which staging() names: write the files
/// there. commit() puts the temporary in the folder's place in one step (Linux's renameat2 exchange; where the
/// filesystem cannot exchange, two renames with the old folder aside for a moment) and deletes the old folder, so
/// no file of an earlier folder survives and none is half new. Destroyed without commit() (the run failed, a file
/// could not be written), it deletes the temporary and leaves the folder at `path` as it was.
class AtomicFolder {
public:
  /// `what` names the folder in messages ("bundle folder"); `replaceNote` says how to replace a folder
  /// `replaceable` refuses ("--force replaces it").
  AtomicFolder(std::filesystem::path path, std::string what, const ReplaceableFolder &replaceable,
               std::string replaceNote);
  ~AtomicFolder();
  AtomicFolder(const AtomicFolder &) = delete;
  AtomicFolder &operator=(const AtomicFolder &) = delete;

  /// Where the files go until commit().
  const std::filesystem::path &staging() const { return staging_; }
  void commit();

  /// The constructor's check alone, creating nothing: for a command that checks its outputs before a long run.
  static void check(const std::filesystem::path &path, const std::string &what, const ReplaceableFolder &replaceable,
                    const std::string &replaceNote);

private:
  [[noreturn]] void fail(const std::string &reason) const;

  std::filesystem::path path_;    ///< as given
  std::filesystem::path target_;  ///< what commit() replaces: `path`, or the folder its symbolic links lead to
  std::filesystem::path staging_; ///< the temporary; empty once committed
  std::string what_;
};

} // namespace tessera::driver
