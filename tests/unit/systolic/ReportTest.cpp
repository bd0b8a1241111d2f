/// What `tessera systolic` prints: the text report, the JSON keys scripts read, an animation frame and the SVG.

#include "tessera/systolic/Model.h"
#include "tessera/systolic/Report.h"
#include "tessera/systolic/Wavefront.h"
#include "tessera/systolic/scalesim/GemmRun.h"

#include <gtest/gtest.h>

namespace tessera::systolic {
namespace {

ArrayConfig array(int64_t rows, int64_t cols, Dataflow dataflow) {
  ArrayConfig config;
  config.rows = rows, config.cols = cols, config.dataflow = dataflow;
  return config;
}

TEST(Report, JsonHasTheCountsScriptsRead) {
  ArrayConfig config = array(4, 4, Dataflow::OutputStationary);
  Gemm g{8, 8, 8};
  nlohmann::json j = toJson(config, g, runPeModel(config, g), scalesim::scaleSimGemm(config, g));
  EXPECT_EQ(j["compute_cycles"], 56);
  EXPECT_EQ(j["model"], "pe");
  EXPECT_EQ(j["dataflow"], "os");
  EXPECT_DOUBLE_EQ(j["utilization"].get<double>(), 512.0 / (56 * 16));
  EXPECT_DOUBLE_EQ(j["mapping_efficiency"].get<double>(), 1.0);
  EXPECT_EQ(j["ifmap_sram_reads"], 128);
  EXPECT_EQ(j["filter_sram_reads"], 128);
  EXPECT_EQ(j["ofmap_sram_writes"], 64);
  EXPECT_EQ(j["ifmap_dram_reads"], 64);
  EXPECT_EQ(j["filter_dram_reads"], 64);
  EXPECT_EQ(j["ofmap_dram_writes"], 64);
  EXPECT_EQ(j["mapping"]["time"], "K");
  EXPECT_EQ(j["folds"]["total"], 4);
  EXPECT_EQ(j["values_checked"], true);
  // SCALE-Sim v3 under its own names and conventions: last cycle's index; os adds rows + cols per fold to the
  // ofmap writes (tests/unit/systolic/scalesim3/cases/calc-os-4x4-gemm-8x8x8 has the same numbers).
  EXPECT_EQ(j["scalesim"]["Total Cycles"], 55);
  EXPECT_EQ(j["scalesim"]["SRAM OFMAP Writes"], 64 + 4 * 8);
  EXPECT_EQ(j["scalesim"]["version"], "3.0.0");
}

TEST(Report, ScaleSimIsSkippedNotGuessedWhenTooLongToRun) {
  ArrayConfig config = array(4, 4, Dataflow::WeightStationary);
  Gemm g{1 << 20, 1 << 12, 1 << 12}; // 2^16 folds of 2^20 cycles: the fold model's business alone
  nlohmann::json j = toJson(config, g, runFoldModel(config, g), scalesim::scaleSimGemm(config, g));
  EXPECT_TRUE(j["scalesim"].is_null());
  EXPECT_NE(j["scalesim_skipped"].get<std::string>().find("cycles to simulate one by one"), std::string::npos);
}

TEST(Report, TextNamesTheMappingAndTheFolds) {
  ArrayConfig config = array(128, 128, Dataflow::WeightStationary);
  Gemm g{1024, 1024, 1024};
  std::string text = toText(config, g, runFoldModel(config, g), scalesim::scaleSimGemm(config, g));
  EXPECT_NE(text.find("128x128 systolic array, weight stationary (ws)"), std::string::npos) << text;
  EXPECT_NE(text.find("rows <- K=1024, cols <- N=1024, time <- M=1024"), std::string::npos) << text;
  EXPECT_NE(text.find("8 row x 8 col = 64, 1406 cycles each (2R + C + T - 2)"), std::string::npos) << text;
  EXPECT_NE(text.find("89984 cycles"), std::string::npos) << text;
  EXPECT_NE(text.find("Total Cycles 89983"), std::string::npos) << text;
  EXPECT_NE(text.find("SCALE-Sim's google.cfg: --sram-kib I,F,O for yours"), std::string::npos) << text;
}

TEST(Wavefront, FrameShowsOneCharacterPerPe) {
  std::vector<std::string> frames;
  PeModelOptions options;
  options.observer = [&](const CycleView &v) { frames.push_back(renderFrame(v)); };
  runPeModel(array(2, 3, Dataflow::WeightStationary), {2, 3, 2}, options);
  ASSERT_EQ(frames.size(), size_t(2 * 2 + 3 + 2 - 2));
  // Cycle 2 (the first streaming cycle): PE (0, 0) multiplies, the rest wait.
  EXPECT_EQ(frames[2], "cycle 2  fold 1/1 (row fold 1, col fold 1) cycle 2: 1 MACs, 1 SRAM reads, 0 SRAM writes\n"
                       "  +---+\n"
                       "  |#..|\n"
                       "  |...|\n"
                       "  +---+\n");
  EXPECT_NE(frames[0].find("|www|\n  |...|"), std::string::npos) << frames[0];
}

TEST(Wavefront, SvgDrawsTheArrayAndTheRun) {
  ArrayConfig config = array(4, 6, Dataflow::InputStationary);
  Gemm g{12, 9, 10};
  WavefrontRecorder recorder;
  PeModelOptions options;
  options.observer = std::ref(recorder);
  Result r = runPeModel(config, g, options);
  std::string svg = recorder.svg(config, g, r);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>\n"), std::string::npos);
  EXPECT_NE(svg.find("<title>PE (0, 0): cycle 4</title>"), std::string::npos); // R cycles of loading first
  EXPECT_NE(svg.find("<title>PE (3, 5): cycle 12</title>"), std::string::npos); // R + i + j
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
}

} // namespace
} // namespace tessera::systolic
