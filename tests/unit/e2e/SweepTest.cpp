/// \file
/// Parameter sweeps (tools/tessera/Sweep.h, `tessera sweep`): parsing the swept values, every combination once in
/// order, shards that cover the sweep, runs on several threads giving the rows one thread gives, invalid
/// combinations reported per row, the table sorted by simulated time, CSV and JSON, and the CLI's exit statuses.

#include "tessera/Sweep.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <sys/wait.h>

namespace tessera::driver {
namespace {

using Kind = SweepAxis::Kind;

TEST(Sweep, ParsesOneAxisPerNameWithItsValues) {
  const std::vector<SweepAxis> one = parseSweepAxes("param", "bm=128,256,512", Kind::KernelParam);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "bm");
  EXPECT_EQ(one[0].values, (std::vector<int64_t>{128, 256, 512}));
  const std::vector<SweepAxis> two = parseSweepAxes("param", "bm=128,bn=256,512", Kind::KernelParam);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].values, (std::vector<int64_t>{128}));
  EXPECT_EQ(two[1].name, "bn");
  EXPECT_EQ(two[1].values, (std::vector<int64_t>{256, 512}));
  for (const char *bad : {"", "128,256", "=128", "bm=", "bm=0", "bm=-1", "bm=12x", "bm=128,,256"})
    EXPECT_THROW(parseSweepAxes("param", bad, Kind::KernelParam), InputError) << bad;
}

// A name the kernel declares as a scalar parameter takes real values (zero and negatives too); the others stay
// positive integers.
TEST(Sweep, ScalarParametersTakeRealValues) {
  auto isScalar = [](const std::string &name) { return name == "eps" || name == "causal"; };
  const std::vector<SweepAxis> axes = parseSweepAxes("param", "causal=0,1,eps=1e-5,-2.5,bk=512", Kind::KernelParam,
                                                     isScalar);
  ASSERT_EQ(axes.size(), 3u);
  EXPECT_EQ(axes[0].kind, Kind::ScalarParam);
  EXPECT_EQ(axes[0].reals, (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(axes[1].reals, (std::vector<double>{1e-5, -2.5}));
  EXPECT_EQ(axes[2].kind, Kind::KernelParam);
  EXPECT_EQ(axes[2].values, (std::vector<int64_t>{512}));
  for (const char *bad : {"causal=", "causal=x", "causal=1,,2", "causal=inf", "causal=nan"})
    EXPECT_THROW(parseSweepAxes("param", bad, Kind::KernelParam, isScalar), InputError) << bad;
  const std::vector<SweepPoint> points = sweepPoints(axes);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[3].label, "causal=1 eps=-2.5 bk=512");
  EXPECT_EQ(points[3].scalarParams.at("eps"), -2.5);
  EXPECT_EQ(points[3].kernelParams.at("bk"), 512);
  SweepRow row;
  row.point = points[1];
  const std::vector<SweepRow> back = decodeRows(encodeRows({row}));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].point.scalarParams, points[1].scalarParams);
}

// A sweep over attention's causal flag runs both forms; the causal one, with four sections of keys, skips the
// sections after each query tile and is faster.
TEST(Sweep, SweepsAScalarParameter) {
  RunRequest base;
  base.kernel = "attention_fwd";
  base.target = "trn2";
  base.shape = {{"S", 2048}};
  base.kernelParams = {{"bk", 512}};
  base.timingOnly = true;
  std::vector<SweepAxis> axes = {{.kind = Kind::ScalarParam, .name = "causal", .values = {}, .reals = {0.0, 1.0}}};
  const std::vector<SweepRow> rows = runSweep(base, sweepPoints(axes), 2);
  ASSERT_EQ(rows.size(), 2u);
  for (const SweepRow &r : rows) ASSERT_EQ(r.status, SweepRow::Status::Ok) << r.point.label << ": " << r.message;
  EXPECT_LT(rows[1].timeUs, 0.8 * rows[0].timeUs);
  EXPECT_NE(sweepTable(rows, axes).find("causal"), std::string::npos);
  EXPECT_EQ(sweepJson(rows, axes, base)["rows"][1]["scalar_params"]["causal"], 1.0);
}

