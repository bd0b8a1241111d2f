#pragma once
/// \file
/// A file that appears whole or not at all: what `--trace` and `--report` write.

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace tessera::driver {

/// The constructor creates `path`.tmp, so a path that cannot be written fails before any work, as an InputError
/// naming it ("cannot write trace '...': ..."); commit() writes the text and renames it over `path`. Destroyed
/// without commit() (the run failed), it removes the .tmp and leaves any older file at `path` as it was.
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

  std::filesystem::path path_, tmp_;
  std::string what_;
  std::FILE *file_ = nullptr;
};

} // namespace tessera::driver
