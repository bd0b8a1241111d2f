// AtomicFile, which every file the CLI writes goes through (--trace, --report, compile -o, calibrate --write,
// sweep --csv): a symbolic link stays a link, a device or pipe is written through and never replaced, two writers
// of one path at once each leave a whole file and no temporary behind, and a new file gets the usual permissions.

#include "tessera/AtomicFile.h"
#include "tessera/Driver.h"
#include "tessera/JsonText.h"

#include "ScratchFiles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tessera::scratch::contents;
using tessera::driver::AtomicFile;
using tessera::driver::jsonText;

fs::path scratchDir(const std::string &name) { return tessera::scratch::scratchDir("atomic", name); }

/// Files in `dir` other than `keep`: temporaries left behind.
std::vector<std::string> leftovers(const fs::path &dir, const std::set<std::string> &keep) {
  std::vector<std::string> found;
  for (const auto &e : fs::directory_iterator(dir))
    if (!keep.count(e.path().filename().string())) found.push_back(e.path().filename().string());
  return found;
}

TEST(AtomicFile, ASymbolicLinkStaysALinkAndItsTargetIsWritten) {
  const fs::path dir = scratchDir("link");
  std::ofstream(dir / "real.json") << "old";
  fs::create_symlink("real.json", dir / "link.json");
  AtomicFile(dir / "link.json", "trace").commit("new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(contents(dir / "real.json"), "new");
  EXPECT_EQ(leftovers(dir, {"real.json", "link.json"}), std::vector<std::string>{});
  // A link to a file that does not exist yet creates it.
  fs::create_symlink("later.json", dir / "dangling.json");
  AtomicFile(dir / "dangling.json", "trace").commit("made");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.json"));
  EXPECT_EQ(contents(dir / "later.json"), "made");
  fs::remove_all(dir);
}

// `--trace /dev/stdout` once replaced the link /dev/stdout with a regular file; a link to a device in a folder of
// the test's own stands for it here.
TEST(AtomicFile, ADeviceIsWrittenThroughNotReplaced) {
  const fs::path dir = scratchDir("device");
  fs::create_symlink("/dev/null", dir / "out");
  AtomicFile(dir / "out", "trace").commit("into the void");
  EXPECT_TRUE(fs::is_symlink(dir / "out"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(leftovers(dir, {"out"}), std::vector<std::string>{});
  AtomicFile("/dev/null", "report").commit("again");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  fs::remove_all(dir);
}

TEST(AtomicFile, APipeIsWrittenThrough) {
  const fs::path dir = scratchDir("fifo");
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string read;
  std::thread reader([&] { read = contents(fifo); });
  AtomicFile(fifo, "trace").commit("through the pipe");
  reader.join();
  EXPECT_EQ(read, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(leftovers(dir, {"pipe"}), std::vector<std::string>{});
  fs::remove_all(dir);
}

// Two runs writing one path at once (`--trace same.json` twice): each commits, the file is one of the two whole,
// and no temporary is left (they once shared PATH.tmp, and one run failed after all its work).
TEST(AtomicFile, TwoWritersOfOnePathEachLeaveAWholeFile) {
  const fs::path dir = scratchDir("two");
  const fs::path path = dir / "same.json";
  const std::string first(100000, 'a'), second(100000, 'b');
  AtomicFile a(path, "trace"), b(path, "trace");
  a.commit(first);
  b.commit(second);
  const std::string now = contents(path);
  EXPECT_TRUE(now == first || now == second);
  EXPECT_EQ(leftovers(dir, {"same.json"}), std::vector<std::string>{});
  fs::remove_all(dir);
}

TEST(AtomicFile, ANewFileGetsTheUsualPermissionsAnOldOneKeepsItsOwn) {
  const fs::path dir = scratchDir("mode");
  const mode_t mask = ::umask(022);
  AtomicFile(dir / "new.json", "trace").commit("{}");
  struct stat st {};
  ASSERT_EQ(::stat((dir / "new.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  ::chmod((dir / "new.json").c_str(), 0600);
  AtomicFile(dir / "new.json", "trace").commit("{}");
  ASSERT_EQ(::stat((dir / "new.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ::umask(mask);
  fs::remove_all(dir);
}

TEST(AtomicFile, NotCommittedLeavesTheOlderFileAndNoTemporary) {
  const fs::path dir = scratchDir("abandoned");
  std::ofstream(dir / "r.html") << "older";
  {
    AtomicFile abandoned(dir / "r.html", "report"); // the run failed: the old file stays, the temporary goes
    EXPECT_EQ(leftovers(dir, {"r.html"}).size(), 1u) << "a temporary beside the file while it is open";
  }
  EXPECT_EQ(contents(dir / "r.html"), "older");
  EXPECT_EQ(leftovers(dir, {"r.html"}), std::vector<std::string>{});
  fs::remove_all(dir);
}

// `tessera run $'\xff' --json` aborted (nlohmann's type_error 316) instead of printing its error as JSON.
TEST(JsonText, InvalidUtf8IsReplacedNotThrown) {
  const nlohmann::json j = {{"error", std::string("unknown kernel '\xff'")}};
  std::string text;
  EXPECT_NO_THROW(text = jsonText(j, 2));
  EXPECT_NE(text.find("unknown kernel '\xEF\xBF\xBD'"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text)["error"], "unknown kernel '\xEF\xBF\xBD'");
}

} // namespace