TEST(Sweep, EveryCombinationOnceFirstAxisSlowest) {
  const std::vector<SweepAxis> axes = {{Kind::Shape, "M", {256, 512}}, {Kind::KernelParam, "bm", {128, 256, 512}}};
  const std::vector<SweepPoint> points = sweepPoints(axes);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].label, "M=256 bm=128");
  EXPECT_EQ(points[2].label, "M=256 bm=512");
  EXPECT_EQ(points[3].label, "M=512 bm=128");
  EXPECT_EQ(points[5].shape.at("M"), 512);
  EXPECT_EQ(points[5].kernelParams.at("bm"), 512);
  EXPECT_TRUE(points[5].kernelParams.count("M") == 0 && points[5].shape.count("bm") == 0);
  EXPECT_THROW(sweepPoints({{Kind::KernelParam, "bm", {1}}, {Kind::KernelParam, "bm", {2}}}), InputError);
  EXPECT_EQ(sweepPoints({}).size(), 1u); // no axis: the base request once
}

TEST(Sweep, ShardsCoverTheSweepOnce) {
  const std::vector<SweepPoint> points = sweepPoints({{Kind::KernelParam, "bm", {1, 2, 3, 4, 5, 6, 7}}});
  std::vector<std::string> seen;
  for (unsigned i = 0; i < 3; ++i)
    for (const SweepPoint &p : shardOf(points, i, 3))
      seen.push_back(p.label);
  std::sort(seen.begin(), seen.end());
  std::vector<std::string> all;
  for (const SweepPoint &p : points)
    all.push_back(p.label);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(seen, all);
  EXPECT_EQ(shardOf(points, 0, 3).size(), 3u);
  EXPECT_TRUE(shardOf(points, 0, 0).empty());
}

RunRequest blockedMatmul() {
  RunRequest base;
  base.kernel = "matmul_blocked";
  base.target = "trn2";
  base.shape = {{"M", 512}, {"N", 1024}, {"K", 512}};
  base.timingOnly = true;
  return base;
}

TEST(Sweep, ThreadsGiveTheRowsOneThreadGivesAndInvalidOnesAreRows) {
  // bm=384 does not divide M=512: that row is invalid, the others run.
  const std::vector<SweepAxis> axes = {{Kind::KernelParam, "bm", {128, 384, 512}},
                                       {Kind::KernelParam, "bn", {512, 1024}}};
  const std::vector<SweepPoint> points = sweepPoints(axes);
  const std::vector<SweepRow> serial = runSweep(blockedMatmul(), points, 1);
  size_t calls = 0;
  const std::vector<SweepRow> parallel = runSweep(blockedMatmul(), points, 3, [&](size_t done, size_t total) {
    ++calls;
    EXPECT_EQ(done, calls);
    EXPECT_EQ(total, points.size());
  });
  EXPECT_EQ(calls, points.size());
  ASSERT_EQ(serial.size(), points.size());
  ASSERT_EQ(parallel.size(), points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(parallel[i].point.label, points[i].label);
    EXPECT_EQ(parallel[i].status, serial[i].status) << points[i].label;
    EXPECT_EQ(parallel[i].timeUs, serial[i].timeUs) << points[i].label;
    EXPECT_EQ(parallel[i].instructions, serial[i].instructions) << points[i].label;
    const bool invalid = points[i].kernelParams.at("bm") == 384;
    EXPECT_EQ(serial[i].status, invalid ? SweepRow::Status::Invalid : SweepRow::Status::Ok) << points[i].label;
    if (invalid) {
      EXPECT_NE(serial[i].message.find("bm"), std::string::npos) << serial[i].message;
      EXPECT_EQ(serial[i].timeUs, 0);
    } else {
      EXPECT_GT(serial[i].timeUs, 0);
      EXPECT_GT(serial[i].instructions, 0u);
    }
  }
  // Different blockings take different simulated times, and the sort puts them fastest first, invalid last.
  std::vector<SweepRow> sorted = serial;
  sortBySimulatedTime(sorted);
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].ran())
      EXPECT_LE(sorted[i - 1].timeUs, sorted[i].timeUs);
  EXPECT_FALSE(sorted.back().ran());
  EXPECT_NE(sorted.front().timeUs, sorted[3].timeUs);

  const std::string csv = sweepCsv(sorted, axes);
  std::istringstream lines(csv);
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  EXPECT_EQ(header, "bm,bn,status,time_us,achieved_tflops,instructions,sim_seconds,wall_seconds,message");
  EXPECT_EQ(first.rfind(fmt::format("{},{},ok,", sorted.front().point.kernelParams.at("bm"),
                                    sorted.front().point.kernelParams.at("bn")),
                        0),
            0u)
      << first;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + static_cast<long>(points.size()));

  const nlohmann::json j = sweepJson(sorted, axes, blockedMatmul());
  EXPECT_EQ(j["kernel"], "matmul_blocked");
  EXPECT_EQ(j["rows"].size(), points.size());
  EXPECT_EQ(j["rows"][0]["status"], "ok");
  EXPECT_EQ(j["rows"][0]["time_us"].get<double>(), sorted.front().timeUs);
  EXPECT_EQ(j["rows"].back()["status"], "invalid");
  EXPECT_FALSE(j["rows"].back().contains("time_us"));
}

