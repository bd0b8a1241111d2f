#pragma once
/// \file
/// A target: every figure of one simulated machine, read at run time from a TOML file in isa/targets/.
/// Nothing in the compiler or simulator hard-codes a hardware number; it reads it from here. A user can copy a
/// target file, change it (a 64x64 array, twice the SBUF) and simulate a machine that does not exist.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace tessera::isa {

/// One compute engine's clock and width.
struct EngineSpec {
  double clockGhz = 0;  ///< engine clock; its instruction costs are in these cycles
  unsigned lanes = 0;   ///< elements processed per cycle across partitions (128 = one per partition)
};

/// The tensor engine (systolic array).
struct TensorEngineSpec : EngineSpec {
  unsigned rows = 0, cols = 0;         ///< PE array size
  unsigned maxContraction = 0;         ///< K: partitions of both operands (<= rows)
  unsigned maxStationaryFree = 0;      ///< M: stationary free size (output partitions)
  unsigned maxMovingFree = 0;          ///< N: moving free size (FP32 results; one PSUM bank, all 8 on v4)
  double peakBf16Tflops = 0;           ///< published peak, for the roofline and "% of peak"
  double peakFp32Tflops = 0;
  double peakFp8Tflops = 0;            ///< FP8 peak (the double-row rate; MX formats are not modelled)
  /// Whether a matmul may accumulate onto PSUM that a non-matmul instruction (memset, a copy, a DMA) wrote
  /// (`accumulate_onto_non_matmul = "defined"`); on NeuronCore v2/v3 it is undefined, and the simulator's
  /// kernel-bug checks report it.
  bool accumulateOntoNonMatmulDefined = false;
  /// Row tiling (nc_matmul tile_position/tile_size): the most equal row tiles the PE rows split into, so that
  /// small matmuls run side by side (2: 2x64 on NeuronCore-v2; 4: 4x32 from v3; 1: no row tiling).
  unsigned maxRowTiles = 0;
  /// FP8 double row mode's throughput gain (nc_matmul perf_mode=double_row, v3 on); 0 where the mode does not
  /// exist.
  unsigned fp8DoubleRowSpeedup = 0;
  /// The NKI dtype the tensor engine takes for FP8 E4M3 operands (`fp8_e4m3`): "float8_e4m3" (IEEE-style, with
  /// infinities, largest finite 240) on NeuronCore v2/v3, "float8_e4m3fn" (OCP, no infinities, 448) from v4.
  /// Tessera computes FP8 E4M3 as the OCP format, which holds the same values up to 240.
  std::string fp8E4m3 = "float8_e4m3fn";
};

/// HBM: one per chip, shared by the chip's cores.
struct HbmSpec {
  uint64_t bytes = 0;                  ///< capacity per chip
  double chipGBps = 0;                 ///< bandwidth per chip (GB/s == bytes/ns)
  unsigned coresPerChip = 0;           ///< cores sharing it
  /// The cores one SPMD launch runs on (`launch_cores`; at most coresPerChip; optional, 1): trn2/trn3's logical
  /// NeuronCore of two physical cores, a TPU v4/v5p megacore. The launch's programs are spread over them.
  unsigned launchCores = 1;
  /// One core's share: chipGBps / coresPerChip (every core streaming at once).
  double perCoreGBps() const { return coresPerChip ? chipGBps / coresPerChip : 0; }
};

/// DMA engines of one core. A transfer's time is modelled in isa/DmaCost.h and the simulator's
/// sim/lib/memory/DmaEngines.h.
struct DmaSpec {
  unsigned engines = 0;                ///< DMA engines (rings) per core
  /// NeuronCore: the partitions one engine moves of a transfer, which streams on the engines of its partitions at
  /// once (8: 128 partitions over 16 engines). 0 (TPU): a transfer streams on its queue's engine alone.
  unsigned partitionsPerEngine = 0;
  unsigned queues = 0;                 ///< instruction queues the compiler spreads transfers over
  double bytesPerNsPerEngine = 0;      ///< one engine's peak bandwidth (GB/s == bytes/ns)
  double fixedLatencyNs = 0;           ///< per-transfer fixed cost: the least time a transfer takes in its queue
  double descriptorNs = 0;             ///< NeuronCore: descriptor generation per transfer, serial over the core's
                                       ///< transfers (hardware DGE: ~600 ns per DMA); 0: none
  uint64_t saturatedBytesPerPartition = 0; ///< contiguous bytes per partition at which an engine reaches its peak
  double efficiencyKneeBytes = 0;      ///< shape of the efficiency curve below that (isa::dmaEfficiency)
  double hbmGBps = 0;                  ///< HBM bandwidth available to this core: HbmSpec::perCoreGBps(), set on load
  /// NeuronCore: a DMA transpose's throughput as a fraction of a copy's, from HBM (transpose_hbm_efficiency) and
  /// from SBUF (transpose_sbuf_efficiency); 0 where the generation has no DMA transpose.
  double transposeHbmEfficiency = 0, transposeSbufEfficiency = 0;
  /// Aggregate peak bandwidth the core's DMA reaches: engines x per-engine, capped by the core's HBM share.
  double bytesPerNs() const;
};

