// The access rules of engine instructions (docs/memory.md) through the whole path: a DSL kernel whose memset
// walks more elements per partition than SBUF access patterns allow is a compile error at the memset's line,
// and a row of exactly 64K elements, one more than a uint16 size holds, is lowered as two dimensions and runs; a
// partition slice (Tile::partition_slice) at a start the engines cannot reach is a compile error at its line, and
// one at an allowed start runs.

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/Error.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;

int memsetLine = 0;

// y = 2 everywhere, by loading x into a [128, N] BF16 tile and filling it with tsr::isa::memset.
const tsr::Registration wideMemset{{
    .name = "test_wide_memset",
    .summary = "fills a [128, N] BF16 tile with 2 (AccessRulesTest)",
    .params = {{"N", 65536}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {128, p["N"]}, tsr::bf16),
                                              tsr::output("y", {128, p["N"]}, tsr::bf16)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      tsr::Tile t = tsr::load(x.tile(0, 0, {128, x.dim(1)}));
      tsr::isa::memset(t, 2.0f); memsetLine = __LINE__;
      tsr::store(y.tile(0, 0, {128, x.dim(1)}), t);
    }),
    .reference =
        [](const tsr::Params &, const std::vector<tsr::HostTensor> &, std::vector<tsr::HostTensor> &out) {
          for (float &v : out[0]) v = 2.0f;
        },
}};

TEST(AccessRules, SixtyFourKElementsPerPartitionRun) {
  // 65536 BF16 = 128 KiB per partition: the most an SBUF access pattern walks, in two uint16-sized dimensions.
  // trn1 has the least SBUF (176 KiB per partition), which still holds it.
  driver::RunReport r = driver::runKernel({.kernel = "test_wide_memset", .target = "trn1"});
  EXPECT_TRUE(r.ok);
}

TEST(AccessRules, MoreElementsPerPartitionAreAnErrorAtTheKernelLine) {
  tsr::Params params;
  const tsr::graph::KernelGraph graph =
      driver::traceKernel(driver::findKernel("test_wide_memset"), {{"N", 65536 + 64}}, params);
  try {
    compiler::compile(graph, isa::Target::find("trn2"));
    FAIL() << "expected an access-rule error";
  } catch (const Error &e) {
    EXPECT_EQ(e.where().line, static_cast<uint32_t>(memsetLine)) << e.what();
    EXPECT_NE(e.where().file.find("AccessRulesTest.cpp"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("breaks the access rules of trn2: it touches 65600 elements per partition; an "
                               "access of sbuf touches at most 65536"),
              std::string::npos)
        << e.message();
  }
}

int sliceLine = 0;

// y = 2 x on rows [start, start + rows) of one block of 128: a partition slice of x's tile, doubled on the Vector
// engine into the same partitions of a second tile, stored from there.
const tsr::Registration partitionSlice{{
    .name = "test_partition_slice_start",
    .summary = "doubles a partition slice of a [128, 64] tile (AccessRulesTest)",
    .kernelParams = {{"start", 32}, {"rows", 32}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {128, 64}, tsr::f32),
                                              tsr::output("y", {p["rows"], 64}, tsr::f32)};
        },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm y) {
      tsr::Tile t = tsr::load(x.tile(0, 0, {128, 64}));
      tsr::Tile d = tsr::ndarray<tsr::f32>({128, 64});
      tsr::isa::tensor_scalar(d.partition_slice(p["start"], p["rows"]), t.partition_slice(p["start"], p["rows"]), tsr::op::multiply, 2.0f); sliceLine = __LINE__;
      tsr::store(y.tile(0, 0, {p["rows"], 64}), d.partition_slice(p["start"], p["rows"]));
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          for (int64_t r = 0; r < p["rows"]; ++r)
            for (int64_t c = 0; c < 64; ++c) out[0][r * 64 + c] = 2 * in[0][(p["start"] + r) * 64 + c];
        },
}};

