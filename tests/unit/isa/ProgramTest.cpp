/// \file
/// isa::Program helpers (names, access-pattern arithmetic, counts) and the user-facing Error.

#include "tessera/isa/Program.h"

#include <gtest/gtest.h>

namespace tessera::isa {
namespace {

using Extent = std::pair<int64_t, int64_t>;

TEST(ProgramNames, MemSpacesAndEngines) {
  EXPECT_EQ(name(MemSpace::Hbm), "hbm");
  EXPECT_EQ(name(MemSpace::Sbuf), "sbuf");
  EXPECT_EQ(name(MemSpace::Psum), "psum");
  EXPECT_EQ(name(Engine::Tensor), "tensor");
  EXPECT_EQ(name(Engine::Vector), "vector");
  EXPECT_EQ(name(Engine::Scalar), "scalar");
  EXPECT_EQ(name(Engine::GpSimd), "gpsimd");
  EXPECT_EQ(name(Engine::Dma), "dma");
}

TEST(ProgramNames, OpcodesAluOpsAndFunctions) {
  EXPECT_EQ(name(Opcode::DmaCopy), "dma_copy");
  EXPECT_EQ(name(Opcode::Matmul), "matmul");
  EXPECT_EQ(name(Opcode::TensorTensor), "tensor_tensor");
  EXPECT_EQ(name(Opcode::Activation), "activation");
  EXPECT_EQ(name(Opcode::TensorReduce), "tensor_reduce");
  EXPECT_EQ(name(Opcode::TensorCopy), "tensor_copy");
  EXPECT_EQ(name(Opcode::Memset), "memset");
  EXPECT_EQ(name(AluOp::Add), "add");
  EXPECT_EQ(name(AluOp::Subtract), "subtract");
  EXPECT_EQ(name(AluOp::Multiply), "multiply");
  EXPECT_EQ(name(AluOp::Max), "max");
  EXPECT_EQ(name(AluOp::Min), "min");
  EXPECT_EQ(name(AluOp::Divide), "divide");
  EXPECT_EQ(name(ActFunc::Identity), "identity");
  EXPECT_EQ(name(ActFunc::Exp), "exp");
}

TEST(StreamLabel, ComputeEnginesUseTheirNameAndDmaItsQueue) {
  Stream stream;
  stream.engine = Engine::GpSimd;
  EXPECT_EQ(stream.label(), "gpsimd");
  stream.engine = Engine::Dma;
  stream.queue = 3;
  EXPECT_EQ(stream.label(), "dma3");
  stream.queue = 12;
  EXPECT_EQ(stream.label(), "dma12");
}

TEST(AccessPattern, DenseOnChip) {
  const AccessPattern ap = AccessPattern::dense(MemSpace::Sbuf, DType::BF16, 32, 64, 1024, 512);
  EXPECT_EQ(ap.space, MemSpace::Sbuf);
  EXPECT_EQ(ap.partitionStart, 32u);
  EXPECT_EQ(ap.partitions, 64u);
  EXPECT_EQ(ap.tensor, -1);
  EXPECT_EQ(ap.freeRank, 1);
  EXPECT_EQ(ap.sizes[0], 512);
  EXPECT_EQ(ap.strides[0], 1);
  EXPECT_EQ(ap.freeElements(), 512);
  EXPECT_EQ(ap.bytes(), 64 * 512 * 2);
  // Relative to each partition's start: 512 bf16 elements from byte 1024.
  EXPECT_EQ(ap.byteExtent(), Extent(1024, 1024 + 1024));
}

TEST(AccessPattern, DenseInHbmCoversAllRows) {
  const AccessPattern ap = AccessPattern::dense(MemSpace::Hbm, DType::F32, 0, 4, 256, 128);
  EXPECT_EQ(ap.partitionStride, 128);
  EXPECT_EQ(ap.bytes(), 4 * 128 * 4);
  // Elements [256, 256 + 4 * 128) of the tensor, in bytes.
  EXPECT_EQ(ap.byteExtent(), Extent(256 * 4, (256 + 512) * 4));
}

TEST(AccessPattern, StridedWalkOnChip) {
  AccessPattern ap;
  ap.space = MemSpace::Psum;
  ap.dtype = DType::F32;
  ap.partitions = 128;
  ap.offset = 64;
  ap.freeRank = 2;
  ap.sizes = {3, 5, 0, 0};
  ap.strides = {10, 2, 0, 0};
  EXPECT_EQ(ap.freeElements(), 15);
  // The last element is at 2 * 10 + 4 * 2 = 28 elements: bytes [64, 64 + 29 * 4).
  EXPECT_EQ(ap.byteExtent(), Extent(64, 64 + 29 * 4));
}

TEST(AccessPattern, NegativeStrideReachesBelowOffset) {
  AccessPattern ap;
  ap.space = MemSpace::Sbuf;
  ap.dtype = DType::F16;
  ap.partitions = 1;
  ap.offset = 100;
  ap.freeRank = 1;
  ap.sizes[0] = 4;
  ap.strides[0] = -3;
  // Elements at 0, -3, -6, -9 relative to byte 100.
  EXPECT_EQ(ap.byteExtent(), Extent(100 - 18, 102));
}

TEST(AccessPattern, HbmRowsWithPaddingAndTransposedWalk) {
  // A [4 x 8] column block of a row-major [4 x 100] f8 tensor starting at column 10, walked column-major.
  AccessPattern ap;
  ap.space = MemSpace::Hbm;
  ap.dtype = DType::F8E4M3;
  ap.tensor = 0;
  ap.partitions = 4;
  ap.partitionStride = 100;
  ap.offset = 10;
  ap.freeRank = 2;
  ap.sizes = {2, 4, 0, 0};
  ap.strides = {1, 2, 0, 0};
  EXPECT_EQ(ap.freeElements(), 8);
  EXPECT_EQ(ap.bytes(), 32);
  // Last element: row 3, column 10 + 1 + 6 = 17 -> 3 * 100 + 17 = 317.
  EXPECT_EQ(ap.byteExtent(), Extent(10, 318));
}

TEST(AccessPattern, EmptyPatternTouchesNothing) {
  AccessPattern ap = AccessPattern::dense(MemSpace::Sbuf, DType::F32, 0, 8, 40, 0);
  EXPECT_EQ(ap.bytes(), 0);
  EXPECT_EQ(ap.byteExtent(), Extent(40, 40));
  ap = AccessPattern::dense(MemSpace::Hbm, DType::F32, 0, 0, 5, 16);
  EXPECT_EQ(ap.byteExtent(), Extent(20, 20));
}

TEST(AccessPattern, NoFreeDimensionsIsOneElementPerPartition) {
  AccessPattern ap;
  ap.partitions = 16;
  ap.dtype = DType::BF16;
  ap.offset = 8;
  EXPECT_EQ(ap.freeElements(), 1);
  EXPECT_EQ(ap.bytes(), 32);
  EXPECT_EQ(ap.byteExtent(), Extent(8, 10));
}

TEST(TensorInfo, ElementsAndBytes) {
  TensorInfo t{"a", {128, 512}, DType::BF16, false};
  EXPECT_EQ(t.elements(), 128 * 512);
  EXPECT_EQ(t.bytes(), 128 * 512 * 2);
  t.shape = {};
  EXPECT_EQ(t.elements(), 1);
  t.shape = {4, 0, 3};
  EXPECT_EQ(t.elements(), 0);
}

TEST(Program, InstructionCountSumsAllStreams) {
  Program program;
  EXPECT_EQ(program.instructionCount(), 0u);
  program.streams.resize(3);
  program.streams[0].instructions.resize(5);
  program.streams[2].instructions.resize(7);
  EXPECT_EQ(program.instructionCount(), 12u);
}

TEST(Program, WaitsAndSignalsOfAnInstruction) {
  Program program;
  program.waits = {{0, 1}, {2, 3}, {1, 1}};
  program.signals = {4, 5, 6};
  Instruction inst;
  inst.waitBegin = 1;
  inst.waitCount = 2;
  inst.signalBegin = 2;
  inst.signalCount = 1;
  ASSERT_EQ(program.waitsOf(inst).size(), 2u);
  EXPECT_EQ(program.waitsOf(inst)[0].sem, 2u);
  EXPECT_EQ(program.waitsOf(inst)[1].count, 1u);
  ASSERT_EQ(program.signalsOf(inst).size(), 1u);
  EXPECT_EQ(program.signalsOf(inst)[0], 6u);
}

} // namespace
} // namespace tessera::isa

