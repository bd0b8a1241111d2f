/// \file
/// TPU target files (isa/targets/tpu-*.toml): every built-in one loads, its published peak is what its MXUs
/// deliver at its clock, its ridge point is the one docs/targets.md lists, the shared fields the rest of Tessera
/// reads are filled, and every kind of bad TPU file is an Error that names the file, the line and the field.

#include "TargetTestSupport.h"

#include "tessera/isa/Family.h"
#include "tessera/isa/Error.h"
#include "tessera/isa/Target.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace tessera::isa {
namespace {

using namespace targettest;

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;

const std::vector<std::string> kTpuTargets = {"tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-7x"};

/// FLOP per HBM byte at which one TensorCore turns from memory- to compute-bound (BF16 peak / its HBM share).
double ridgeFlopsPerByte(const Target &t) { return t.tensor.peakBf16Tflops * 1000 / t.hbm.perCoreGBps(); }

// ---------------------------------------------------------------------------------------------------------------
// Every built-in TPU target

class EachTpuTarget : public ::testing::TestWithParam<std::string> {};

TEST_P(EachTpuTarget, LoadsAsATpuWithNothingPartitioned) {
  const Target t = Target::find(GetParam());
  EXPECT_EQ(t.name, GetParam());
  EXPECT_EQ(t.family, "tpu");
  EXPECT_EQ(&tessera::isa::familyOf(t), tessera::isa::findFamily("tpu"));
  EXPECT_FALSE(t.description.empty());
  EXPECT_EQ(t.partitions, 0u);
  EXPECT_EQ(t.sbufBytesPerPartition, 0u);
  EXPECT_EQ(t.psumBytesPerPartition, 0u);
  EXPECT_EQ(t.psumBanks, 0u);
  EXPECT_EQ(t.gpsimd.clockGhz, 0.0); // no GpSimd engine
}

TEST_P(EachTpuTarget, PublishedPeakIsTheMxusAtTheClockWithinTheFilesTolerance) {
  const Target t = Target::find(GetParam());
  const double derived = t.tpu.mxus * t.tpuCost.mxuRowsPerCycle * double(t.tensor.rows) * t.tensor.cols * 2 *
                         t.tensor.clockGhz / 1000;
  EXPECT_DOUBLE_EQ(t.mxuPeakBf16Tflops(), derived);
  EXPECT_GT(t.tpu.peakTolerance, 0.0);
  EXPECT_LE(t.tpu.peakTolerance, 0.01); // rounding of three-digit published figures, no more
  EXPECT_TRUE(near(derived, t.tensor.peakBf16Tflops, t.tpu.peakTolerance))
      << derived << " vs " << t.tensor.peakBf16Tflops;
}

TEST_P(EachTpuTarget, KnowsHowLibtpuNamesItAndWhatVmemItGivesAKernel) {
  const Target t = Target::find(GetParam());
  EXPECT_FALSE(t.tpu.libtpuTopology.empty());
  EXPECT_NE(t.tpu.libtpuTopology.find('='), std::string::npos) << t.tpu.libtpuTopology; // "v5e=1x1"
  EXPECT_GE(t.tpu.scopedVmemDefaultBytes, 16 * kMiB);
  EXPECT_LE(t.tpu.scopedVmemDefaultBytes, t.tpu.kernelVmemMaxBytes);
  EXPECT_LE(t.tpu.kernelVmemMaxBytes, t.tpu.vmemBytes);
}

TEST(TpuTargetWithoutLibtpu, LoadsWithNoLibtpuFigures) {
  std::string text = readText(builtinFile("tpu-v5e"));
  text = text.substr(0, text.find("[libtpu]"));
  const fs::path file = fs::temp_directory_path() / ("tessera-tpu-nolibtpu-" + std::to_string(::getpid()) + ".toml");
  writeText(file, text);
  const Target t = Target::load(file);
  fs::remove(file);
  EXPECT_TRUE(t.tpu.libtpuTopology.empty());
  EXPECT_EQ(t.tpu.scopedVmemDefaultBytes, 0u);
  EXPECT_EQ(t.tpu.kernelVmemMaxBytes, 0u);
}

TEST_P(EachTpuTarget, PeaksArePerTensorCore) {
  const Target t = Target::find(GetParam());
  EXPECT_EQ(t.tpu.tensorCoresPerChip, t.hbm.coresPerChip);
  EXPECT_DOUBLE_EQ(t.tensor.peakFp32Tflops, t.tensor.peakBf16Tflops / t.tpuCost.mxuFp32Passes);
  // FP8 and INT8, where published, run at least at the BF16 rate.
  if (t.tensor.peakFp8Tflops > 0) {
    EXPECT_GE(t.tensor.peakFp8Tflops, t.tensor.peakBf16Tflops);
  }
  if (t.tpu.peakInt8Tops > 0) {
    EXPECT_GE(t.tpu.peakInt8Tops, t.tensor.peakBf16Tflops);
  }
}

TEST_P(EachTpuTarget, SharedFieldsDescribeTheTensorCore) {
  const Target t = Target::find(GetParam());
  // One clock for the whole TensorCore.
  EXPECT_GT(t.tensor.clockGhz, 0.0);
  EXPECT_EQ(t.vector.clockGhz, t.tensor.clockGhz);
  EXPECT_EQ(t.scalar.clockGhz, t.tensor.clockGhz);
  EXPECT_EQ(t.vector.lanes, t.tpu.sublanes * t.tpu.lanes);
  EXPECT_EQ(t.tpu.sublanes, 8u);
  EXPECT_EQ(t.tpu.lanes, 128u);
  EXPECT_EQ(t.tensor.rows % t.tpu.lanes, 0u);
  EXPECT_EQ(t.tensor.cols % t.tpu.lanes, 0u);
  // DMA: the core's share of HBM is the cap.
  EXPECT_DOUBLE_EQ(t.dma.hbmGBps, t.hbm.chipGBps / t.hbm.coresPerChip);
  EXPECT_DOUBLE_EQ(t.dma.bytesPerNs(), t.dma.hbmGBps);
  EXPECT_GT(t.dma.engines, 0u);
  EXPECT_GT(t.dma.saturatedBytesPerPartition, 0u);
}

TEST_P(EachTpuTarget, VmemBuffersStartOnWholeTiles) {
  const Target t = Target::find(GetParam());
  const uint64_t vregBytes = uint64_t{t.tpu.sublanes} * t.tpu.lanes * 4;
  EXPECT_EQ(t.tpu.vmemAlignment, vregBytes); // one (8, 128) 32-bit tile
  EXPECT_EQ(t.tpu.vmemBytes % t.tpu.vmemAlignment, 0u);
  EXPECT_EQ(t.tpu.smemBytes, 1 * kMiB); // JAX tpu_info: 1 MiB of SMEM on every generation here
}

TEST_P(EachTpuTarget, CostCoefficientsFollowTheModel) {
  const Target t = Target::find(GetParam());
  const TpuCostModel &c = t.tpuCost;
  EXPECT_EQ(c.mxuRowsPerCycle, 1u);                 // SB: [8, 128] rows per 8 cycles
  EXPECT_EQ(c.mxuWeightLoadCycles, t.tensor.rows);  // assumption: one weight row per cycle
  EXPECT_EQ(c.mxuLatencyCycles, t.tensor.rows + t.tensor.cols);
  EXPECT_EQ(c.vpuLatencyCycles, 2u);                // SB appendix C
  EXPECT_GE(c.vpuLoadSlots, 1u);
  EXPECT_GE(c.vpuStoreSlots, 1u);
  // tpu-v5e's fitted 57.3 ns (86 cycles at 1.5 GHz) per grid step and 360 ns per copy (docs/fidelity.md), which
  // the other generations assume: the step at this clock, to the nearest cycle.
  EXPECT_NEAR(c.gridStepCycles, 86.0 / 1.5 * t.tensor.clockGhz, 0.5 + 1e-9);
  EXPECT_DOUBLE_EQ(t.dma.fixedLatencyNs, 360.0);
  // [cost] by name, for the ISA reference.
  // The relayout cost fitted to libtpu's estimate per generation (docs/fidelity.md, "Relayouts"; v4 assumes v5e's).
  const double relayout = t.generation == "v6e" || t.generation == "7x" ? 3.63 : 4.71;
  EXPECT_DOUBLE_EQ(c.xluRelayoutCyclesPerVreg, relayout) << t.generation;
  EXPECT_EQ(t.costCoefficients.size(), 11u);
  const auto named = [&](const std::string &key) {
    return std::any_of(t.costCoefficients.begin(), t.costCoefficients.end(),
                       [&](const auto &entry) { return entry.first == key; });
  };
  EXPECT_TRUE(named("mxu_weight_load_cycles"));
  EXPECT_TRUE(named("grid_step_cycles"));
  EXPECT_TRUE(named("xlu_relayout_cycles_per_vreg"));
}

TEST_P(EachTpuTarget, EveryFigureHasASource) { expectEveryFigureHasASource(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Builtin, EachTpuTarget, ::testing::ValuesIn(kTpuTargets));

// ---------------------------------------------------------------------------------------------------------------
// Figures of docs/targets.md ("TPU figures: published, derived, unverified, not published")

struct RidgeCase {
  std::string target;
  double flopsPerByte; ///< the BF16 ridge point from HBM in docs/targets.md
};

void PrintTo(const RidgeCase &c, std::ostream *out) { *out << c.target; }

class TpuRidgePoint : public ::testing::TestWithParam<RidgeCase> {};

TEST_P(TpuRidgePoint, IsTargetsMdsFigure) {
  const Target t = Target::find(GetParam().target);
  EXPECT_TRUE(near(ridgeFlopsPerByte(t), GetParam().flopsPerByte, 0.01))
      << ridgeFlopsPerByte(t) << " FLOP/byte vs " << GetParam().flopsPerByte;
}

INSTANTIATE_TEST_SUITE_P(Targets, TpuRidgePoint,
                         ::testing::Values(RidgeCase{"tpu-v4", 229}, RidgeCase{"tpu-v5e", 240},
                                           RidgeCase{"tpu-v5p", 166}, RidgeCase{"tpu-v6e", 560},
                                           RidgeCase{"tpu-7x", 312}));

TEST(TpuTargets, V5eMatchesTargetsMd) {
  const Target t = Target::find("tpu-v5e");
  EXPECT_EQ(t.generation, "v5e");
  EXPECT_DOUBLE_EQ(t.tensor.clockGhz, 1.5); // SB
  EXPECT_EQ(t.tpu.mxus, 4u);
  EXPECT_EQ(t.tensor.rows, 128u);
  EXPECT_EQ(t.tensor.cols, 128u);
  EXPECT_DOUBLE_EQ(t.tensor.peakBf16Tflops, 197.0);
  EXPECT_DOUBLE_EQ(t.tpu.peakInt8Tops, 394.0);
  EXPECT_EQ(t.tpu.vmemBytes, 128 * kMiB);
  EXPECT_EQ(t.hbm.bytes, 16 * kGiB);
  EXPECT_DOUBLE_EQ(t.hbm.chipGBps, 819.0);
  EXPECT_EQ(t.hbm.coresPerChip, 1u);
}

TEST(TpuTargets, MegacoreChipsSplitPeakAndHbmOverTwoTensorCores) {
  for (const std::string name : {"tpu-v4", "tpu-v5p", "tpu-7x"}) {
    const Target t = Target::find(name);
    EXPECT_EQ(t.tpu.tensorCoresPerChip, 2u) << name;
    EXPECT_DOUBLE_EQ(t.dma.hbmGBps, t.hbm.chipGBps / 2) << name;
  }
  EXPECT_DOUBLE_EQ(Target::find("tpu-v4").tensor.peakBf16Tflops, 275.0 / 2);
  EXPECT_DOUBLE_EQ(Target::find("tpu-v5p").tensor.peakBf16Tflops, 459.0 / 2);
  EXPECT_DOUBLE_EQ(Target::find("tpu-7x").tensor.peakBf16Tflops, 2307.0 / 2);
  EXPECT_DOUBLE_EQ(Target::find("tpu-7x").tensor.peakFp8Tflops, 4614.0 / 2);
}

TEST(TpuTargets, TrilliumAndIronwoodHave256x256Mxus) {
  for (const std::string name : {"tpu-v6e", "tpu-7x"}) {
    const Target t = Target::find(name);
    EXPECT_EQ(t.tensor.rows, 256u) << name;
    EXPECT_EQ(t.tensor.cols, 256u) << name;
  }
}

TEST(TpuTargets, AllListsTheTpuTargets) {
  const std::vector<Target> targets = Target::all();
  for (const std::string &name : kTpuTargets)
    EXPECT_TRUE(std::any_of(targets.begin(), targets.end(), [&](const Target &t) { return t.name == name; }))
        << name;
}

// A user's design: twice the MXUs of a v5e, with the peak that goes with them.
TEST(TpuTargets, ModifiedCopyWithEightMxusLoads) {
  std::string text = readText(builtinFile("tpu-v5e"));
  text = replaceLine(text, "name =", "name = \"tpu-v5e-8mxu\"");
  text = replaceLine(text, "count =", "count = 8 # mine");
  text = replaceLine(text, "peak_bf16_tflops_per_chip =", "peak_bf16_tflops_per_chip = 394.0 # 2 x v5e");
  const fs::path file = fs::temp_directory_path() / ("tessera-tpu-8mxu-" + std::to_string(::getpid()) + ".toml");
  writeText(file, text);
  const Target t = Target::load(file);
  fs::remove(file);
  EXPECT_EQ(t.tpu.mxus, 8u);
  EXPECT_DOUBLE_EQ(t.tensor.peakBf16Tflops, 394.0);
  EXPECT_DOUBLE_EQ(t.tpu.peakInt8Tops, 394.0);
}

// ---------------------------------------------------------------------------------------------------------------
// Bad TPU files: each is an Error naming the file, the field and the line to fix.

class BadTpuFile : public ::testing::TestWithParam<BadFileCase> {};

TEST_P(BadTpuFile, IsAnErrorNamingTheFieldAndLine) { expectBadFileError("tpu-v5e", GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Cases, BadTpuFile,
    ::testing::Values(
        BadFileCase{"MissingField", "count =", "", "mxu.count: missing field", "[mxu]"},
        BadFileCase{"MissingTable", "[mxu]", "[mxus]", "mxu: missing table", ""},
        BadFileCase{"UnknownField", "clock_ghz =", "clock_ghz = 1.5 # ok\nclock_mhz = 1500",
                    "tensor_core.clock_mhz: unknown field", "clock_mhz"},
        BadFileCase{"NeuronCoreFieldInTpuTable", "saturated_bytes_per_row =",
                    "saturated_bytes_per_row = 512 # ok\nsaturated_bytes_per_partition = 4096",
                    "dma.saturated_bytes_per_partition: unknown field", "saturated_bytes_per_partition"},
        BadFileCase{"NeuronCoreTable", "[cost]", "[memory]\npartitions = 128\n\n[cost]",
                    "memory: a neuroncore table in a tpu target (a tpu target has [target], [tensor_core], [mxu], "
                    "[dma], [hbm], [cost], [libtpu])",
                    "[memory]"},
        BadFileCase{"UnknownTable", "[cost]", "[vpu]\nslots = 2\n\n[cost]", "vpu: unknown table", "[vpu]"},
        BadFileCase{"WrongTypeString", "count =", "count = \"4\"", "mxu.count: expected an integer, got string \"4\"",
                    "count = \"4\""},
        BadFileCase{"WrongTypeFloatForInteger", "vmem_bytes =", "vmem_bytes = 1.5e8",
                    "tensor_core.vmem_bytes: expected an integer, got 150000000.0", "vmem_bytes = 1.5e8"},
        BadFileCase{"WrongTypeStringForNumber", "clock_ghz =", "clock_ghz = \"fast\"",
                    "tensor_core.clock_ghz: expected a number, got string \"fast\"", "clock_ghz = \"fast\""},
        BadFileCase{"ZeroClock", "clock_ghz =", "clock_ghz = 0.0",
                    "tensor_core.clock_ghz: expected a positive number, got 0.0", "clock_ghz = 0.0"},
        BadFileCase{"ZeroLoadSlots", "vpu_load_slots =", "vpu_load_slots = 0",
                    "cost.vpu_load_slots: expected a positive integer, got 0", "vpu_load_slots = 0"},
        BadFileCase{"UnknownFamily", "family =", "family = \"gpu\"",
                    "target.family: expected \"neuroncore\" or \"tpu\", got string \"gpu\"", "family = \"gpu\""},
        BadFileCase{"PeakNotTheMxusAtTheClock", "count =", "count = 2",
                    "mxu.peak_bf16_tflops_per_chip: 197 TFLOPS per TensorCore", "peak_bf16_tflops_per_chip ="},
        BadFileCase{"PeakToleranceNotAFraction", "peak_tolerance =", "peak_tolerance = 1.5",
                    "mxu.peak_tolerance: expected a fraction below 1, got 1.5", "peak_tolerance = 1.5"},
        BadFileCase{"SublanesNotAPowerOfTwo", "sublanes =", "sublanes = 6",
                    "tensor_core.sublanes: expected a power of two, got 6", "sublanes = 6"},
        BadFileCase{"MxuRowsNotWholeLanes", "rows =", "rows = 200",
                    "mxu.rows: 200 is not a multiple of tensor_core.lanes (128)", "rows = 200"},
        BadFileCase{"VmemAlignmentBelowATile", "vmem_alignment =", "vmem_alignment = 1024",
                    "tensor_core.vmem_alignment: expected a power of two that is a multiple of one vreg's 4096 bytes",
                    "vmem_alignment = 1024"},
        BadFileCase{"VmemNotWholeAlignments", "vmem_bytes =", "vmem_bytes = 134217000",
                    "tensor_core.vmem_bytes: 134217000 is not a multiple of tensor_core.vmem_alignment (4096)",
                    "vmem_bytes = 134217000"},
        BadFileCase{"SmemNotWholeWords", "smem_bytes =", "smem_bytes = 1022",
                    "tensor_core.smem_bytes: 1022 is not a multiple of 4", "smem_bytes = 1022"},
        BadFileCase{"LibtpuTopologyMissing", "topology =", "", "libtpu.topology: missing field", "[libtpu]"},
        BadFileCase{"KernelVmemOverVmem", "kernel_vmem_max_bytes =", "kernel_vmem_max_bytes = 268435456",
                    "libtpu.kernel_vmem_max_bytes: 268435456 is more than the core's VMEM (tensor_core.vmem_bytes = "
                    "134217728)",
                    "kernel_vmem_max_bytes = 268435456"},
        BadFileCase{"ScopedDefaultOverKernelMax", "scoped_vmem_default_bytes =",
                    "scoped_vmem_default_bytes = 134221824",
                    "libtpu.scoped_vmem_default_bytes: 134221824 is more than a kernel may have "
                    "(libtpu.kernel_vmem_max_bytes = 134217728)",
                    "scoped_vmem_default_bytes = 134221824"},
        BadFileCase{"LibtpuUnknownField", "topology =", "topology = \"v5e=1x1\"\nvmem_limit_mib = 16",
                    "libtpu.vmem_limit_mib: unknown field", "vmem_limit_mib"}),
    [](const ::testing::TestParamInfo<BadFileCase> &info) { return info.param.label; });

// A TPU table in a NeuronCore file is named as such too.
TEST(BadNeuronCoreFile, TpuTableIsNamed) {
  expectBadFileError("trn2", BadFileCase{"TpuTableInNeuronCore", "[cost]", "[mxu]\ncount = 4\n\n[cost]",
                                         "mxu: a tpu table in a neuroncore target", "[mxu]"});
}

} // namespace
} // namespace tessera::isa
