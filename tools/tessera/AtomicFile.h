#pragma once
/// \file
/// A file that appears whole or not at all: what `--trace`, `--report`, `compile -o`, `calibrate --write` and
/// `sweep --csv` write.

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace tessera::driver {

/// What `path` names once its symbolic links are followed: `path` itself when it is not a link (or not there).
/// Sets `ec` (ELOOP after 40 links) and returns an empty path when a link cannot be read.
std::filesystem::path linkTarget(const std::filesystem::path &path, std::error_code &ec);

/// The constructor creates a temporary file of a unique name beside `path` (beside its target when `path` is a
/// symbolic link, which stays one), so a path that cannot be written fails before any work, as an InputError naming
/// it ("cannot write trace '...': ..."); commit() writes the text and renames the temporary over the file, which
/// then has the permissions a new file gets (or the old file's). A path that is not a regular file (a terminal,
/// /dev/null, a pipe, /dev/stdout) is written through instead, never replaced. Destroyed without commit() (the run
/// failed), it removes the temporary and leaves any older file at `path` as it was.
class AtomicFile {
public:
  /// `what` names the file in messages: "trace", "report".
  explicit AtomicFile(std::filesystem::path path, std::string what = "file");
  ~AtomicFile();
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;

  void commit(std::string_view text);
  const std::filesystem::path &path() const { return path_; }

private:
  [[noreturn]] void fail(const std::string &reason) const;

  std::filesystem::path path_;   ///< as given
  std::filesystem::path target_; ///< what the rename replaces: `path`, or the file its symbolic links lead to
  std::filesystem::path tmp_;    ///< the temporary; empty when writing through
  std::string what_;
  std::FILE *file_ = nullptr;
};

} // namespace tessera::driver
