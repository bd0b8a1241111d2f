// tessera calibrate: device records made here from a "device" that is a copy of trn2 with other fixed costs (so
// the answer is known), fitted back from trn2; the TOML edit that writes the calibrated copy; and records that
// cannot be used (no device time; a time from the host's wall clock, which is skipped or refused).

#include "tessera/Calibrate.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using namespace tessera;
using namespace tessera::driver;
namespace fs = std::filesystem;

class CalibrateTest : public testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tessera-calibrate-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string trn2Text() {
    std::ifstream in(loadTarget("trn2").file);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  /// A record as run.py writes it on a device with a device profiler, measured by simulating on the target file
  /// `device`.
  fs::path record(const std::string &kernel, std::map<std::string, int64_t> shape, const fs::path &device) {
    RunRequest request{.kernel = kernel, .target = device.string(), .shape = shape, .timingOnly = true};
    const double us = runKernel(request).timeUs();
    const fs::path file = dir_ / (kernel + ".json");
    nlohmann::json j = {{"record_version", 2}, {"kernel", kernel},  {"target", "trn2"},  {"backend", "nki"},
                        {"shape", shape},       {"kernel_params", nlohmann::json::object()}, {"loop_buffers", 4},
                        {"mode", "device"},     {"measured_us", us}, {"device", "test"},
                        {"measured_by", "device_profiler"}, {"timer", "test"}};
    std::ofstream(file) << j.dump();
    return file;
  }

  fs::path dir_;
};

TEST_F(CalibrateTest, RecoversTheFixedCostsOfTheDeviceThatMeasured) {
  std::string device = setTomlValue(trn2Text(), "dma", "fixed_latency_ns", "2600.0");
  device = setTomlValue(device, "cost", "static_overhead_cycles", "150");
  const fs::path deviceFile = dir_ / "device.toml";
  std::ofstream(deviceFile) << device;
  std::vector<DeviceRecord> records;
  for (auto [kernel, shape] : std::vector<std::pair<std::string, std::map<std::string, int64_t>>>{
           {"add", {{"M", 256}, {"N", 1024}}},
           {"softmax", {{"R", 256}, {"C", 512}}},
           {"matmul", {{"M", 256}, {"N", 512}, {"K", 512}}},
           {"matmul_tiled", {{"M", 256}, {"N", 512}, {"K", 256}}}})
    records.push_back(readDeviceRecord(record(kernel, shape, deviceFile)));

  const Calibration c = calibrate(records, "", {"dma.fixed_latency_ns", "cost.static_overhead_cycles"});
  ASSERT_EQ(c.coefficients.size(), 2u);
  EXPECT_EQ(c.coefficients[0].before, 600.0);
  EXPECT_NEAR(c.coefficients[0].after, 2600.0, 2600.0 * 0.02);
  EXPECT_TRUE(c.coefficients[1].integer);
  EXPECT_NEAR(c.coefficients[1].after, 150.0, 150.0 * 0.05);
  EXPECT_GT(c.errorBefore, 0.05);
  EXPECT_LT(c.errorAfter, 0.01);
  for (const CalibratedRecord &r : c.records) EXPECT_NEAR(r.afterUs, r.record.measuredUs, r.record.measuredUs * 0.01);

  // The calibrated copy loads as a target of its own and simulates the measured times.
  const fs::path copy = dir_ / "fitted.toml";
  std::ofstream(copy) << c.calibratedToml;
  const isa::Target fitted = isa::Target::load(copy);
  EXPECT_EQ(fitted.name, "trn2-calibrated");
  EXPECT_NEAR(fitted.dma.fixedLatencyNs, c.coefficients[0].after, 1.0);
}

TEST_F(CalibrateTest, ACoefficientNoRecordDependsOnKeepsItsValue) {
  std::vector<DeviceRecord> records = {readDeviceRecord(record("add", {{"M", 128}, {"N", 512}}, loadTarget("trn2").file))};
  // add has no bn_aggr: nothing it does depends on that coefficient.
  const Calibration c = calibrate(records, "", {"cost.bn_aggr_cycles_per_triple"});
  EXPECT_FALSE(c.coefficients[0].determined);
  EXPECT_EQ(c.coefficients[0].after, c.coefficients[0].before);
}

TEST(SetTomlValue, ReplacesTheKeyOfItsTableOnlyAndKeepsTheSource) {
  const std::string text = "[a]\nx = 1 # source A\n[b]\nx = 2 # source B\ny = 3\n";
  EXPECT_EQ(setTomlValue(text, "b", "x", "5"), "[a]\nx = 1 # source A\n[b]\nx = 5 # source B\ny = 3\n");
  EXPECT_EQ(setTomlValue(text, "a", "x", "7", "fitted"), "[a]\nx = 7 # fitted; source A\n[b]\nx = 2 # source B\ny = 3\n");
  EXPECT_THROW(setTomlValue(text, "a", "y", "1"), InputError);
  EXPECT_THROW(setTomlValue(text, "c", "x", "1"), InputError);
}

