#include "tessera/AtomicFile.h"

#include "tessera/Driver.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::driver {

namespace {

/// The permissions a new file gets from open(..., 0666): 0666 less the process's umask.
mode_t newFileMode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

} // namespace

std::filesystem::path linkTarget(const std::filesystem::path &path, std::error_code &ec) {
  namespace fs = std::filesystem;
  fs::path target = path;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    if (hops == 40) {
      ec = std::make_error_code(std::errc::too_many_symbolic_link_levels);
      return {};
    }
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) return {};
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  ec.clear(); // symlink_status of a missing path is not an error here
  return target;
}

AtomicFile::AtomicFile(std::filesystem::path path, std::string what)
    : path_(std::move(path)), target_(path_), what_(std::move(what)) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path_, ec); // follows symbolic links
  if (fs::is_directory(status)) fail(std::strerror(EISDIR));
  if (fs::exists(status) && !fs::is_regular_file(status)) { // a device, a pipe, a socket: write through
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_) fail(std::strerror(errno));
    return;
  }
  target_ = linkTarget(path_, ec); // replace what links lead to
  if (ec) fail(ec.message());
  std::string pattern = target_.string() + ".XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) fail(std::strerror(errno));
  tmp_ = pattern;
  struct stat old {};
  const mode_t mode = ::stat(target_.c_str(), &old) == 0 ? (old.st_mode & 07777) : newFileMode();
  if (::fchmod(fd, mode) != 0 || !(file_ = ::fdopen(fd, "wb"))) {
    const int why = errno;
    ::close(fd);
    fs::remove(tmp_, ec);
    fail(std::strerror(why));
  }
}

AtomicFile::~AtomicFile() {
  if (!file_) return;
  std::fclose(file_);
  std::error_code ignored;
  if (!tmp_.empty()) std::filesystem::remove(tmp_, ignored);
}

void AtomicFile::fail(const std::string &reason) const {
  throw InputError(fmt::format("cannot write {} '{}': {}", what_, path_.string(), reason), {},
                   "check that the folder exists and is writable");
}

void AtomicFile::commit(std::string_view text) {
  if (!file_) throw Error(fmt::format("'{}' was already written", path_.string()));
  const bool written = std::fwrite(text.data(), 1, text.size(), file_) == text.size();
  const int writeErrno = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (tmp_.empty()) { // written through
    if (written && closed) return;
    fail(std::strerror(writeErrno));
  }
  std::error_code ec;
  if (written && closed) std::filesystem::rename(tmp_, target_, ec);
  if (written && closed && !ec) return;
  std::error_code ignored;
  std::filesystem::remove(tmp_, ignored);
  fail(ec ? ec.message() : std::string(std::strerror(writeErrno)));
}

} // namespace tessera::driver
