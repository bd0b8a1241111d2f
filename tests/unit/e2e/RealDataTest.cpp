// Real data: `tessera run --input NAME=FILE.npy --output-dir DIR` (the CLI, as a user runs it) reproduces a result
// computed here independently from the same files; the .npy reader and writer; inputs that do not fit the kernel.

#include "tessera/Driver.h"
#include "tessera/HostData.h"
#include "tessera/Npy.h"
#include "tessera/isa/NumberFormats.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iterator>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/stat.h>

namespace {

using namespace tessera;
using namespace tessera::driver;
namespace fs = std::filesystem;

class RealDataTest : public testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tessera-real-data-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A float32 .npy file of `rows` x `cols` normal values.
  std::vector<float> writeFloats(const std::string &name, int64_t rows, int64_t cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> v(static_cast<size_t>(rows * cols));
    for (float &x : v) x = normal(rng);
    NpyArray a{"<f4", {rows, cols}, std::vector<std::byte>(v.size() * sizeof(float))};
    std::memcpy(a.data.data(), v.data(), a.data.size());
    writeNpy(dir_ / name, a);
    return v;
  }

  static std::vector<float> floatsOf(const NpyArray &a) {
    std::vector<float> v(a.data.size() / sizeof(float));
    std::memcpy(v.data(), a.data.data(), a.data.size());
    return v;
  }

  int cli(const std::string &args) {
    return std::system((std::string(TESSERA_CLI) + " " + args + " > '" + (dir_ / "log").string() + "' 2>&1").c_str());
  }

  fs::path dir_;
};

TEST_F(RealDataTest, RunFromNpyInputsMatchesAMatmulComputedHere) {
  const int64_t M = 128, N = 512, K = 256;
  std::vector<float> aT = writeFloats("a_t.npy", K, M, 1), b = writeFloats("b.npy", K, N, 2);
  const fs::path out = dir_ / "out";
  ASSERT_EQ(cli(fmt::format("run matmul --target trn2 --shape M={},N={},K={} --input a_t={} --input b={} --output-dir {}",
                            M, N, K, (dir_ / "a_t.npy").string(), (dir_ / "b.npy").string(), out.string())),
            0);
  const NpyArray c = readNpy(out / "c.npy");
  EXPECT_EQ(c.descr, "<f4"); // a bf16 output, written as its float32 values
  ASSERT_EQ(c.shape, (std::vector<int64_t>{M, N}));
  const std::vector<float> got = floatsOf(c);
  // The kernel computes in bf16 inputs: round them as it does, multiply in double here.
  auto bf16 = [](float x) {
    std::byte bits[2];
    isa::encode(isa::DType::BF16, &x, bits, 1);
    float back;
    isa::decode(isa::DType::BF16, bits, &back, 1);
    return back;
  };
  double worst = 0, scale = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += double(bf16(aT[k * M + m])) * double(bf16(b[k * N + n]));
      worst = std::max(worst, std::abs(double(got[m * N + n]) - sum));
      scale = std::max(scale, std::abs(sum));
    }
  EXPECT_LT(worst / scale, 2 * isa::unitRoundoff(isa::DType::BF16)) << "max abs error " << worst;
  EXPECT_GT(scale, 1.0); // the inputs were read: random N(0, 1) data, not zeros
}

TEST_F(RealDataTest, RunFromNpyInputsOfAnF32KernelIsExact) {
  std::vector<float> a = writeFloats("a.npy", 128, 256, 3), b = writeFloats("b.npy", 128, 256, 4);
  ASSERT_EQ(cli(fmt::format("run add --shape M=128,N=256 --input a={},b={} --output-dir {}", (dir_ / "a.npy").string(),
                            (dir_ / "b.npy").string(), (dir_ / "out").string())),
            0);
  const std::vector<float> c = floatsOf(readNpy(dir_ / "out" / "c.npy"));
  ASSERT_EQ(c.size(), a.size());
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
}

TEST_F(RealDataTest, NpyFilesRoundTripAndBadFilesAreNamed) {
  NpyArray a{"<u2", {3}, {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}, std::byte{5}, std::byte{6}}};
  writeNpy(dir_ / "x.npy", a);
  const NpyArray back = readNpy(dir_ / "x.npy");
  EXPECT_EQ(back.descr, "<u2");
  EXPECT_EQ(back.shape, std::vector<int64_t>{3});
  EXPECT_EQ(back.data, a.data);
  std::ofstream(dir_ / "junk.npy") << "not numpy";
  try {
    readNpy(dir_ / "junk.npy");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(e.message().find("junk.npy"), std::string::npos);
    EXPECT_NE(e.message().find("magic"), std::string::npos);
  }
  writeNpy(dir_ / "short.npy", {"<f4", {4, 4}, std::vector<std::byte>(8)});
  EXPECT_THROW(readNpy(dir_ / "short.npy"), InputError);
}

