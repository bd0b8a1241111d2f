#pragma once
/// \file
/// Files and folders for tests that write them (AtomicFileTest, AtomicFolderTest): a fresh folder of a test's own,
/// and a file's contents.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace tessera::scratch {

/// A fresh, empty folder `tessera-PREFIX-NAME-PID` in the temporary folder.
inline std::filesystem::path scratchDir(const std::string &prefix, const std::string &name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tessera-" + prefix + "-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The whole of the file at `path` ("" when it cannot be read).
inline std::string contents(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace tessera::scratch
