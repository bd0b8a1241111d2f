// AtomicFolder, which `tessera deploy -o DIR` writes its bundle through: the folder appears whole, replaces an
// earlier one with none of its files left, refuses a folder of other files, leaves the old folder as it was when it
// is not committed, keeps a symbolic link a link, and leaves no temporary behind.

#include "tessera/AtomicFolder.h"
#include "tessera/Driver.h"

#include "ScratchFiles.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tessera::scratch::contents;
using tessera::driver::AtomicFolder;

fs::path scratchDir(const std::string &name) { return tessera::scratch::scratchDir("folder", name); }

/// Names in `dir`, sorted, joined by spaces.
std::string listing(const fs::path &dir) {
  std::set<std::string> names;
  for (const auto &e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  std::string out;
  for (const std::string &n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

/// Accepts a folder that holds a file named "mine" (what a bundle's tessera.json is to deploy).
bool holdsMine(const fs::path &dir) { return fs::exists(dir / "mine"); }

TEST(AtomicFolder, ANewFolderAppearsOnCommit) {
  const fs::path dir = scratchDir("new");
  {
    AtomicFolder folder(dir / "out", "bundle folder", holdsMine, "--force replaces it");
    std::ofstream(folder.staging() / "a") << "1";
    EXPECT_FALSE(fs::exists(dir / "out")); // nothing in place until commit
    folder.commit();
  }
  EXPECT_EQ(listing(dir), "out");
  EXPECT_EQ(contents(dir / "out" / "a"), "1");
  fs::remove_all(dir);
}

TEST(AtomicFolder, AnEarlierFolderIsReplacedWithNoStaleFileLeft) {
  const fs::path dir = scratchDir("replace");
  fs::create_directory(dir / "out");
  std::ofstream(dir / "out" / "mine") << "old";
  std::ofstream(dir / "out" / "stale") << "from an earlier version";
  {
    AtomicFolder folder(dir / "out", "bundle folder", holdsMine, "--force replaces it");
    std::ofstream(folder.staging() / "mine") << "new";
    folder.commit();
  }
  EXPECT_EQ(listing(dir), "out");
  EXPECT_EQ(listing(dir / "out"), "mine");
  EXPECT_EQ(contents(dir / "out" / "mine"), "new");
  fs::remove_all(dir);
}

TEST(AtomicFolder, AFolderOfOtherFilesIsRefusedBeforeAnythingIsWritten) {
  const fs::path dir = scratchDir("refuse");
  fs::create_directory(dir / "out");
  std::ofstream(dir / "out" / "README.md") << "the user's own";
  try {
    AtomicFolder folder(dir / "out", "bundle folder", holdsMine, "--force replaces it");
    FAIL() << "a folder of other files was accepted";
  } catch (const tessera::driver::InputError &e) {
    EXPECT_NE(std::string(e.what()).find("it is a folder of other files"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("--force replaces it"), std::string::npos) << e.hint();
  }
  EXPECT_THROW(AtomicFolder::check(dir / "out", "bundle folder", holdsMine, ""), tessera::driver::InputError);
  std::ofstream(dir / "a-file") << "x";
  EXPECT_THROW(AtomicFolder::check(dir / "a-file", "bundle folder", holdsMine, ""), tessera::driver::InputError);
  EXPECT_EQ(contents(dir / "out" / "README.md"), "the user's own");
  EXPECT_EQ(listing(dir), "a-file out");
  fs::remove_all(dir);
}

// kill -9 or a failed write once left new inputs beside an old manifest: without commit, nothing changes.
TEST(AtomicFolder, WithoutCommitTheOldFolderStaysAsItWas) {
  const fs::path dir = scratchDir("abandon");
  fs::create_directory(dir / "out");
  std::ofstream(dir / "out" / "mine") << "old";
  {
    AtomicFolder folder(dir / "out", "bundle folder", holdsMine, "");
    std::ofstream(folder.staging() / "mine") << "half written";
  }
  EXPECT_EQ(listing(dir), "out");
  EXPECT_EQ(contents(dir / "out" / "mine"), "old");
  fs::remove_all(dir);
}

TEST(AtomicFolder, AnEmptyFolderAndALinkedFolderAreReplacedInPlace) {
  const fs::path dir = scratchDir("link");
  fs::create_directory(dir / "empty");
  fs::create_symlink("empty", dir / "latest");
  {
    AtomicFolder folder(dir / "latest", "bundle folder", holdsMine, "");
    std::ofstream(folder.staging() / "mine") << "new";
    folder.commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir / "latest"));
  EXPECT_EQ(contents(dir / "empty" / "mine"), "new");
  EXPECT_EQ(listing(dir), "empty latest");
  fs::remove_all(dir);
}

// `deploy -o bundle/`, as docs/backends.md writes it, once failed with EINVAL and left an empty folder: the trailing
// separator made the folder's name empty, so its temporary went inside it.
TEST(AtomicFolder, ATrailingSeparatorNamesTheSameFolder) {
  const fs::path dir = scratchDir("slash");
  for (const char *text : {"new", "again"}) {
    AtomicFolder folder(fs::path(dir / "out") += "/", "bundle folder", holdsMine, "--force replaces it");
    std::ofstream(folder.staging() / "mine") << text;
    folder.commit();
  }
  EXPECT_EQ(listing(dir), "out");
  EXPECT_EQ(listing(dir / "out"), "mine");
  EXPECT_EQ(contents(dir / "out" / "mine"), "again");
  // "." and ".." name a folder that cannot be swapped for another (the one the process is in, or above it).
  EXPECT_THROW(AtomicFolder::check(dir / "out" / ".", "bundle folder", holdsMine, ""), tessera::driver::InputError);
  EXPECT_THROW(AtomicFolder::check(dir / "out" / "..", "bundle folder", holdsMine, ""), tessera::driver::InputError);
  fs::remove_all(dir);
}

} // namespace