namespace tessera {
namespace {

TEST(SourceLoc, Str) {
  EXPECT_EQ(SourceLoc{}.str(), "");
  EXPECT_EQ((SourceLoc{"kernel.cpp", 0, 0}).str(), "kernel.cpp");
  EXPECT_EQ((SourceLoc{"kernel.cpp", 42, 7}).str(), "kernel.cpp:42");
}

TEST(Error, MessageWithLocationAndHint) {
  const Error error("tile does not fit in SBUF", {"matmul.cpp", 12, 3}, "use a smaller tile");
  EXPECT_STREQ(error.what(), "matmul.cpp:12: error: tile does not fit in SBUF\n  hint: use a smaller tile");
  EXPECT_EQ(error.message(), "tile does not fit in SBUF");
  EXPECT_EQ(error.where().line, 12u);
  EXPECT_EQ(error.hint(), "use a smaller tile");
}

TEST(Error, MessageWithoutLocationOrHint) {
  const Error error("no such target 'trn9'");
  EXPECT_STREQ(error.what(), "error: no such target 'trn9'");
  EXPECT_TRUE(error.hint().empty());
  EXPECT_FALSE(error.where().known());
}

TEST(Error, IsARuntimeError) {
  try {
    throw Error("bad", {"t.toml", 0, 0});
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "t.toml: error: bad");
    return;
  }
  FAIL() << "not caught as std::runtime_error";
}

TEST(Program, TextOfViewsTheStoredName) {
  // Regression (found building tests/fuzz with clang, -Wreturn-stack-address): textOf returned a view of a
  // std::string temporary copied from the name, which dangled once it returned.
  isa::Program program;
  program.texts = {"a Print name longer than the small-string buffer"};
  isa::Instruction print;
  print.op = isa::Opcode::Print;
  print.text = 0;
  const std::string_view text = program.textOf(print);
  EXPECT_EQ(text.data(), program.texts[0].data());
  EXPECT_EQ(text, "a Print name longer than the small-string buffer");
  print.text = 1;
  EXPECT_EQ(program.textOf(print), "");
}

} // namespace
} // namespace tessera
