// The NeuronCore tensor engine's cost model (isa/lib/Cost.cpp) against the systolic-array model of the same
// array, where both apply: one nc_matmul of stationary [K, M] and moving [K, N] is one weight-stationary fold
// of the GEMM C[N][M] = moving^T[N][K] * stationary[K][M] on a rows x cols array (the stationary operand is
// SCALE-Sim's filter: K along the rows, M along the columns, N streaming in time).
//
// SCALE-Sim charges 2R + C + T - 2 cycles for that fold: R + C - 1 to load and skew the weights and fill the
// array, T = N to stream the moving columns, R - 1 to drain. The NeuronCore overlaps the next LoadStationary
// with the current MultiplyMoving (docs/targets.md "nc_matmul"), so back to back matmuls pay only the
// streaming term: the documented initiation interval max(N, 64). The two models therefore differ by exactly the
// fill and drain 2R + C - 2 per matmul whenever N >= 64, and the tensor engine's floor of 64 cycles applies below
// that.

#include "tessera/isa/Cost.h"
#include "tessera/isa/Target.h"
#include "tessera/systolic/Model.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;

isa::Instruction matmulOf(int64_t k, int64_t m, int64_t n) {
  isa::Instruction i;
  i.op = isa::Opcode::Matmul;
  i.src0 = isa::AccessPattern::dense(isa::MemSpace::Sbuf, isa::DType::BF16, 0, static_cast<uint32_t>(k), 0, m);
  i.src1 = isa::AccessPattern::dense(isa::MemSpace::Sbuf, isa::DType::BF16, 0, static_cast<uint32_t>(k), 0, n);
  i.dst = isa::AccessPattern::dense(isa::MemSpace::Psum, isa::DType::F32, 0, static_cast<uint32_t>(m), 0, n);
  return i;
}

class TensorEngineCrossCheck : public testing::TestWithParam<std::string> {};

TEST_P(TensorEngineCrossCheck, StreamingTermIsTheInitiationInterval) {
  const isa::Target target = isa::Target::find(GetParam());
  const int64_t R = target.tensor.rows, C = target.tensor.cols;
  const systolic::ArrayConfig array{.rows = R, .cols = C, .dataflow = systolic::Dataflow::WeightStationary};
  for (int64_t k : {R, R / 2, int64_t{1}})
    for (int64_t m : {C, C / 4})
      for (int64_t n : {int64_t{16}, int64_t{64}, int64_t{100}, int64_t{256}, int64_t{512}}) {
        SCOPED_TRACE(testing::Message() << "K=" << k << " M=" << m << " N=" << n);
        const systolic::Gemm gemm{.m = n, .n = m, .k = k};
        systolic::validate(array, gemm);
        const systolic::Result fold = systolic::simulate(array, gemm, systolic::ModelKind::Fold);
        ASSERT_EQ(fold.mapping.folds(), 1) << "one nc_matmul fits the array in one fold";
        EXPECT_EQ(fold.mapping.temporal, n);
        const int64_t fillAndDrain = 2 * R + C - 2;
        const auto te = static_cast<int64_t>(isa::engineCycles(matmulOf(k, m, n), isa::Engine::Tensor, target));
        if (n >= target.cost.matmulMinCycles) EXPECT_EQ(te, fold.computeCycles - fillAndDrain);
        else EXPECT_EQ(te, target.cost.matmulMinCycles);
      }
}

// On an array small enough for the PE model, the same identity holds cycle for cycle (the PE model moves real
// values through the skewed array, so it also checks the mapping).
TEST(TensorEngineCrossCheck, PeModelAgreesOnASmallArray) {
  const int64_t R = 8, C = 8;
  const systolic::ArrayConfig array{.rows = R, .cols = C, .dataflow = systolic::Dataflow::WeightStationary};
  for (int64_t n : {int64_t{8}, int64_t{64}, int64_t{70}}) {
    const systolic::Gemm gemm{.m = n, .n = C, .k = R};
    const systolic::Result pe = systolic::simulate(array, gemm, systolic::ModelKind::Pe);
    EXPECT_TRUE(pe.valuesChecked);
    EXPECT_EQ(pe.computeCycles - (2 * R + C - 2), n);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, TensorEngineCrossCheck, testing::Values("trn1", "trn2", "trn3"));

} // namespace