/// Which engines share a memory port (NeuronCore-v2: the later of two conflicting accesses waits).
struct PortConflicts {
  bool vectorGpsimdSbuf = false;       ///< Vector and GpSimd cannot access SBUF at the same time
  bool vectorScalarPsum = false;       ///< Vector and Scalar cannot access PSUM at the same time
};

/// Limits on the SBUF/PSUM access patterns of engine instructions (isa/AccessRules.h applies them).
struct AccessLimits {
  unsigned partitionQuadrant = 0;      ///< partition-start granule: n partitions start at a multiple of the
                                       ///< smallest quadrant x 2^k >= n
  unsigned maxFreeDims = 0;            ///< free dimensions of one pattern
  uint64_t maxSize = 0;                ///< size of one free dimension (uint16: 65535)
  int64_t maxStride = 0;               ///< |stride| of one free dimension, in elements (int16: 32767; -32768 too)
  uint64_t maxSbufElements = 0;        ///< elements per partition of one SBUF pattern
  uint64_t maxPsumElements = 0;        ///< elements per partition of one PSUM pattern
};

/// Instruction cost coefficients (engine cycles). Each one's source is in the target file.
struct CostModel {
  unsigned matmulMinCycles = 0;        ///< MultiplyMoving initiation interval floor: II = max(N, this)
  unsigned matmulFp32Factor = 0;       ///< FP32 operands run this many times slower
  unsigned accessOverheadCycles = 0;   ///< fixed cost of every SBUF/PSUM access by Vector/Scalar/GpSimd
  unsigned minInitiationCycles = 0;    ///< Vector/Scalar minimum initiation interval
  unsigned twoInputFactor = 0;         ///< tensor_tensor with two SBUF inputs costs this many times N
  unsigned gpsimdStartupCycles = 0;    ///< GpSimd per-instruction start-up
  unsigned staticOverheadCycles = 0;   ///< Vector/Scalar: added to a tiny or back-to-back dependent instruction
  unsigned tinyFreeElements = 0;       ///< "tiny": fewer elements per partition than this
  unsigned dependencyCommitCycles = 0; ///< a dependent instruction waits this long for its producer's output
  unsigned stridedAccessBytes = 0;     ///< a minor-dimension stride over this many bytes ...
  unsigned stridedAccessFactor = 0;    ///< ... divides the access bandwidth by this
  unsigned reciprocalCyclesPerElement = 0; ///< Vector-engine reciprocal: max(min II, this x N)
  // Reductions and statistics: their documented coefficients, and the element limits their verify reads.
  unsigned actReadAccumulatorCycles = 0;  ///< activation_reduce: reading the reduction registers out, after N
  unsigned scanCyclesPerElement = 0;      ///< tensor_tensor_scan: cycles per element (2N)
  unsigned bnAggrCyclesPerTriple = 0;     ///< bn_aggr: cycles per (count, mean, M2) triple (13N/3)
  unsigned bnStatsMaxElements = 0;        ///< bn_stats: most input elements per partition (bn_stats_fmax)
  unsigned max8MaxElements = 0;           ///< max8, nc_find_index8, nc_match_replace8: most elements per partition
  unsigned loadStationaryFactor = 0;   ///< LoadStationary moves this many stationary columns per cycle
  unsigned transposeMinCycles = 0;     ///< tensor-engine transpose: max(P, min(this, F))
  unsigned localGatherIndexCycles = 0; ///< local_gather: cycles per index beyond its elements
  unsigned localGatherWordBytes = 0;   ///< local_gather moves elements in words of this many bytes
};

/// What only a TPU TensorCore has (family "tpu"). The MXUs are `tensor` (rows x cols each, `mxus` of them, at
/// tensor.clockGhz), the VPU is `vector`, the scalar core `scalar`; DMA and HBM are `dma` and `hbm` as on the
/// NeuronCore. See isa/targets/tpu-*.toml for each figure's source.
struct TpuSpec {
  unsigned tensorCoresPerChip = 0;     ///< TensorCores per chip (2 on the megacore v4/v5p and on TPU7x)
  unsigned mxus = 0;                   ///< MXUs per TensorCore
  unsigned sublanes = 0, lanes = 0;    ///< one vreg: sublanes x lanes 32-bit elements (8 x 128)
  unsigned vregs = 0;                  ///< vector registers
  unsigned scalarRegisters = 0;        ///< scalar registers
  uint64_t vmemBytes = 0;              ///< VMEM per TensorCore
  uint64_t smemBytes = 0;              ///< SMEM per TensorCore
  uint64_t vmemAlignment = 0;          ///< bytes a VMEM buffer starts at a multiple of (one (8, 128) 32-bit tile)
  double peakInt8Tops = 0;             ///< published INT8 peak per TensorCore (0: none published)
  double peakTolerance = 0;            ///< how far (a fraction) the published BF16 peak may be from mxuPeakBf16Tflops()
  /// The optional [libtpu] table: how the real TPU compiler (PyPI's libtpu) names this generation and what it
  /// allows by default. Empty / 0 when the file has no [libtpu] table (a machine libtpu does not know).
  std::string libtpuTopology;          ///< jax.experimental.topologies.get_topology_desc's name, "v5e=1x1"
  uint64_t scopedVmemDefaultBytes = 0; ///< VMEM a kernel may use without pltpu.CompilerParams(vmem_limit_bytes=)
  uint64_t kernelVmemMaxBytes = 0;     ///< the most VMEM one kernel may have with vmem_limit_bytes raised
  uint64_t mosaicInternalVmemBytes = 0; ///< VMEM Mosaic takes beyond a kernel's own buffers, at most (observed)
};

