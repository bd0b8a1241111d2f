#include "tessera/AtomicFolder.h"

#include "tessera/AtomicFile.h"
#include "tessera/Driver.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace tessera::driver {

namespace fs = std::filesystem;

namespace {

/// The permissions a new folder gets from mkdir(..., 0777): 0777 less the process's umask.
mode_t newFolderMode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0777 & ~mask;
}

[[noreturn]] void failFor(const fs::path &path, const std::string &what, const std::string &reason,
                          const std::string &hint = "check that its parent folder exists and is writable") {
  throw InputError(fmt::format("cannot write {} '{}': {}", what, path.string(), reason), {}, hint);
}

/// `path` without a trailing separator: "bundle/" (as docs/backends.md writes it) names the folder "bundle", whose
/// temporary goes beside it, not inside it.
fs::path withoutTrailingSeparator(const fs::path &path) {
  return !path.has_filename() && path.has_relative_path() ? path.parent_path() : path;
}

/// What the folder at `path` replaces (`path` with its symbolic links followed), once it is checked that it may:
/// absent, an empty folder, or one `replaceable` accepts; anything else is an InputError naming `path`.
fs::path checkedTarget(const fs::path &path, const std::string &what, const ReplaceableFolder &replaceable,
                       const std::string &replaceNote) {
  const fs::path folder = withoutTrailingSeparator(path);
  if (const fs::path name = folder.filename(); name == "." || name == ".." || name.empty())
    failFor(path, what, "it names the folder by '.' or '..', which cannot be swapped for another",
            "name the folder itself, e.g. -o bundle");
  std::error_code ec;
  const fs::path target = linkTarget(folder, ec);
  if (ec) failFor(path, what, ec.message());
  const fs::file_status status = fs::status(target, ec);
  if (!fs::exists(status)) return target;
  if (!fs::is_directory(status)) failFor(path, what, "a file that is not a folder is in the way", "choose another path");
  const bool empty = fs::is_empty(target, ec);
  if (ec) failFor(path, what, ec.message(), "choose another path");
  if (!empty && !(replaceable && replaceable(target)))
    failFor(path, what, "it is a folder of other files", fmt::format("choose a new folder; {}", replaceNote));
  return target;
}

} // namespace

void AtomicFolder::check(const fs::path &path, const std::string &what, const ReplaceableFolder &replaceable,
                         const std::string &replaceNote) {
  (void)checkedTarget(path, what, replaceable, replaceNote);
}

AtomicFolder::AtomicFolder(fs::path path, std::string what, const ReplaceableFolder &replaceable,
                           std::string replaceNote)
    : path_(std::move(path)), target_(checkedTarget(path_, what, replaceable, replaceNote)), what_(std::move(what)) {
  std::error_code ec;
  const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) fail(ec.message());
  std::string pattern = (parent / ("." + target_.filename().string() + ".tessera-XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) fail(std::strerror(errno));
  staging_ = pattern;
  struct stat old {};
  const mode_t mode = ::stat(target_.c_str(), &old) == 0 ? (old.st_mode & 07777) : newFolderMode();
  if (::chmod(staging_.c_str(), mode) != 0) {
    const int why = errno;
    fs::remove_all(staging_, ec);
    fail(std::strerror(why));
  }
}

AtomicFolder::~AtomicFolder() {
  if (staging_.empty()) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
}

void AtomicFolder::fail(const std::string &reason) const { failFor(path_, what_, reason); }

void AtomicFolder::commit() {
  if (staging_.empty()) throw Error(fmt::format("'{}' was already written", path_.string()));
  std::error_code ec;
  const fs::path staging = std::exchange(staging_, {});
  auto removeStaging = [&] {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
  };
  if (!fs::exists(fs::symlink_status(target_, ec))) {
    fs::rename(staging, target_, ec); // nothing there: the folder appears whole
    if (ec) {
      removeStaging();
      fail(ec.message());
    }
    return;
  }
  // One step: the new folder and the old swap names; then the old one, now at the temporary name, goes.
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    removeStaging();
    return;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
    const int why = errno;
    removeStaging();
    fail(std::strerror(why));
  }
  // A filesystem that cannot exchange: the old folder aside, the new one in its place, the old one deleted.
  std::string aside = (target_.parent_path() / ("." + target_.filename().string() + ".old-XXXXXX")).string();
  if (!::mkdtemp(aside.data())) {
    const int why = errno;
    removeStaging();
    fail(std::strerror(why));
  }
  fs::rename(target_, aside, ec); // over the empty folder mkdtemp made
  if (ec) {
    std::error_code ignored;
    fs::remove(aside, ignored);
    removeStaging();
    fail(ec.message());
  }
  fs::rename(staging, target_, ec);
  if (ec) {
    const std::string why = ec.message();
    removeStaging();
    fs::rename(aside, target_, ec); // put the old one back; never delete it
    if (ec) fail(fmt::format("{}; the earlier folder is now '{}'", why, aside));
    fail(why);
  }
  fs::remove_all(aside, ec);
}

} // namespace tessera::driver
