// A user's own target file simulates without code changes: a copy of trn2 with a 64x64 tensor engine, and one
// with half the SBUF, run the kernels that fit them; a kernel that needs more than the file allows is refused
// at its source line with the file's own limit.

#include "tessera/Driver.h"
#include "tessera/isa/Target.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace tessera;
namespace fs = std::filesystem;

/// trn2.toml with each line starting with a key of `changes` replaced by `key = value`, written to a temporary
/// folder as `name`.toml; returns its path.
std::string modifiedTrn2(const std::string &name, const std::vector<std::pair<std::string, std::string>> &changes) {
  std::ifstream in(isa::Target::builtinDirectory() / "trn2.toml");
  std::stringstream out;
  std::string line;
  while (std::getline(in, line)) {
    for (const auto &[key, value] : changes)
      if (line.starts_with(key + " ")) line = key + " = " + value;
    out << line << "\n";
  }
  const fs::path folder = fs::temp_directory_path() / ("tessera-user-target-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path file = folder / (name + ".toml");
  std::ofstream(file) << out.str();
  return file.string();
}

TEST(UserTarget, A64x64ArrayRunsWhatFitsAndRefusesWhatDoesNot) {
  const std::string file = modifiedTrn2("trn2-64x64", {{"name", "\"trn2-64x64\""},
                                                        {"rows", "64"},
                                                        {"cols", "64"},
                                                        {"max_contraction", "64"},
                                                        {"max_stationary_free", "64"},
                                                        {"peak_bf16_tflops", "19.7"},
                                                        {"peak_fp32_tflops", "5.0"}});
  EXPECT_EQ(isa::Target::find(file).tensor.rows, 64u);
  for (const char *kernel : {"add", "softmax"}) {
    driver::RunReport r = driver::runKernel({.kernel = kernel, .target = file});
    EXPECT_TRUE(r.ok) << kernel;
    EXPECT_EQ(r.target.name, "trn2-64x64");
  }
  // The matmul kernels contract over 128 partitions per instruction: more than this array has.
  try {
    (void)driver::runKernel({.kernel = "matmul", .target = file});
    ADD_FAILURE() << "a 128-row contraction ran on a 64-row array";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("trn2-64x64"), std::string::npos) << e.what();
    EXPECT_TRUE(e.where().known()) << e.what();
  }
}

TEST(UserTarget, HalfTheSbufRunsAndReportsItsOwnCapacity) {
  const isa::Target trn2 = isa::Target::find("trn2");
  const uint64_t half = trn2.sbufBytesPerPartition / 2 / 4 * 4;
  const std::string file =
      modifiedTrn2("trn2-half-sbuf", {{"name", "\"trn2-half-sbuf\""}, {"sbuf_bytes_per_partition", std::to_string(half)}});
  driver::RunReport r = driver::runKernel({.kernel = "matmul", .target = file, .shape = {{"M", 256}, {"N", 512}, {"K", 256}}});
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.target.sbufBytesPerPartition, half);
}

} // namespace
