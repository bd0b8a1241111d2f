/// \file
/// Plugins (tools/tessera/Plugin.h, `--plugin`): a plugin built with tessera_add_kernels (tests/plugins) registers
/// its kernels in the one registry the CLI searches, so every kernel command finds them, and loadPlugin() does the
/// same in a program of one's own; and every way a plugin can fail to load - no such file, not a library, a
/// missing symbol, a kernel name already taken, no kernels at all, --plugin without a path - exits 2 saying why.

#include "tessera/Driver.h"
#include "tessera/Plugin.h"
#include "tessera/dsl/Kernel.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace tessera::driver {
namespace {

namespace fs = std::filesystem;

/// What a command printed (stdout and stderr together) and its exit status.
struct Ran {
  int status = -1;
  std::string output;
};

Ran run(const std::string &args) {
  const std::string command = std::string(TESSERA_CLI) + " " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return {};
  Ran r;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) r.output.append(buffer, n);
  const int status = pclose(pipe.release());
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const std::string kPlugin = std::string("--plugin ") + TESSERA_TEST_PLUGIN;

class PluginCommands : public testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tessera-plugin-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(PluginCommands, ListShowsThePluginsKernelsBesideTheLibrarys) {
  const Ran r = run("list --json " + kPlugin);
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json list = nlohmann::json::parse(r.output);
  bool found = false, library = false;
  for (const nlohmann::json &k : list) {
    if (k["name"] == "plugin_double") {
      found = true;
      EXPECT_EQ(k["plugin"], TESSERA_TEST_PLUGIN);
      EXPECT_EQ(k["kernel_params"]["bc"], 128);
    }
    if (k["name"] == "matmul") {
      library = true;
      EXPECT_FALSE(k.contains("plugin"));
    }
  }
  EXPECT_TRUE(found) << r.output;
  EXPECT_TRUE(library);
  // Text: the plugin beside the summary; the flag may also come before the command, or as --plugin=PATH.
  const Ran text = run(std::string("--plugin=") + TESSERA_TEST_PLUGIN + " list");
  ASSERT_EQ(text.status, 0) << text.output;
  EXPECT_NE(text.output.find(std::string("(plugin ") + TESSERA_TEST_PLUGIN + ")"), std::string::npos) << text.output;
}

TEST_F(PluginCommands, EveryKernelCommandFindsThePluginsKernel) {
  const Ran ran = run("run plugin_double --shape R=256,C=512 --param bc=256 --json " + kPlugin);
  ASSERT_EQ(ran.status, 0) << ran.output;
  const nlohmann::json j = nlohmann::json::parse(ran.output);
  EXPECT_EQ(j["kernel"], "plugin_double");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["max_abs_err"], 0); // 2x is exact in FP32

  const Ran compiled = run("compile plugin_double --emit tile " + kPlugin);
  ASSERT_EQ(compiled.status, 0) << compiled.output;
  EXPECT_NE(compiled.output.find("tile.store"), std::string::npos) << compiled.output;

  const Ran deployed = run("deploy plugin_double --target tpu-v5e -o " + (dir_ / "bundle").string() + " " + kPlugin);
  ASSERT_EQ(deployed.status, 0) << deployed.output;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "bundle" / "run.py"));

  const Ran swept = run("sweep plugin_double --param bc=64,128,256 --json " + kPlugin);
  ASSERT_EQ(swept.status, 0) << swept.output;
  EXPECT_EQ(nlohmann::json::parse(swept.output)["rows"].size(), 3u);

  const Ran compared = run("compare plugin_double --targets trn2,tpu-v5e --json " + kPlugin);
  ASSERT_EQ(compared.status, 0) << compared.output;
  EXPECT_EQ(nlohmann::json::parse(compared.output)["targets"].size(), 2u);
}

TEST_F(PluginCommands, WithoutThePluginTheKernelIsUnknownAndTheHintSaysHow) {
  const Ran r = run("run plugin_double");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("unknown kernel 'plugin_double'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--plugin"), std::string::npos) << r.output;
}

