#include "tessera/AtomicFile.h"

#include "tessera/Driver.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace tessera::driver {

AtomicFile::AtomicFile(std::filesystem::path path, std::string what)
    : path_(std::move(path)), tmp_(path_.string() + ".tmp"), what_(std::move(what)) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path_, ignored)) fail(std::strerror(EISDIR));
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) fail(std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!file_) return;
  std::fclose(file_);
  std::error_code ignored;
  std::filesystem::remove(tmp_, ignored);
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
  std::error_code ec;
  if (written && closed) std::filesystem::rename(tmp_, path_, ec);
  if (written && closed && !ec) return;
  std::error_code ignored;
  std::filesystem::remove(tmp_, ignored);
  fail(ec ? ec.message() : std::string(std::strerror(writeErrno)));
}

} // namespace tessera::driver
