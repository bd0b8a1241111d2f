/// \file
/// windowOf on an N-D HBM tensor (hw-backends/lib/Operands.h): an access of its [rows, columns] matrix is named by
/// the leading indices of the matrix it lies in and the rows within it (NKI x[b, h, rows, columns]); one whose rows
/// run from one matrix into the next has no such name and is refused at the kernel's line.

#include "Operands.h"

#include <gtest/gtest.h>

namespace tessera::backends {
namespace {

struct Fixture {
  isa::Program program;
  isa::Instruction inst;
  KernelSource source;
  Step step;

  explicit Fixture(std::vector<int64_t> shape) {
    program.tensors.push_back({.name = "x", .shape = std::move(shape), .dtype = isa::DType::F32});
    inst.op = isa::Opcode::DmaCopy;
    source.program = &program;
    step.inst = &inst;
    step.loc = {"k.cpp", 7, 1};
  }

  /// `rows` rows of `cols` elements at element `offset` of x, rows `pitch` elements apart.
  isa::AccessPattern at(int64_t offset, uint32_t rows, int64_t cols, int64_t pitch) const {
    isa::AccessPattern ap = isa::AccessPattern::dense(isa::MemSpace::Hbm, isa::DType::F32, 0, rows, offset, cols);
    ap.tensor = 0;
    ap.partitionStride = pitch;
    return ap;
  }
};

TEST(WindowOf, LeadingIndicesOfAThreeDimensionalTensor) {
  Fixture f({3, 256, 64}); // x[2, 128:256, 16:48]
  const Window w = windowOf(f.source, f.step, f.at((2 * 256 + 128) * 64 + 16, 128, 32, 64), "NKI");
  EXPECT_EQ(w.lead, (std::vector<int64_t>{2}));
  EXPECT_EQ(w.row, 128);
  EXPECT_EQ(w.col, 16);
  EXPECT_EQ(w.rows, 128);
  EXPECT_EQ(w.cols, 32);
}

TEST(WindowOf, LeadingIndicesOfAFourDimensionalTensor) {
  Fixture f({2, 3, 128, 64}); // x[1, 2, 0:128:2, 0:64]: every other row
  const Window w = windowOf(f.source, f.step, f.at((1 * 3 + 2) * 128 * 64, 64, 64, 2 * 64), "NKI");
  EXPECT_EQ(w.lead, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(w.row, 0);
  EXPECT_EQ(w.rowStep, 2);
}

TEST(WindowOf, RowsRunningIntoTheNextMatrixAreRefused) {
  Fixture f({2, 256, 64}); // rows 192..320 of the [512, 64] matrix: 64 rows of x[0], 64 of x[1]
  try {
    (void)windowOf(f.source, f.step, f.at(192 * 64, 128, 64, 64), "NKI");
    FAIL() << "an access across two matrices was named";
  } catch (const Error &e) {
    EXPECT_EQ(e.message(), "NKI: NKI cannot express this dma_copy operand: its rows run from one [256, 64] matrix of "
                           "'x' into the next");
    EXPECT_EQ(e.where().line, 7u);
  }
}

} // namespace
} // namespace tessera::backends