TEST_F(PluginCommands, EachWayOfFailingToLoadExits2AndSaysWhy) {
  struct Case {
    std::string plugin, expected;
  };
  const fs::path notALibrary = dir_ / "notes.so";
  std::ofstream(notALibrary) << "not a shared library\n";
  const fs::path missing = dir_ / "libnowhere.so";
  const Case cases[] = {
      {missing.string(), missing.string() + ": no such file"},
      {dir_.string(), "not a regular file"},
      {notALibrary.string(), "cannot load it: "},
      {TESSERA_TEST_PLUGIN_UNDEFINED, "undefined symbol: tessera_test_symbol_nobody_defines"},
      {TESSERA_TEST_PLUGIN_DUPLICATE, "kernel 'add' is registered twice"},
      {TESSERA_TEST_PLUGIN_EMPTY, "registered no kernel"},
      {TESSERA_TEST_PLUGIN_THROWING, "its static initialisation threw: the plugin's own set-up failed"},
  };
  for (const Case &c : cases) {
    const Ran r = run("run add --plugin " + c.plugin);
    EXPECT_EQ(r.status, 2) << c.plugin << "\n" << r.output;
    EXPECT_NE(r.output.find("--plugin " + c.plugin), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.plugin << "\n" << r.output;
    // --json: the error as the JSON object on stdout, like every other bad input
    const Ran json = run("list --json --plugin " + c.plugin);
    EXPECT_EQ(json.status, 2) << json.output;
    EXPECT_NE(json.output.find("\"ok\": false"), std::string::npos) << json.output;
  }
  // A duplicate names where the second definition is (the plugin's source line) and where the first was.
  const Ran duplicate = run(std::string("list --plugin ") + TESSERA_TEST_PLUGIN_DUPLICATE);
  EXPECT_NE(duplicate.output.find("tests/plugins/duplicate.cpp:"), std::string::npos) << duplicate.output;
  EXPECT_NE(duplicate.output.find("kernels/add.cpp:"), std::string::npos) << duplicate.output;
  for (const char *usage : {"list --plugin", "list --plugin=", "--plugin --json list"}) {
    const Ran r = run(usage);
    EXPECT_EQ(r.status, 2) << usage << "\n" << r.output;
    EXPECT_NE(r.output.find("--plugin: expected a path"), std::string::npos) << r.output;
  }
}

// A kernel body that throws what is not a std::exception once aborted tessera (exit 134).
TEST_F(PluginCommands, AKernelThatThrowsAnIntIsAnErrorNotAnAbort) {
  ::setenv("TESSERA_TEST_THROW_IN_BODY", "1", 1);
  const Ran r = run(std::string("run plugin_throws_int --plugin ") + TESSERA_TEST_PLUGIN_THROWING);
  const Ran json = run(std::string("run plugin_throws_int --json --plugin ") + TESSERA_TEST_PLUGIN_THROWING);
  ::unsetenv("TESSERA_TEST_THROW_IN_BODY");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("a kernel threw something that is not a std::exception"), std::string::npos) << r.output;
  EXPECT_EQ(json.status, 2) << json.output;
  EXPECT_NE(json.output.find("\"ok\": false"), std::string::npos) << json.output;
}

TEST(LoadPlugin, RegistersIntoThisProcesssRegistryOnceAndRunKernelFindsIt) {
  ASSERT_EQ(tsr::Registry::instance().find("plugin_double"), nullptr);
  const std::vector<std::string> names = loadPlugin(TESSERA_TEST_PLUGIN);
  EXPECT_EQ(names, std::vector<std::string>{"plugin_double"});
  const tsr::KernelInfo *k = tsr::Registry::instance().find("plugin_double");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->plugin, TESSERA_TEST_PLUGIN);
  EXPECT_EQ(loadPlugin(TESSERA_TEST_PLUGIN), names); // loading again changes nothing
  RunRequest request;
  request.kernel = "plugin_double";
  const RunReport report = runKernel(request);
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(report.reference, "golden+reference");
}

TEST(LoadPlugin, AFailedLoadFailsAgainTheSameWay) {
  std::string first;
  try {
    loadPlugin(TESSERA_TEST_PLUGIN_DUPLICATE);
    FAIL() << "a plugin registering 'add' again loaded";
  } catch (const InputError &e) {
    first = e.what();
  }
  try {
    loadPlugin(TESSERA_TEST_PLUGIN_DUPLICATE);
    FAIL() << "the second load succeeded";
  } catch (const InputError &e) {
    EXPECT_EQ(e.what(), first);
  }
  // The library's add is still the one registered.
  EXPECT_EQ(tsr::Registry::instance().find("add")->plugin, "");
}

TEST(TakePluginOptions, RemovesEveryPluginFlagWhereverItIs) {
  std::vector<std::string> args = {"--plugin", "a.so", "run", "k", "--plugin=b.so", "--json", "--plugin", "c.so"};
  EXPECT_EQ(takePluginOptions(args), (std::vector<std::string>{"a.so", "b.so", "c.so"}));
  EXPECT_EQ(args, (std::vector<std::string>{"run", "k", "--json"}));
  std::vector<std::string> none = {"run", "k"};
  EXPECT_TRUE(takePluginOptions(none).empty());
  EXPECT_EQ(none.size(), 2u);
}

} // namespace
} // namespace tessera::driver
