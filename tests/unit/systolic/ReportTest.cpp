/// What `tessera systolic` prints: the text report, the JSON keys scripts read, an animation frame and the SVG.

#include "tessera/systolic/Model.h"
#include "tessera/systolic/Report.h"
#include "tessera/systolic/Wavefront.h"
#include "tessera/systolic/scalesim/GemmRun.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

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
  // 3.4e7 cycles on 128x128, but a 2^32-word ifmap (a set number for each address): too much memory.
  ArrayConfig big = array(128, 128, Dataflow::WeightStationary);
  Gemm tall{1 << 22, 5, 1 << 10};
  nlohmann::json k = toJson(big, tall, runFoldModel(big, tall), scalesim::scaleSimGemm(big, tall));
  EXPECT_TRUE(k["scalesim"].is_null());
  EXPECT_NE(k["scalesim_skipped"].get<std::string>().find("MiB of memory"), std::string::npos) << k.dump();
  // A corner where SCALE-Sim's own prefetcher fails (no cycles for a prefetch): not run, the models stand alone.
  ArrayConfig wide = array(1, 2048, Dataflow::WeightStationary);
  wide.sramKiB = {1, 1, 1};
  Gemm thin{4, 2048, 1};
  nlohmann::json w = toJson(wide, thin, runFoldModel(wide, thin), scalesim::scaleSimGemm(wide, thin));
  EXPECT_TRUE(w["scalesim"].is_null());
  EXPECT_NE(w["scalesim_skipped"].get<std::string>().find("prefetcher has no cycles"), std::string::npos) << w.dump();
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

/// A label of the SVG and its box, estimated as the layout estimates it (labelWidth, kLabel*Em).
struct Label {
  std::string body;
  double left = 0, right = 0, top = 0, bottom = 0;
};