TEST(Sweep, RowsSurviveTheTripBetweenProcessesExactly) {
  // What an MPI rank sends rank 0 (SweepRanks::gather): every field, the doubles to the last bit.
  const std::vector<SweepAxis> axes = {{Kind::KernelParam, "bm", {128, 384}}, {Kind::KernelParam, "bn", {512}}};
  const std::vector<SweepRow> rows = runSweep(blockedMatmul(), sweepPoints(axes), 1);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[1].status, SweepRow::Status::Invalid); // a row with a message and no times
  const std::vector<SweepRow> back = decodeRows(encodeRows(rows));
  ASSERT_EQ(back.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(back[i].point.shape, rows[i].point.shape);
    EXPECT_EQ(back[i].point.kernelParams, rows[i].point.kernelParams);
    EXPECT_EQ(back[i].point.label, rows[i].point.label);
    EXPECT_EQ(back[i].status, rows[i].status);
    EXPECT_EQ(back[i].message, rows[i].message);
    EXPECT_EQ(back[i].timeUs, rows[i].timeUs);
    EXPECT_EQ(back[i].achievedTflops, rows[i].achievedTflops);
    EXPECT_EQ(back[i].instructions, rows[i].instructions);
    EXPECT_EQ(back[i].simSeconds, rows[i].simSeconds);
    EXPECT_EQ(back[i].wallSeconds, rows[i].wallSeconds);
    EXPECT_EQ(back[i].busyPercent, rows[i].busyPercent);
  }
  EXPECT_EQ(sweepTable(back, axes), sweepTable(rows, axes));
  EXPECT_TRUE(decodeRows(encodeRows({})).empty());
  for (const char *bad : {"", "{", "[{}]", "[{\"status\": 9}]"})
    EXPECT_THROW(decodeRows(bad), Error) << bad;
}

/// Runs the CLI; returns its exit status and stdout.
std::pair<int, std::string> cli(const std::string &args) {
  const std::string command = std::string(TESSERA_CLI) + " " + args + " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get()))
    out.append(buffer, n);
  const int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(Sweep, CommandLineTableJsonCsvAndExitStatus) {
  const std::filesystem::path csv = std::filesystem::temp_directory_path() / "tessera-sweep-test.csv";
  std::filesystem::remove(csv);
  const std::string base = "sweep matmul_blocked --target trn2 --shape M=512,N=1024,K=512 --timing-only --jobs 2 ";
  auto [status, out] = cli(base + "--param bm=128,384 --param bn=512 --json --csv " + csv.string());
  EXPECT_EQ(status, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out); // --json: nothing but the object on stdout
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["status"], "ok");
  EXPECT_EQ(j["rows"][1]["status"], "invalid");
  std::ifstream file(csv);
  std::string header;
  std::getline(file, header);
  EXPECT_EQ(header.rfind("bm,bn,status,", 0), 0u) << header;

  auto [tableStatus, table] = cli(base + "--param bm=128,256");
  EXPECT_EQ(tableStatus, 0);
  EXPECT_NE(table.find("2 combinations"), std::string::npos) << table;
  EXPECT_NE(table.find("time_us"), std::string::npos) << table;

  EXPECT_EQ(cli(base + "--param bm=384").first, 2);          // nothing could run
  EXPECT_EQ(cli(base + "--param nosuch=1,2").first, 2);      // not a parameter of the kernel
  EXPECT_EQ(cli(base + "--param bm=128 --jobs 0").first, 2); // bad usage
  EXPECT_EQ(cli("sweep no_such_kernel --param bm=1").first, 2);
}

} // namespace
} // namespace tessera::driver
