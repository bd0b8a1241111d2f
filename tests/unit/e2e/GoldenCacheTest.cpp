// The golden model's object cache (compiler/lib/Golden/GoldenObjectCache.h): a kernel compiled once is loaded the
// next time, with the same results, without being lowered again (keyed by its module as imported and the lowering
// libraries' build IDs, BuildIdentity.h); a damaged entry is compiled again and replaced; keys follow what decides
// the code; the folder keeps its limit by removing the least recently used objects.

#include "tessera/compiler/Golden.h"
#include "tessera/dsl/tsr.h"

#include "Golden/BuildIdentity.h"
#include "Golden/GoldenObjectCache.h"

#include "../dsl/DslTesting.h"
#include "ScopedEnvironment.h"
#include "ScratchFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using tessera::compiler::compileGolden;
using tessera::compiler::golden::GoldenObjectCache;

using tessera::scratch::ScopedEnvironment;
using tessera::scratch::scratchDir;

/// y = x * x + x over [128, 16] FP32.
tsr::KernelInfo squarePlus(const char *name) {
  tsr::KernelInfo k = tsr::dsltest::kernelOf({tsr::input("x", {128, 16}, tsr::f32), tsr::output("y", {128, 16}, tsr::f32)},
                               [](tsr::Hbm x, tsr::Hbm y) {
                                 tsr::Tile t = tsr::load(x.tile(0, 0, {128, 16}));
                                 tsr::store(y.tile(0, 0, {128, 16}), t * t + t);
                               });
  k.name = name;
  return k;
}

/// The objects in `folder`.
std::vector<fs::path> objectsIn(const fs::path &folder) {
  std::vector<fs::path> objects;
  if (!fs::exists(folder)) return objects;
  for (const fs::directory_entry &e : fs::directory_iterator(folder))
    if (e.path().extension() == ".o") objects.push_back(e.path());
  return objects;
}

/// Compiles `kernel`'s golden model, runs it on x = i - 700.25, checks y and returns the stages it went through.
std::vector<std::string> compileAndRun(const tsr::KernelInfo &kernel) {
  std::vector<std::string> stages;
  const std::unique_ptr<tessera::compiler::GoldenModel> model =
      compileGolden(tsr::trace(kernel, {}), [&](const std::string &s) { stages.push_back(s); });
  std::vector<float> x(128 * 16), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 700.25f;
  std::vector<std::vector<std::byte>> tensors{std::vector<std::byte>(x.size() * 4), std::vector<std::byte>(x.size() * 4)};
  std::memcpy(tensors[0].data(), x.data(), tensors[0].size());
  model->run(tensors);
  std::memcpy(y.data(), tensors[1].data(), tensors[1].size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] * x[i] + x[i]) << i;
  return stages;
}

const std::string kCompiling = "compiling for the host", kLoading = "loading its host code, compiled before",
                  kLowering = "lowering ";

// The second compilation of a kernel loads the first one's object: the same results, no code generation.
TEST(GoldenCache, AKernelCompiledOnceIsLoadedTheNextTime) {
  const fs::path folder = scratchDir("golden-cache", "reuse");
  ScopedEnvironment cache("TESSERA_CACHE_DIR", folder.string());
  const tsr::KernelInfo k = squarePlus("test_golden_cache_reuse");
  const std::vector<std::string> first = compileAndRun(k);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].rfind(kLowering, 0), 0u) << first[0];
  EXPECT_EQ(first[1], kCompiling);
  ASSERT_EQ(objectsIn(folder / "golden").size(), 1u);
  // Keyed by the module as imported (the lowering's libraries have build IDs): not even lowered.
  ASSERT_TRUE(tessera::compiler::golden::loweringIdentity().has_value());
  EXPECT_EQ(compileAndRun(k), std::vector<std::string>{kLoading});
  EXPECT_EQ(objectsIn(folder / "golden").size(), 1u);
}

