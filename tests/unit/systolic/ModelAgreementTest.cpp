/// The PE model (every PE, every cycle, real values) and the closed-form fold model agree on every number, on
/// every shape small enough for the PE model: arrays from 1x1 to 32x32, square and not, GEMMs smaller and larger
/// than the array in each dimension, and SRAMs small enough that operands are fetched from DRAM again.

#include "tessera/systolic/Model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tessera::systolic {
namespace {

struct ArrayCase {
  int64_t rows, cols;
  Dataflow dataflow;
};

std::string describe(const ArrayCase &a) { return fmt::format("{}_{}x{}", shortName(a.dataflow), a.rows, a.cols); }
std::string name(const testing::TestParamInfo<ArrayCase> &info) { return describe(info.param); }
void PrintTo(const ArrayCase &a, std::ostream *out) { *out << describe(a); }

std::vector<ArrayCase> arrays() {
  std::vector<ArrayCase> out;
  for (Dataflow d : {Dataflow::WeightStationary, Dataflow::OutputStationary, Dataflow::InputStationary})
    for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 1}, {1, 5}, {3, 1}, {2, 3}, {4, 4}, {5, 7}, {8, 8}, {7, 16}, {16, 16}, {32, 8}, {32, 32}})
      out.push_back({r, c, d});
  return out;
}

class ModelAgreement : public testing::TestWithParam<ArrayCase> {};

void expectSame(const Result &pe, const Result &fold) {
  EXPECT_EQ(pe.mapping.folds(), fold.mapping.folds());
  EXPECT_EQ(pe.computeCycles, fold.computeCycles);
  EXPECT_EQ(pe.macs, fold.macs);
  EXPECT_EQ(pe.usedPeFolds, fold.usedPeFolds);
  EXPECT_EQ(pe.utilization, fold.utilization);
  EXPECT_EQ(pe.mappingEfficiency, fold.mappingEfficiency);
  EXPECT_EQ(pe.ifmap, fold.ifmap);
  EXPECT_EQ(pe.filter, fold.filter);
  EXPECT_EQ(pe.ofmap, fold.ofmap);
}

TEST_P(ModelAgreement, EveryCountOnEveryShape) {
  const std::vector<Gemm> gemms = {{1, 1, 1},    {1, 7, 3},    {5, 1, 9},    {9, 4, 1},   {13, 17, 19},
                                   {33, 31, 65}, {64, 64, 64}, {3, 40, 100}, {100, 60, 70}};
  // Default SRAMs (everything fits), 1 KiB (epochs of 500 fetches: refetches, and epochs ending inside a
  // block), and a mixed set.
  const std::vector<std::array<int64_t, 3>> srams = {kDefaultSramKiB, {1, 1, 1}, {2, 1, 3}};
  for (const Gemm &g : gemms)
    for (const auto &sram : srams) {
      ArrayConfig config;
      config.rows = GetParam().rows, config.cols = GetParam().cols, config.dataflow = GetParam().dataflow;
      config.sramKiB = sram;
      SCOPED_TRACE(fmt::format("GEMM {}x{}x{}, SRAM {}/{}/{} KiB", g.m, g.n, g.k, sram[0], sram[1], sram[2]));
      Result pe = runPeModel(config, g);
      Result fold = runFoldModel(config, g);
      EXPECT_TRUE(pe.valuesChecked);
      expectSame(pe, fold);
    }
}

INSTANTIATE_TEST_SUITE_P(Systolic, ModelAgreement, testing::ValuesIn(arrays()), name);

} // namespace
} // namespace tessera::systolic