// Headers that lie (issue 24): a negative size was read as positive, a 23-digit one ended in "internal error:
// stoll", and a 128-byte file claiming 2^39 elements was allocated before it was found short (bad_alloc).
TEST_F(RealDataTest, NpyHeadersThatLieAreRefusedBeforeAnythingIsAllocated) {
  auto withShape = [&](const std::string &name, const std::string &shape) {
    writeNpy(dir_ / name, {"<f4", {128, 128}, std::vector<std::byte>(128 * 128 * 4)});
    std::string bytes;
    {
      std::ifstream in(dir_ / name, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const size_t at = bytes.find("(128, 128)");
    bytes.replace(at, 10, shape); // the header grows or shrinks: its length field is rewritten below
    const size_t headerEnd = bytes.find('\n') + 1;
    const size_t length = headerEnd - 10;
    bytes[8] = static_cast<char>(length & 0xff);
    bytes[9] = static_cast<char>(length >> 8);
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  };
  auto refusal = [&](const std::string &name) -> std::string {
    try {
      readNpy(dir_ / name);
    } catch (const InputError &e) {
      return e.message();
    }
    return "accepted";
  };
  withShape("negative.npy", "(-128, 128)");
  EXPECT_NE(refusal("negative.npy").find("is not a list of sizes"), std::string::npos) << refusal("negative.npy");
  withShape("digits.npy", "(12345678901234567890123, 1)");
  EXPECT_NE(refusal("digits.npy").find("too large"), std::string::npos) << refusal("digits.npy");
  withShape("huge.npy", "(524288, 1048576)");
  EXPECT_NE(refusal("huge.npy").find("fewer than the 2199023255552"), std::string::npos) << refusal("huge.npy");
  withShape("words.npy", "(128, n)");
  EXPECT_NE(refusal("words.npy").find("is not a list of sizes"), std::string::npos) << refusal("words.npy");
  withShape("vector.npy", "(16384,)");
  EXPECT_EQ(readNpy(dir_ / "vector.npy").shape, std::vector<int64_t>{16384});

#ifndef __SANITIZE_ADDRESS__ // AddressSanitizer reserves terabytes of address space: no `ulimit -v` under it
  // An 8 GiB (sparse) file of another shape than the kernel's was read whole before its shape was compared: under
  // 4 GB of address space that was std::bad_alloc (exit 3); its header alone now refuses it (exit 2).
  withShape("big.npy", "(65536, 32768)");
  fs::resize_file(dir_ / "big.npy", fs::file_size(dir_ / "big.npy") - 128 * 128 * 4 + (uint64_t{1} << 33));
  EXPECT_EQ(WEXITSTATUS(std::system(("sh -c 'ulimit -v 4000000; " + std::string(TESSERA_CLI) + " run add --input a=" +
                                     (dir_ / "big.npy").string() + "' > '" + (dir_ / "log").string() + "' 2>&1")
                                        .c_str())),
            2);
  std::ifstream log(dir_ / "log");
  const std::string text{std::istreambuf_iterator<char>(log), {}};
  EXPECT_NE(text.find("holds an array of shape (65536, 32768), but the kernel's 'a' is (256, 1024)"),
            std::string::npos)
      << text;
#endif
}

// A pipe as an input blocked in open() with no writer, through any --timeout: only regular files are read.
TEST_F(RealDataTest, AnInputThatIsNotARegularFileIsRefusedBeforeItIsOpened) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    readNpy(fifo);
    FAIL() << "a pipe was read";
  } catch (const InputError &e) {
    EXPECT_NE(e.message().find("it is not a regular file (a folder, a pipe or a device)"), std::string::npos)
        << e.message();
  }
  EXPECT_THROW(readNpy(dir_), InputError); // a folder
}

TEST_F(RealDataTest, InputsThatDoNotFitTheKernelAreRefused) {
  writeFloats("small.npy", 3, 3, 5);
  EXPECT_EQ(WEXITSTATUS(cli("run add --input a=" + (dir_ / "small.npy").string())), 2);
  EXPECT_EQ(WEXITSTATUS(cli("run add --input nosuch=" + (dir_ / "small.npy").string())), 2);
  EXPECT_EQ(WEXITSTATUS(cli("run add --timing-only --input a=" + (dir_ / "small.npy").string())), 2);
}

/// Inputs out of the tensor's dtype's range once reached the kernel as NaN (f8e4m3 has no Inf) or Inf (bf16), and the
/// outputs were blamed (exit 1): they are refused before the run, naming the element, and the library says so too.
TEST_F(RealDataTest, InputsBeyondTheDtypesRangeAreRefusedNamingTheElement) {
  const std::string a = (dir_ / "a_t.npy").string(), b = (dir_ / "b.npy").string();
  std::vector<float> values = writeFloats("a_t.npy", 512, 512, 7);
  writeFloats("b.npy", 512, 512, 8);
  EXPECT_EQ(WEXITSTATUS(cli("run matmul_fp8 --input a_t=" + a + " --input b=" + b)), 0);
  values[3 * 512 + 17] = 1000.0f; // f8e4m3's largest finite is 448
  NpyArray big{"<f4", {512, 512}, std::vector<std::byte>(values.size() * sizeof(float))};
  std::memcpy(big.data.data(), values.data(), big.data.size());
  writeNpy(a, big);
  EXPECT_EQ(WEXITSTATUS(cli("run matmul_fp8 --input a_t=" + a + " --input b=" + b)), 2);
  std::ifstream log(dir_ / "log");
  const std::string text{std::istreambuf_iterator<char>(log), {}};
  EXPECT_NE(text.find("holds 1000 at [3, 17], beyond the largest finite f8e4m3 (448): the kernel would read NaN"),
            std::string::npos)
      << text;

  values[3 * 512 + 17] = 3.4e38f; // a finite float that rounds to bf16 Inf
  try {
    runKernel({.kernel = "matmul", .inputs = {{"a_t", HostArray{{512, 512}, values}}}});
    FAIL() << "an input beyond bf16's range ran";
  } catch (const InputError &e) {
    EXPECT_NE(e.message().find("input 'a_t' holds 3.4e+38 at [3, 17], beyond the largest finite bf16"),
              std::string::npos)
        << e.message();
  }
  values[3 * 512 + 17] = INFINITY; // an infinity the user gave is theirs to give
  EXPECT_NO_THROW(runKernel({.kernel = "matmul", .inputs = {{"a_t", HostArray{{512, 512}, values}}}}));
}

} // namespace