// Asked how much work the lowering made (GoldenWork), the golden model lowers, and keys the object by the module as
// lowered: an entry of its own, loaded the next time after the lowering.
TEST(GoldenCache, AskedForItsWorkItLowersAndKeysByTheLoweredModule) {
  const fs::path folder = scratchDir("golden-cache", "work");
  ScopedEnvironment cache("TESSERA_CACHE_DIR", folder.string());
  const tsr::graph::KernelGraph g = tsr::trace(squarePlus("test_golden_cache_work"), {});
  const auto stagesOf = [&] {
    std::vector<std::string> stages;
    tessera::compiler::GoldenWork work;
    compileGolden(g, [&](const std::string &s) { stages.push_back(s); }, &work);
    EXPECT_GT(work.glueOps, 0u);
    return stages;
  };
  const std::vector<std::string> first = stagesOf(), second = stagesOf();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[1], kCompiling);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0], first[0]) << "lowered again";
  EXPECT_EQ(second[1], kLoading);
  compileGolden(g); // the other key: a second entry
  EXPECT_EQ(objectsIn(folder / "golden").size(), 2u);
}

// The lowering's code is named by the build IDs of the files that hold it; an address in no file has none.
TEST(GoldenCache, TheLoweringIsKnownByItsLibrariesBuildIds) {
  const std::optional<std::string> &identity = tessera::compiler::golden::loweringIdentity();
  ASSERT_TRUE(identity.has_value()) << "libtessera-compiler and libtessera link with --build-id (tools/CMakeLists.txt)";
  EXPECT_EQ(std::count(identity->begin(), identity->end(), ','), 2) << *identity;
  EXPECT_EQ(identity->find_first_not_of("0123456789abcdef,"), std::string::npos) << *identity;
  int onTheStack = 0;
  EXPECT_FALSE(tessera::compiler::golden::buildIdsOf({&onTheStack}).has_value());
  EXPECT_FALSE(tessera::compiler::golden::buildIdsOf({nullptr}).has_value());
}

// An entry that does not link (damaged, truncated) is compiled again, and the new object replaces it.
TEST(GoldenCache, ADamagedEntryIsCompiledAgainAndReplaced) {
  const fs::path folder = scratchDir("golden-cache", "damaged");
  ScopedEnvironment cache("TESSERA_CACHE_DIR", folder.string());
  const tsr::KernelInfo k = squarePlus("test_golden_cache_damaged");
  compileAndRun(k);
  const std::vector<fs::path> objects = objectsIn(folder / "golden");
  ASSERT_EQ(objects.size(), 1u);
  { std::ofstream(objects[0], std::ios::binary | std::ios::trunc) << "not an object file"; }
  const std::vector<std::string> again = compileAndRun(k);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[0], kLoading);
  EXPECT_EQ(again[1].rfind(kLowering, 0), 0u) << again[1];
  EXPECT_EQ(again[2], kCompiling);
  EXPECT_GT(fs::file_size(objects[0]), 100u) << "replaced by the new object";
  EXPECT_EQ(compileAndRun(k).back(), kLoading);
}

// Something else under an entry's name (here a folder: reading it threw from inside the stream, and `tessera run`
// stopped with an internal error) is no entry: the kernel is compiled, and the run goes on.
TEST(GoldenCache, AFolderUnderAnEntrysNameIsCompiledAround) {
  const fs::path folder = scratchDir("golden-cache", "folder");
  ScopedEnvironment cache("TESSERA_CACHE_DIR", folder.string());
  const tsr::KernelInfo k = squarePlus("test_golden_cache_folder");
  compileAndRun(k);
  const std::vector<fs::path> objects = objectsIn(folder / "golden");
  ASSERT_EQ(objects.size(), 1u);
  fs::remove(objects[0]);
  fs::create_directory(objects[0]);
  EXPECT_EQ(compileAndRun(k).back(), kCompiling);
  EXPECT_TRUE(fs::is_directory(objects[0])) << "left as it was: the cache never removes what it did not write";
  EXPECT_FALSE(GoldenObjectCache(folder / "golden").load(objects[0].stem().string()).has_value());
}