// Issue 24: a regular expression matched each line and recursed once per character: a 1 MB comment line crashed
// `tessera calibrate --write` (exit 139). Lines are split by hand now, with the same edits.
TEST(SetTomlValue, LongLinesKeysThatPrefixOthersAndBareCommentsAreEditedAlike) {
  const std::string longComment = "# " + std::string(1 << 20, 'x');
  const std::string text = longComment + "\n[dma] " + longComment + "\nfixed_latency = 9\n  fixed_latency_ns =  1300.0  " +
                           longComment + "\n";
  const std::string edited = setTomlValue(text, "dma", "fixed_latency_ns", "2600.0", "fitted");
  EXPECT_EQ(edited, longComment + "\n[dma] " + longComment + "\nfixed_latency = 9\n  fixed_latency_ns =  2600.0 # fitted; " +
                        longComment.substr(2) + "\n");
  EXPECT_EQ(setTomlValue("[t]\nk=1#\n", "t", "k", "2", "note"), "[t]\nk=2 # note\n");
  EXPECT_EQ(setTomlValue("[t]\nk = 1\n", "t", "k", "2"), "[t]\nk = 2\n");
  EXPECT_EQ(setTomlValue("[t] # a table\nk = \"a\" # q\n", "t", "k", "\"b\""), "[t] # a table\nk = \"b\" # q\n");
  EXPECT_THROW(setTomlValue("[t]\nk.* = 1\n", "t", "k", "2"), InputError); // no pattern: "k.*" is not "k"
  EXPECT_THROW(setTomlValue("[[t]]\nk = 1\n", "t", "k", "2"), InputError); // an array of tables is not [t]
}

TEST_F(CalibrateTest, RecordsWithoutADeviceTimeAreRefusedByName) {
  const fs::path interpret = dir_ / "record-interpret.json";
  std::ofstream(interpret) << R"({"record_version": 1, "kernel": "add", "target": "tpu-v5e", "shape": {"M": 256},
                                  "mode": "interpret", "measured_us": null})";
  try {
    readDeviceRecord(interpret);
    FAIL() << "an interpret-mode record was accepted";
  } catch (const InputError &e) {
    EXPECT_NE(e.message().find("record-interpret.json"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("no device time"), std::string::npos) << e.message();
  }
  const fs::path junk = dir_ / "junk.json";
  std::ofstream(junk) << "{not json";
  EXPECT_THROW(readDeviceRecord(junk), InputError);
  EXPECT_THROW(calibrate({}, "", {}), InputError);
}

TEST_F(CalibrateTest, WallClockRecordsAreSkippedAndNoneLeftIsBadInput) {
  const fs::path device = record("add", {{"M", 128}, {"N", 512}}, loadTarget("trn2").file);
  nlohmann::json j;
  {
    std::ifstream in(device);
    j = nlohmann::json::parse(in);
  }
  // What run.py writes without a device profiler, and what a run.py from before "measured_by" wrote.
  j["measured_by"] = "host_wall_clock";
  j["timer"] = "time.perf_counter around kernel(*numpy_arrays)";
  const fs::path wall = dir_ / "record-wall-clock.json";
  std::ofstream(wall) << j.dump();
  j.erase("measured_by");
  j.erase("timer");
  j["record_version"] = 1;
  const fs::path old = dir_ / "record-v1.json";
  std::ofstream(old) << j.dump();

  const DeviceRecord d = readDeviceRecord(device), w = readDeviceRecord(wall), o = readDeviceRecord(old);
  EXPECT_TRUE(measuredOnDevice(d));
  EXPECT_FALSE(measuredOnDevice(w));
  EXPECT_FALSE(measuredOnDevice(o));
  EXPECT_EQ(w.measuredBy, "host_wall_clock");
  EXPECT_TRUE(notDeviceTimed(d).empty());

  std::vector<std::string> skipped;
  const std::vector<DeviceRecord> kept = deviceTimedRecords({w, d, o}, skipped);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].file.string(), device.string());
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("record-wall-clock.json"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[0].find("host's wall clock (time.perf_counter around kernel(*numpy_arrays))"), std::string::npos)
      << skipped[0];
  EXPECT_NE(skipped[1].find("record-v1.json"), std::string::npos) << skipped[1];
  EXPECT_NE(skipped[1].find("does not say how its time was measured"), std::string::npos) << skipped[1];

  // Nothing measured on the device: bad input (exit status 2), naming each file and why.
  skipped.clear();
  try {
    deviceTimedRecords({w, o}, skipped);
    FAIL() << "records without a device time were accepted";
  } catch (const InputError &e) {
    EXPECT_NE(e.message().find("no record holds a time measured on the device"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("record-wall-clock.json"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("record-v1.json"), std::string::npos) << e.message();
  }
  // calibrate() itself fits no wall-clock time, whoever calls it.
  EXPECT_THROW(calibrate({d, w}, "", {"dma.fixed_latency_ns"}), InputError);
  EXPECT_NO_THROW(calibrate({d}, "", {"dma.fixed_latency_ns"}));
}

TEST_F(CalibrateTest, RecordsOfTwoTargetsNeedTheTargetNamed) {
  DeviceRecord a = readDeviceRecord(record("add", {{"M", 128}, {"N", 512}}, loadTarget("trn2").file));
  DeviceRecord b = a;
  b.target = "trn1";
  EXPECT_THROW(calibrate({a, b}, "", {}), InputError);
}

} // namespace