TEST(AccessRules, PartitionSlicesAtAllowedStartsRun) {
  for (const char *target : {"trn1", "trn2"})
    for (auto [start, rows] : {std::pair{64, 64}, {96, 32}, {32, 20}, {64, 20}}) {
      driver::RunReport r = driver::runKernel(
          {.kernel = "test_partition_slice_start", .target = target, .kernelParams = {{"start", start}, {"rows", rows}}});
      EXPECT_TRUE(r.ok) << target << " start=" << start << " rows=" << rows;
    }
}

TEST(AccessRules, APartitionSliceAtAStartEnginesCannotReachIsAnErrorAtItsLine) {
  // 64 partitions start at 0 or 64 (the NeuronCore architecture guide); 32 is a quadrant's start, not a half's.
  tsr::Params params;
  const tsr::graph::KernelGraph graph = driver::traceKernel(driver::findKernel("test_partition_slice_start"), {},
                                                            params, {{"start", 32}, {"rows", 64}});
  try {
    compiler::compile(graph, isa::Target::find("trn2"));
    FAIL() << "expected an access-rule error";
  } catch (const Error &e) {
    EXPECT_EQ(e.where().line, static_cast<uint32_t>(sliceLine)) << e.what();
    EXPECT_NE(e.message().find("breaks the access rules of trn2: it starts at partition 32, but an access of 64 "
                               "partitions starts at a multiple of 64"),
              std::string::npos)
        << e.message();
  }
}

int tpuStoreLine = 0;

// The same with language ops, for a TPU: rows [start, start + rows) of x's tile doubled into the same rows of a
// second tile (a vector operation), stored from there (a DMA from VMEM).
const tsr::Registration tpuPartitionSlice{{
    .name = "test_tpu_partition_slice_start",
    .summary = "doubles a partition slice of a [128, 128] tile with language ops (AccessRulesTest)",
    .kernelParams = {{"start", 32}, {"rows", 20}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {128, 128}, tsr::f32),
                                              tsr::output("y", {p["rows"], 128}, tsr::f32)};
        },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm y) {
      tsr::Tile t = tsr::load(x.tile(0, 0, {128, 128}));
      tsr::Tile d = tsr::ndarray<tsr::f32>({128, 128});
      tsr::assign(d.partition_slice(p["start"], p["rows"]), t.partition_slice(p["start"], p["rows"]) * 2.0f);
      tsr::store(y.tile(0, 0, {p["rows"], 128}), d.partition_slice(p["start"], p["rows"])); tpuStoreLine = __LINE__;
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          for (int64_t r = 0; r < p["rows"]; ++r)
            for (int64_t c = 0; c < 128; ++c) out[0][r * 128 + c] = 2 * in[0][(p["start"] + r) * 128 + c];
        },
}};

// A TPU copies VMEM in whole tiles of rows (8 of f32): a DMA from rows 32.. runs, one from rows 4.. is an error at
// the store's line, which libtpu 0.0.50.1 also refuses ("Offsets along tiled dimensions must be aligned to tiles").
TEST(AccessRules, ATpuCopiesAPartitionSliceFromAWholeTileOfRows) {
  driver::RunReport r = driver::runKernel({.kernel = "test_tpu_partition_slice_start", .target = "tpu-v5e"});
  EXPECT_TRUE(r.ok) << driver::toText(r);
  try {
    (void)driver::runKernel(
        {.kernel = "test_tpu_partition_slice_start", .target = "tpu-v5e", .kernelParams = {{"start", 4}}});
    FAIL() << "expected a TPU copy-alignment error";
  } catch (const Error &e) {
    EXPECT_EQ(e.where().line, static_cast<uint32_t>(tpuStoreLine)) << e.what();
    EXPECT_EQ(e.message(), "a store from partitions [4, 24) of tile 't1' [128, 128] f32: tpu-v5e copies VMEM in tiles of "
                           "8 rows of this dtype, so a DMA's first row is a multiple of 8; start the slice there, or "
                           "copy its rows into a tile of their own first (vector operations take any rows)");
  }
}

} // namespace