std::vector<Label> labels(const std::string &svg, double *width = nullptr, double *height = nullptr) {
  std::smatch root;
  static const std::regex rootRe(R"re(<svg [^>]*width="([0-9.]+)" height="([0-9.]+)"[^>]*font-size="([0-9.]+)")re");
  EXPECT_TRUE(std::regex_search(svg, root, rootRe));
  if (root.empty()) return {};
  if (width) *width = std::stod(root[1]);
  if (height) *height = std::stod(root[2]);
  const double rootSize = std::stod(root[3]);
  std::vector<Label> out;
  std::regex textRe(R"re(<text ([^>]*)>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), textRe); it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[1], body = (*it)[2];
    auto attr = [&](const char *name) {
      std::smatch m;
      return std::regex_search(attrs, m, std::regex(std::string("(^| )") + name + R"re(="([^"]*)")re")) ? m[2].str()
                                                                                                     : std::string();
    };
    const double x = std::stod(attr("x")), y = std::stod(attr("y"));
    const double size = attr("font-size").empty() ? rootSize : std::stod(attr("font-size"));
    const double w = labelWidth(body, size, attr("font-weight") == "bold");
    const std::string anchor = attr("text-anchor");
    Label l;
    l.body = body;
    l.left = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
    l.right = l.left + w;
    l.top = y - kLabelAscentEm * size, l.bottom = y + kLabelDescentEm * size;
    out.push_back(l);
  }
  return out;
}

std::string svgOf(const ArrayConfig &config, const Gemm &g) {
  WavefrontRecorder recorder;
  PeModelOptions options;
  options.observer = std::ref(recorder);
  Result r = runPeModel(config, g, options);
  return recorder.svg(config, g, r);
}

// Reported on a 4x4 array: the two panels' headings overprinted each other.
TEST(Wavefront, SvgLabelsNeverOverlap) {
  struct Case {
    int64_t rows, cols;
    Dataflow dataflow;
    Gemm gemm;
  };
  for (const Case &c : {Case{1, 1, Dataflow::WeightStationary, {1, 1, 1}},
                        Case{1, 1, Dataflow::OutputStationary, {3, 2, 40}},
                        Case{4, 4, Dataflow::WeightStationary, {8, 8, 8}},
                        Case{4, 4, Dataflow::OutputStationary, {6, 4, 5}},
                        Case{2, 16, Dataflow::InputStationary, {40, 9, 5}},
                        Case{16, 2, Dataflow::WeightStationary, {7, 5, 33}},
                        Case{32, 32, Dataflow::OutputStationary, {64, 64, 64}},
                        Case{32, 32, Dataflow::WeightStationary, {1000, 100, 70}}}) {
    ArrayConfig config = array(c.rows, c.cols, c.dataflow);
    std::string svg = svgOf(config, c.gemm);
    double width = 0, height = 0;
    std::vector<Label> ls = labels(svg, &width, &height);
    SCOPED_TRACE(::testing::Message() << c.rows << "x" << c.cols << " " << shortName(c.dataflow));
    ASSERT_GE(ls.size(), 10u);
    for (size_t a = 0; a < ls.size(); ++a) {
      EXPECT_TRUE(ls[a].left >= 0 && ls[a].right <= width && ls[a].top >= 0 && ls[a].bottom <= height)
          << "'" << ls[a].body << "' runs off the " << width << "x" << height << " picture";
      for (size_t b = a + 1; b < ls.size(); ++b) {
        bool overlap = ls[a].left < ls[b].right && ls[b].left < ls[a].right && ls[a].top < ls[b].bottom &&
                       ls[b].top < ls[a].bottom;
        EXPECT_FALSE(overlap) << "'" << ls[a].body << "' [" << ls[a].left << ", " << ls[a].right << "] x ["
                              << ls[a].top << ", " << ls[a].bottom << "] overlaps '" << ls[b].body << "' ["
                              << ls[b].left << ", " << ls[b].right << "] x [" << ls[b].top << ", " << ls[b].bottom
                              << "]";
      }
    }
  }
}

// A PE outside the fold's slice never holds a weight of the GEMM: during the load it passes bubbles ('o'), as it
// does while the ifmap streams, and only PEs that end up holding a weight show 'w'. 4x4 ws, GEMM M=8 N=3 K=6:
// two row folds (K = 4 + 2), the last column unused in both.
TEST(Wavefront, OnlyWeightsOfTheGemmLoad) {
  ArrayConfig config = array(4, 4, Dataflow::WeightStationary);
  Gemm g{8, 3, 6};
  std::vector<std::vector<std::string>> load(2); // the load cycles' frames of each fold
  PeModelOptions options;
  options.observer = [&](const CycleView &v) {
    if (v.foldCycle < v.rows) load[size_t(v.fold)].push_back(renderFrame(v));
  };
  runPeModel(config, g, options);
  auto grid = [](const std::string &frame) { return frame.substr(frame.find("+\n") + 2); };
  auto count = [&](const std::vector<std::string> &frames, char c) { // in the PEs, not the header line
    size_t n = 0;
    for (const std::string &f : frames) {
      std::string g = grid(f);
      n += size_t(std::count(g.begin(), g.end(), c));
    }
    return n;
  };
  ASSERT_EQ(load[0].size(), 4u);
  ASSERT_EQ(load[1].size(), 4u);
  // Fold 1: the block's rows shift down from the top; column 3 passes bubbles.
  EXPECT_EQ(count(load[0], 'w'), size_t(3 + 6 + 9 + 12));
  EXPECT_EQ(grid(load[0][3]), "  |wwwo|\n  |wwwo|\n  |wwwo|\n  |wwwo|\n  +----+\n");
  // Fold 2 (K rows 4, 5): the block's last row goes in first, so the two padding rows pass down ahead of the
  // weights and stay in rows 2 and 3, which hold no weight of this fold.
  EXPECT_EQ(grid(load[1][0]), "  |oooo|\n  |....|\n  |....|\n  |....|\n  +----+\n");
  EXPECT_EQ(grid(load[1][1]), "  |oooo|\n  |oooo|\n  |....|\n  |....|\n  +----+\n");
  EXPECT_EQ(grid(load[1][2]), "  |wwwo|\n  |oooo|\n  |oooo|\n  |....|\n  +----+\n");
  EXPECT_EQ(grid(load[1][3]), "  |wwwo|\n  |wwwo|\n  |oooo|\n  |oooo|\n  +----+\n");
  EXPECT_EQ(count(load[1], 'w'), 9u);

  // The SVG's snapshots of fold 1 (cycles 0, 3, 6, 10, 13, 17 of 18) colour the same PEs as loading.
  std::string svg = svgOf(config, g);
  size_t blue = 0;
  for (size_t at = svg.find("fill=\"#74add1\""); at != std::string::npos; at = svg.find("fill=\"#74add1\"", at + 1))
    ++blue;
  EXPECT_EQ(blue, size_t(3 + 12));
}

} // namespace
} // namespace tessera::systolic