// Two kernels, two objects; with the cache turned off, none and always compiled.
TEST(GoldenCache, KernelsHaveObjectsOfTheirOwnAndOffMeansOff) {
  const fs::path folder = scratchDir("golden-cache", "two");
  {
    ScopedEnvironment cache("TESSERA_CACHE_DIR", folder.string());
    compileAndRun(squarePlus("test_golden_cache_one"));
    compileAndRun(squarePlus("test_golden_cache_two")); // another name: another function, another module
    EXPECT_EQ(objectsIn(folder / "golden").size(), 2u);
  }
  ScopedEnvironment off("TESSERA_CACHE_DIR", "off");
  EXPECT_EQ(compileAndRun(squarePlus("test_golden_cache_one")).back(), kCompiling);
  EXPECT_EQ(compileAndRun(squarePlus("test_golden_cache_one")).back(), kCompiling);
  EXPECT_FALSE(GoldenObjectCache::fromEnvironment().has_value());
}

// The key covers the module and the code generation's settings, and nothing else varies it.
TEST(GoldenCache, KeysFollowTheModuleAndTheSettings) {
  const std::string a = GoldenObjectCache::keyOf("module A", "O0"), b = GoldenObjectCache::keyOf("module B", "O0");
  EXPECT_EQ(a, GoldenObjectCache::keyOf("module A", "O0"));
  EXPECT_NE(a, b);
  EXPECT_NE(a, GoldenObjectCache::keyOf("module A", "O1"));
  EXPECT_NE(GoldenObjectCache::keyOf("ab", "c"), GoldenObjectCache::keyOf("a", "bc")) << "parts cannot run together";
  EXPECT_EQ(a.size(), 64u); // SHA-256, hexadecimal
}

// Past its limit the folder loses its least recently used objects, a loaded one counting as used.
TEST(GoldenCache, TheLeastRecentlyUsedObjectsGoFirst) {
  const fs::path folder = scratchDir("golden-cache", "evict");
  const GoldenObjectCache cache(folder, /*maxBytes=*/2500);
  const auto put = [&](const std::string &key) {
    cache.store(key, [](const std::string &path) {
      std::ofstream(path, std::ios::binary) << std::string(1000, 'x');
      return true;
    });
  };
  const auto age = [&](const std::string &key, int seconds) {
    fs::last_write_time(folder / (key + ".o"), fs::file_time_type::clock::now() - std::chrono::seconds(seconds));
  };
  put("a");
  age("a", 30);
  put("b");
  age("b", 20);
  ASSERT_TRUE(cache.load("a").has_value()); // used now: b is the least recent
  put("c");                            // 3000 bytes: one object goes
  EXPECT_TRUE(fs::exists(folder / "a.o"));
  EXPECT_FALSE(fs::exists(folder / "b.o"));
  EXPECT_TRUE(fs::exists(folder / "c.o"));
  EXPECT_FALSE(cache.load("b").has_value());
  // A writer that fails leaves nothing, not even its temporary file; one that died long ago is cleared away.
  cache.store("d", [](const std::string &) { return false; });
  const fs::path dead = folder / ".e.1.0.tmp", recent = folder / ".f.1.0.tmp";
  std::ofstream(dead) << "half an object";
  std::ofstream(recent) << "being written";
  fs::last_write_time(dead, fs::file_time_type::clock::now() - std::chrono::hours(2));
  cache.evict();
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(recent)) << "another process may still rename it";
  fs::remove(recent);
  EXPECT_EQ(objectsIn(folder).size(), 2u);
  size_t files = 0;
  for ([[maybe_unused]] const fs::directory_entry &e : fs::directory_iterator(folder)) ++files;
  EXPECT_EQ(files, 2u);
}

} // namespace
