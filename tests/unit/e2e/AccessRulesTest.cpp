// The access rules of engine instructions (docs/memory.md) through the whole path: a DSL kernel whose memset
// walks more elements per partition than SBUF access patterns allow is a compile error at the memset's line,
// and a row of exactly 64K elements, one more than a uint16 size holds, is lowered as two dimensions and runs.

#include "tessera/Driver.h"
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

} // namespace