/// TPU cost coefficients (cycles of the TensorCore clock). Each one's source is in the target file.
struct TpuCostModel {
  unsigned mxuRowsPerCycle = 0;        ///< LHS rows one MXU streams per cycle (one [8, 128] push per 8 cycles: 1)
  unsigned mxuWeightLoadCycles = 0;    ///< loading one weight tile, exposed when the MXU had no work to hide it
  unsigned mxuFp32Passes = 0;          ///< an FP32 matmul costs this many BF16 passes
  unsigned mxuLatencyCycles = 0;       ///< from the last row pushed to the last result popped
  unsigned vpuLatencyCycles = 0;       ///< a vector op's result is ready this long after issue
  unsigned vpuLoadSlots = 0;           ///< vreg loads per cycle (vld slots of a bundle)
  unsigned vpuStoreSlots = 0;          ///< vreg stores per cycle (vst slots)
  unsigned eupCyclesPerVreg = 0;       ///< a transcendental (exp, log, tanh, rsqrt, reciprocal...) per vreg
  unsigned xluReduceCycles = 0;        ///< cross-lane reduce of one vreg's rows to one value per row
  double xluRelayoutCyclesPerVreg = 0; ///< materialising one vreg of a relayout (an access pattern walked on a TPU)
  unsigned gridStepCycles = 0;         ///< the scalar core's work between two grid steps (Pallas' ~0.35 us)
};

/// One machine.
struct Target {
  std::string name;          ///< "trn2"
  std::string family;        ///< "neuroncore" or "tpu": its isa::Family (Family.h, familyOf)
  std::string generation;    ///< "v3"; TPU "v5e"...
  /// TPU: the BF16 peak of one TensorCore's MXUs at its clock, in TFLOPS:
  /// tpu.mxus x tpuCost.mxuRowsPerCycle x tensor.rows x tensor.cols x 2 x tensor.clockGhz / 1000.
  double mxuPeakBf16Tflops() const;
  std::string description;
  /// What one chip costs per hour, in US dollars ([target] price_per_chip_hour, with its source and date beside
  /// it; optional): tessera compare's price-performance. 0: no published price.
  double pricePerChipHour = 0;
  std::filesystem::path file; ///< the file it was read from

  unsigned partitions = 0;               ///< SBUF/PSUM partitions (128)
  uint64_t sbufBytesPerPartition = 0;    ///< SBUF usable by kernels, per partition
  uint64_t psumBytesPerPartition = 0;
  unsigned psumBanks = 0;
  uint64_t psumBankBytes() const { return psumBanks ? psumBytesPerPartition / psumBanks : 0; }
  PortConflicts ports;
  AccessLimits access;

  TensorEngineSpec tensor;
  EngineSpec vector, scalar, gpsimd;
  DmaSpec dma;
  HbmSpec hbm;
  CostModel cost;             ///< NeuronCore
  TpuSpec tpu;                ///< TPU only
  TpuCostModel tpuCost;       ///< TPU only
  /// Every key of the file's [cost] table with its value, by name (the ISA reference prints them).
  std::vector<std::pair<std::string, double>> costCoefficients;

  /// Instruction shape limits of the vector and GpSimd engines.
  unsigned vectorTransposeBlock = 0;  ///< nc_transpose on the vector engine: data up to [this, this]
  unsigned gpsimdPartitionsPerCore = 0; ///< each GpSimd core reaches this many contiguous partitions (local_gather)
  unsigned localGatherMaxIndices = 0;   ///< local_gather: valid indices per GpSimd core
  unsigned localGatherMaxElementsPerIndex = 0; ///< local_gather: num_elem_per_idx, a power of two up to this

  /// Reads a target file (the schema follows [target].family); a missing or ill-typed field is an Error naming
  /// the file and field.
  static Target load(const std::filesystem::path &file);
  /// Reads a target from the text of a target file, as load() reads `origin` (errors name `origin`).
  static Target parse(const std::string &text, const std::filesystem::path &origin);
  /// Finds `nameOrPath`: a path to a .toml file, or a name looked up in $TESSERA_TARGET_PATH (':'-separated)
  /// and then the built-in target directory.
  static Target find(const std::string &nameOrPath);
  /// Every target file in the search path, by name.
  static std::vector<Target> all();
  /// The built-in target directory: share/tessera/targets of the prefix Tessera is installed in (found from the
  /// library or program holding this code), or the source tree's isa/targets when run from a build tree.
  static std::filesystem::path builtinDirectory();
};

} // namespace tessera::isa
