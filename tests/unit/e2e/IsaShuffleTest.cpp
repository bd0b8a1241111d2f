// tsr::isa::nc_stream_shuffle (tessera/dsl/isa/Shuffle.h) end to end: a registered kernel whose mask keeps every
// even partition and copies each odd one from the partition before it, across two quadrants, run on trn1 and
// trn2 against its reference (and emitted through the NKI backend by BackendCoverageTest); misuse reported at the
// kernel's line, a bad mask entry when tracing, a start the instruction's quadrant rule forbids when compiling.

#include "../dsl/DslTesting.h"

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using tsr::dsltest::expectAt;
using tsr::dsltest::kernelOf;
using tsr::dsltest::traceError;

// y[p, f] = x[p - p % 2, f]: odd partitions copy the even one before them (mask 2k + 1 -> 2k), even ones are kept
// (255), in both quadrants of 64 partitions with one mask.
const tsr::Registration pairsKernel{{
    .name = "test_isa_stream_shuffle",
    .summary = "tsr::isa::nc_stream_shuffle keeping even partitions and copying each into the odd one after it",
    .params = {{"F", 96}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {64, p["F"]}, tsr::f32),
                                              tsr::output("y", {64, p["F"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      const int64_t f = x.dim(1);
      tsr::Tile t = tsr::load(x.tile(0, 0, {64, f}));
      tsr::isa::ShuffleMask pairs;
      for (int i = 0; i < 32; ++i) pairs[i] = i % 2 == 1 ? i - 1 : tsr::isa::kShuffleKeep;
      tsr::isa::nc_stream_shuffle(t, t, pairs);
      tsr::store(y.tile(0, 0, {64, f}), t);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      const int64_t f = p["F"];
      for (int64_t row = 0; row < 64; ++row)
        for (int64_t i = 0; i < f; ++i) out[0][row * f + i] = in[0][(row - row % 2) * f + i];
    },
}};

TEST(IsaShuffle, KeptAndCopiedPartitionsMatchTheReference) {
  for (const char *target : {"trn1", "trn2"}) {
    driver::RunReport r = driver::runKernel({.kernel = "test_isa_stream_shuffle", .target = target});
    EXPECT_TRUE(r.ok) << target << "\n" << driver::toText(r);
  }
}

TEST(IsaShuffleMisuse, AMaskEntryOutsideTheQuadrantIsRefusedWhenTracing) {
  int line = 0;
  auto kernel = kernelOf({tsr::input("x", {32, 64}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {32, 64}));
    tsr::isa::ShuffleMask mask{};
    mask[5] = 40;
    line = __LINE__ + 1;
    tsr::isa::nc_stream_shuffle(a, a, mask);
  });
  tessera::Error e = traceError(kernel);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find("tsr::isa::nc_stream_shuffle: shuffle_mask[5] is 40; each entry is a "
                                       "partition of the quadrant, 0 to 31, or tsr::isa::kShuffleKeep (255)"),
            std::string::npos)
      << e.what();
}

TEST(IsaShuffleMisuse, AStartTheQuadrantRuleForbidsIsRefusedAtTheKernelsLine) {
  // 64 active partitions (src has 64): dst's slice at partition 32 must start at 0 or 64.
  int line = 0;
  auto kernel = kernelOf({tsr::input("x", {64, 64}, tsr::f32)}, [&](tsr::Hbm x) {
    tsr::Tile a = tsr::load(x.tile(0, 0, {64, 64}));
    tsr::Tile d = tsr::ndarray<tsr::f32>({64, 64});
    line = __LINE__ + 1;
    tsr::isa::nc_stream_shuffle(d.partition_slice(32, 32), a, tsr::isa::ShuffleMask{});
  });
  std::string message;
  try {
    tsr::graph::KernelGraph graph = tsr::trace(kernel, {});
    (void)compiler::compile(graph, isa::Target::find("trn2"));
  } catch (const tessera::Error &e) {
    expectAt(e, line);
    message = e.what();
  }
  EXPECT_NE(message.find("dst starts at partition 32; with 64 active partitions"), std::string::npos) << message;
}

} // namespace
