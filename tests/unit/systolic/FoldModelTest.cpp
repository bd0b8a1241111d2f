/// The closed-form fold model: the mapping of M, N, K per dataflow, the cycles of a fold, the access counts on
/// small cases worked by hand, the choice of model, and the errors users see.

#include "tessera/isa/Error.h"
#include "tessera/systolic/Model.h"

#include <gtest/gtest.h>

namespace tessera::systolic {
namespace {

ArrayConfig array(int64_t rows, int64_t cols, Dataflow dataflow) {
  ArrayConfig config;
  config.rows = rows, config.cols = cols, config.dataflow = dataflow;
  return config;
}

TEST(Mapping, GemmDimensionsOnRowsColumnsAndTime) {
  Gemm g{10, 20, 30};
  Mapping os = mapGemm(array(4, 8, Dataflow::OutputStationary), g);
  EXPECT_EQ((std::tuple{os.spatialRows, os.spatialCols, os.temporal}), (std::tuple<int64_t, int64_t, int64_t>{10, 20, 30}));
  EXPECT_EQ((std::tuple{os.rowDim, os.colDim, os.timeDim}), (std::tuple{'M', 'N', 'K'}));
  Mapping ws = mapGemm(array(4, 8, Dataflow::WeightStationary), g);
  EXPECT_EQ((std::tuple{ws.spatialRows, ws.spatialCols, ws.temporal}), (std::tuple<int64_t, int64_t, int64_t>{30, 20, 10}));
  EXPECT_EQ((std::tuple{ws.rowDim, ws.colDim, ws.timeDim}), (std::tuple{'K', 'N', 'M'}));
  Mapping is = mapGemm(array(4, 8, Dataflow::InputStationary), g);
  EXPECT_EQ((std::tuple{is.spatialRows, is.spatialCols, is.temporal}), (std::tuple<int64_t, int64_t, int64_t>{30, 10, 20}));
  EXPECT_EQ((std::tuple{is.rowDim, is.colDim, is.timeDim}), (std::tuple{'K', 'M', 'N'}));
  EXPECT_EQ((std::pair{ws.rowFolds, ws.colFolds}), (std::pair<int64_t, int64_t>{8, 3})); // ceil(30/4), ceil(20/8)
}

TEST(Mapping, CyclesPerFold) {
  Gemm g{10, 20, 30};
  // R = 3, C = 5: ws/is 2R + C + T - 2, os R + C + T - 2.
  EXPECT_EQ(mapGemm(array(3, 5, Dataflow::WeightStationary), g).cyclesPerFold, 6 + 5 + 10 - 2);
  EXPECT_EQ(mapGemm(array(3, 5, Dataflow::InputStationary), g).cyclesPerFold, 6 + 5 + 20 - 2);
  EXPECT_EQ(mapGemm(array(3, 5, Dataflow::OutputStationary), g).cyclesPerFold, 3 + 5 + 30 - 2);
}

TEST(FoldModel, FourByFourArrayEightCubed) {
  // 2 x 2 folds in every dataflow; each operand is 64 elements.
  Gemm g{8, 8, 8};
  Result os = runFoldModel(array(4, 4, Dataflow::OutputStationary), g);
  EXPECT_EQ(os.computeCycles, 4 * (4 + 4 + 8 - 2));
  EXPECT_EQ(os.ifmap, (OperandTraffic{128, 0, 64, 0})); // A read once per column fold
  EXPECT_EQ(os.filter, (OperandTraffic{128, 0, 64, 0}));
  EXPECT_EQ(os.ofmap, (OperandTraffic{0, 64, 0, 64}));
  Result ws = runFoldModel(array(4, 4, Dataflow::WeightStationary), g);
  EXPECT_EQ(ws.computeCycles, 4 * (8 + 4 + 8 - 2));
  EXPECT_EQ(ws.ifmap, (OperandTraffic{128, 0, 64, 0}));
  EXPECT_EQ(ws.filter, (OperandTraffic{64, 0, 64, 0}));  // each weight loaded once
  EXPECT_EQ(ws.ofmap, (OperandTraffic{0, 128, 0, 128})); // a partial C per K fold
  Result is = runFoldModel(array(4, 4, Dataflow::InputStationary), g);
  EXPECT_EQ(is.ifmap, (OperandTraffic{64, 0, 64, 0}));
  EXPECT_EQ(is.filter, (OperandTraffic{128, 0, 64, 0}));
  EXPECT_EQ(is.ofmap, (OperandTraffic{0, 128, 0, 128}));
  for (const Result *r : {&os, &ws, &is}) {
    EXPECT_EQ(r->macs, 512);
    EXPECT_DOUBLE_EQ(r->mappingEfficiency, 1.0);
    EXPECT_DOUBLE_EQ(r->utilization, 512.0 / (double(r->computeCycles) * 16));
  }
}

TEST(FoldModel, PartlyUsedFoldsLowerMappingEfficiency) {
  // ws on 4x4, K = 6, N = 5: folds use 4x4, 2x4, 4x1, 2x1 PEs of 16: (16 + 8 + 4 + 2) / 64.
  Result r = runFoldModel(array(4, 4, Dataflow::WeightStationary), {3, 5, 6});
  EXPECT_EQ(r.usedPeFolds, 30);
  EXPECT_DOUBLE_EQ(r.mappingEfficiency, 30.0 / 64.0);
}

TEST(FoldModel, TpuSizedLayer) {
  // 1024^3 on 128x128: 8 x 8 folds. SCALE-Sim 2.0.2 reports Total Cycles 89983 for ws (ScaleSimTable.inc).
  Gemm g{1024, 1024, 1024};
  Result ws = runFoldModel(array(128, 128, Dataflow::WeightStationary), g);
  EXPECT_EQ(ws.computeCycles, 64 * (256 + 128 + 1024 - 2));
  EXPECT_EQ(ws.ifmap.sramReads, 8 * 1024 * 1024);
  EXPECT_EQ(ws.ofmap.sramWrites, 8 * 1024 * 1024);
  EXPECT_EQ(ws.ifmap.dramReads, 1024 * 1024); // A (1 Mi words) fits the active half of 6 MiB
}

TEST(FoldModel, SmallSramFetchesAgain) {
  // 1 KiB SRAMs hold epochs of 500 fetches. os: A (100 x 70 = 7000 words) is read once per column fold (8 of
  // them, N = 60 on 8 columns) and never fits, so every read misses.
  ArrayConfig config = array(8, 8, Dataflow::OutputStationary);
  config.sramKiB = {1, 1, 1};
  Result r = runFoldModel(config, {100, 60, 70});
  EXPECT_EQ(r.ifmap.sramReads, 8 * 7000);
  EXPECT_EQ(r.ifmap.dramReads, 8 * 7000);
}

TEST(FoldModel, HugeGemmIsInstant) {
  // 2^48 MACs on a 1x1 array: 2^32 folds; nothing here may loop over folds or cycles.
  Gemm g{1 << 16, 1 << 16, 1 << 16};
  for (Dataflow d : {Dataflow::WeightStationary, Dataflow::OutputStationary, Dataflow::InputStationary}) {
    Result r = runFoldModel(array(1, 1, d), g);
    EXPECT_EQ(r.mapping.folds(), int64_t(1) << 32);
    EXPECT_EQ(r.macs, int64_t(1) << 48);
  }
}

TEST(Model, DefaultIsPeForSmallArraysAndRuns) {
  Gemm small{64, 64, 64};
  EXPECT_EQ(defaultModel(array(32, 32, Dataflow::WeightStationary), small), ModelKind::Pe);
  EXPECT_EQ(defaultModel(array(4, 32, Dataflow::WeightStationary), small), ModelKind::Pe);
  EXPECT_EQ(defaultModel(array(33, 32, Dataflow::WeightStationary), small), ModelKind::Fold);
  EXPECT_EQ(defaultModel(array(128, 128, Dataflow::WeightStationary), small), ModelKind::Fold);
  // 32x32 with 1024^3 would step about 10^9 PE-cycles.
  EXPECT_EQ(defaultModel(array(32, 32, Dataflow::WeightStationary), {1024, 1024, 1024}), ModelKind::Fold);
}

TEST(Model, ParsesNames) {
  EXPECT_EQ(parseDataflow("ws"), Dataflow::WeightStationary);
  EXPECT_EQ(parseDataflow("os"), Dataflow::OutputStationary);
  EXPECT_EQ(parseDataflow("is"), Dataflow::InputStationary);
  EXPECT_EQ(parseModelKind("pe"), ModelKind::Pe);
  EXPECT_EQ(parseModelKind("fold"), ModelKind::Fold);
  Gemm g = parseGemm("100,60,70");
  EXPECT_EQ((std::tuple{g.m, g.n, g.k}), (std::tuple<int64_t, int64_t, int64_t>{100, 60, 70}));
  EXPECT_EQ(parseSramKiB("1,2,3"), (std::array<int64_t, 3>{1, 2, 3}));
}

TEST(ModelErrors, BadInputNamesTheFlag) {
  auto message = [](auto &&f) {
    try {
      f();
    } catch (const Error &e) {
      return e.message();
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { parseDataflow("rs"); }).find("--dataflow"), std::string::npos);
  EXPECT_NE(message([] { parseModelKind("exact"); }).find("--model"), std::string::npos);
  for (const char *bad : {"1,2", "1,2,3,4", "a,2,3", "0,1,1", "1,-1,1", "", "1,,2", "1,2,3x"})
    EXPECT_NE(message([&] { parseGemm(bad); }).find("--gemm"), std::string::npos) << bad;
  EXPECT_NE(message([] { parseSramKiB("1,2"); }).find("--sram-kib"), std::string::npos);
  EXPECT_NE(message([] { validate(array(0, 4, Dataflow::WeightStationary), {1, 1, 1}); }).find("--rows"),
            std::string::npos);
  EXPECT_NE(message([] { validate(array(4, 0, Dataflow::WeightStationary), {1, 1, 1}); }).find("--cols"),
            std::string::npos);
  EXPECT_NE(message([] { validate(array(4, 4, Dataflow::WeightStationary), {1 << 20, 1 << 20, 1 << 20}); })
                .find("2^50"),
            std::string::npos);
  EXPECT_NE(message([] { runFoldModel(array(4, 4, Dataflow::WeightStationary), {0, 1, 1}); }).find("--gemm"),
            std::string::npos);
}

} // namespace
} // namespace tessera::systolic
