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

/// Why `target` (links followed) cannot take the folder's place; empty when it can.
std::string refusal(const fs::path &target, const ReplaceableFolder &replaceable) {
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (!fs::exists(status)) return {};
  if (!fs::is_directory(status)) return "a file that is not a folder is in the way";
  if (fs::is_empty(target, ec) && !ec) return {};
  if (ec) return ec.message();
  if (replaceable && replaceable(target)) return {};
  return "it is a folder of other files";
}

} // namespace

void AtomicFolder::check(const fs::path &path, const std::string &what, const ReplaceableFolder &replaceable,
                         const std::string &replaceNote) {
  if (const fs::path name = withoutTrailingSeparator(path).filename(); name == "." || name == ".." || name.empty())
    failFor(path, what, "it names the folder by '.' or '..', which cannot be swapped for another",
            "name the folder itself, e.g. -o bundle");
  std::error_code ec;
  const fs::path target = linkTarget(withoutTrailingSeparator(path), ec);
  if (ec) failFor(path, what, ec.message());
  if (const std::string why = refusal(target, replaceable); !why.empty())
    failFor(path, what, why,
            why == "it is a folder of other files" ? fmt::format("choose a new folder; {}", replaceNote)
                                                   : "choose another path");
}

AtomicFolder::AtomicFolder(fs::path path, std::string what, const ReplaceableFolder &replaceable,
                           std::string replaceNote)
    : path_(std::move(path)), what_(std::move(what)) {
  check(path_, what_, replaceable, replaceNote);
  std::error_code ec;
  target_ = linkTarget(withoutTrailingSeparator(path_), ec);
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
