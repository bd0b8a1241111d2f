/// \file
/// Reading and validating target description files (isa/targets/*.toml) with toml++.
/// Every field is required; each error names the file, the line and the field, so a user editing a copy of a
/// target sees exactly what to fix.

#include "tessera/isa/Target.h"

#include "tessera/isa/Error.h"
#include "tessera/isa/Program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#ifndef TESSERA_TARGETS_DIR
#error "TESSERA_TARGETS_DIR must be defined by the build (isa/CMakeLists.txt)"
#endif

namespace tessera::isa {

namespace fs = std::filesystem;

double DmaSpec::bytesPerNs() const { return std::min(engines * bytesPerNsPerEngine, hbmGBps); }

double Target::mxuPeakBf16Tflops() const {
  constexpr double kFlopsPerMultiplyAdd = 2, kGigaPerTera = 1000;
  return double(tpu.mxus) * tpuCost.mxuRowsPerCycle * tensor.rows * tensor.cols * kFlopsPerMultiplyAdd *
         tensor.clockGhz / kGigaPerTera;
}

#if defined(TESSERA_TARGETS_FROM_LIBDIR) && defined(TESSERA_TARGETS_FROM_BINDIR)
namespace {

/// The file holding this code: libtessera.so, or the executable it is linked into; empty if unknown.
fs::path thisBinary() {
  Dl_info info{};
  link_map *map = nullptr;
  if (dladdr1(reinterpret_cast<const void *>(&thisBinary), &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP) ==
          0 ||
      !map)
    return {};
  // The main program's link map has no name (dladdr would say argv[0], which may be relative to anywhere).
  if (map->l_name == nullptr || map->l_name[0] == '\0') {
    std::error_code error;
    fs::path exe = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path() : exe;
  }
  std::error_code error;
  fs::path library = fs::absolute(map->l_name, error);
  return error ? fs::path() : library;
}

} // namespace
#endif

fs::path Target::builtinDirectory() {
  static const fs::path directory = [] {
#if defined(TESSERA_TARGETS_FROM_LIBDIR) && defined(TESSERA_TARGETS_FROM_BINDIR)
    // Installed: share/tessera/targets beside the lib/ (or bin/) folder this code was loaded from.
    if (const fs::path binary = thisBinary(); !binary.empty())
      for (const char *relative : {TESSERA_TARGETS_FROM_LIBDIR, TESSERA_TARGETS_FROM_BINDIR}) {
        const fs::path installed = (binary.parent_path() / relative).lexically_normal();
        std::error_code error;
        if (fs::is_directory(installed, error)) return installed;
      }
#endif
    return fs::path(TESSERA_TARGETS_DIR); // a build tree: the source tree's
  }();
  return directory;
}

namespace {

constexpr std::string_view kTargetExtension = ".toml";
constexpr std::string_view kSearchPathVariable = "TESSERA_TARGET_PATH";
constexpr uint64_t kFp32Bytes = 4; ///< PSUM accumulates in FP32: what one moving-free element takes in a bank

/// One family's schema: its tables, in file order, and the built-in file that shows it complete.
struct Schema {
  std::string_view family;
  std::string_view referenceFile;
  std::vector<std::string_view> tables;
};

const Schema kNeuronCoreSchema{"neuroncore",
                               "trn2.toml",
                               {"target", "memory", "access", "tensor_engine", "vector_engine", "scalar_engine",
                                "gpsimd_engine", "dma", "hbm", "cost"}};
const Schema kTpuSchema{"tpu", "tpu-v5e.toml", {"target", "tensor_core", "mxu", "dma", "hbm", "cost", "libtpu"}};

/// The hint every schema error carries: where to find a complete target with comments.
std::string schemaHint(const Schema &schema) {
  return fmt::format("compare with {}: a complete {} target, with the meaning and source of each figure",
                     (Target::builtinDirectory() / schema.referenceFile).string(), schema.family);
}

/// The hint of an error in [target], before the family (and so the schema) is known.
std::string headerHint() {
  return fmt::format("compare with {} or {}: complete targets, with the meaning and source of each figure",
                     (Target::builtinDirectory() / kNeuronCoreSchema.referenceFile).string(),
                     (Target::builtinDirectory() / kTpuSchema.referenceFile).string());
}

SourceLoc locationOf(const fs::path &file, const toml::source_region &region) {
  return SourceLoc{file.string(), region.begin.line, region.begin.column};
}

/// A floating-point value as TOML would spell it, so 128.0 does not read as the integer 128.
std::string formatFloat(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos)
    text += ".0";
  return text;
}

/// What a TOML value is, for "expected X, got Y" messages: `string "128"`, `-3`, `2.5`, `a table`.
std::string describe(const toml::node &node) {
  switch (node.type()) {
  case toml::node_type::string: return fmt::format("string \"{}\"", node.as_string()->get());
  case toml::node_type::integer: return fmt::format("{}", node.as_integer()->get());
  case toml::node_type::floating_point: return formatFloat(node.as_floating_point()->get());
  case toml::node_type::boolean: return fmt::format("boolean {}", node.as_boolean()->get());
  case toml::node_type::table: return "a table";
  case toml::node_type::array: return "an array";
  case toml::node_type::date:
  case toml::node_type::time:
  case toml::node_type::date_time: return "a date/time";
  case toml::node_type::none: break;
  }
  return "nothing";
}

/// Whether a number field may be zero (a latency) or must be strictly positive (a clock, a bandwidth).
enum class NumberRange { Positive, NonNegative };

/// Reads the fields of one table of a target file. It remembers which keys it read so that the ones it did
/// not (usually typos) can be reported, and it knows each field's line for cross-field checks.
class TableReader {
public:
  /// `hint` is what every error of this table suggests (schemaHint).
  TableReader(const toml::table &root, std::string tableName, fs::path file, std::string hint)
      : tableName_(std::move(tableName)), file_(std::move(file)), hint_(std::move(hint)) {
    const toml::node *node = root.get(tableName_);
    if (!node)
      throw Error(fmt::format("{}: missing table [{}]", tableName_, tableName_), SourceLoc{file_.string()}, hint_);
    table_ = node->as_table();
    if (!table_)
      throw Error(fmt::format("{}: expected a table, got {}", tableName_, describe(*node)),
                  locationOf(file_, node->source()), hint_);
  }

  /// Whether the table has `key` (for an optional field: read it only when there).
  bool has(std::string_view key) const { return table_->get(key) != nullptr; }

  /// A string field; `allowEmpty` for free text such as a description.
  std::string text(std::string_view key, bool allowEmpty = false) {
    const toml::node &node = field(key);
    const auto *value = node.as_string();
    if (!value)
      throw fieldError(key, fmt::format("expected a string, got {}", describe(node)));
    if (!allowEmpty && value->get().empty())
      throw fieldError(key, "expected a non-empty string");
    return value->get();
  }

  /// An integer field in [minimum, maximum].
  uint64_t integer(std::string_view key, uint64_t minimum, uint64_t maximum = std::numeric_limits<uint32_t>::max()) {
    const toml::node &node = field(key);
    const auto *value = node.as_integer();
    if (!value)
      throw fieldError(key, fmt::format("expected an integer, got {}", describe(node)));
    const int64_t number = value->get();
    if (number < 0 || static_cast<uint64_t>(number) < minimum)
      throw fieldError(key, fmt::format("expected {}, got {}", integerRangeText(minimum), number));
    if (static_cast<uint64_t>(number) > maximum)
      throw fieldError(key, fmt::format("expected an integer <= {}, got {}", maximum, number));
    return static_cast<uint64_t>(number);
  }

  /// A boolean field.
  bool flag(std::string_view key) {
    const toml::node &node = field(key);
    const auto *value = node.as_boolean();
    if (!value)
      throw fieldError(key, fmt::format("expected true or false, got {}", describe(node)));
    return value->get();
  }

  /// A finite number field (an integer or a float).
  double number(std::string_view key, NumberRange range) {
    const toml::node &node = field(key);
    std::optional<double> value;
    if (const auto *asFloat = node.as_floating_point())
      value = asFloat->get();
    else if (const auto *asInteger = node.as_integer())
      value = static_cast<double>(asInteger->get());
    if (!value)
      throw fieldError(key, fmt::format("expected a number, got {}", describe(node)));
    const bool inRange = std::isfinite(*value) && (range == NumberRange::Positive ? *value > 0 : *value >= 0);
    if (!inRange)
      throw fieldError(key, fmt::format("expected a {} number, got {}",
                                        range == NumberRange::Positive ? "positive" : "non-negative", describe(node)));
    return *value;
  }

  /// An error about `key` (which must exist), located at its line.
  Error fieldError(std::string_view key, std::string_view message) const {
    const toml::node *node = table_->get(key);
    const SourceLoc where = node ? locationOf(file_, node->source()) : locationOf(file_, table_->source());
    return Error(fmt::format("{}: {}", qualified(key), message), where, hint_);
  }

  /// "memory.psum_banks"
  std::string qualified(std::string_view key) const { return fmt::format("{}.{}", tableName_, key); }

  /// Rejects keys no reader asked for: a misspelt field would otherwise be silently ignored.
  void rejectUnknownFields() const {
    for (const auto &[key, node] : *table_) {
      if (read_.contains(key.str()))
        continue;
      std::vector<std::string> known(read_.begin(), read_.end());
      throw Error(fmt::format("{}: unknown field (fields of [{}]: {})", qualified(key.str()), tableName_,
                              fmt::join(known, ", ")),
                  locationOf(file_, key.source()), hint_);
    }
  }

private:
  const toml::node &field(std::string_view key) {
    read_.emplace(key);
    const toml::node *node = table_->get(key);
    if (!node)
      throw Error(fmt::format("{}: missing field", qualified(key)), locationOf(file_, table_->source()), hint_);
    return *node;
  }

  static std::string integerRangeText(uint64_t minimum) {
    if (minimum == 0)
      return "a non-negative integer";
    if (minimum == 1)
      return "a positive integer";
    return fmt::format("an integer >= {}", minimum);
  }

  std::string tableName_;
  fs::path file_;
  std::string hint_;
  const toml::table *table_ = nullptr;
  std::set<std::string, std::less<>> read_;
};

bool hasTable(const Schema &schema, std::string_view table) {
  return std::find(schema.tables.begin(), schema.tables.end(), table) != schema.tables.end();
}

/// Rejects tables that `schema` does not have, naming the other family's tables as such (a [memory] table in a
/// TPU target).
void rejectUnknownTables(const toml::table &root, const fs::path &file, const Schema &schema) {
  const Schema &other = &schema == &kTpuSchema ? kNeuronCoreSchema : kTpuSchema;
  for (const auto &[key, node] : root) {
    if (hasTable(schema, key.str()))
      continue;
    const std::string what =
        hasTable(other, key.str()) ? fmt::format("a {} table in a {} target", other.family, schema.family)
                                   : std::string("unknown table");
    throw Error(fmt::format("{}: {} (a {} target has [{}])", key.str(), what, schema.family,
                            fmt::join(schema.tables, "], [")),
                locationOf(file, key.source()), schemaHint(schema));
  }
}

EngineSpec readEngine(TableReader &table) {
  EngineSpec engine;
  engine.clockGhz = table.number("clock_ghz", NumberRange::Positive);
  engine.lanes = table.integer("lanes", 1);
  return engine;
}

/// The NeuronCore checks that relate several fields; each error is located at the field that cannot be right.
void checkNeuronCoreConsistency(const Target &target, const TableReader &memory, const TableReader &access,
                      const TableReader &tensor) {
  const uint64_t psumBytes = target.psumBytesPerPartition;
  if (target.psumBanks > psumBytes)
    throw memory.fieldError("psum_banks", fmt::format("{} banks do not fit in memory.psum_bytes_per_partition "
                                                      "({} bytes): a bank would be smaller than one byte",
                                                      target.psumBanks, psumBytes));
  if (psumBytes % target.psumBanks != 0)
    throw memory.fieldError("psum_banks",
                            fmt::format("memory.psum_bytes_per_partition ({} bytes) does not split into {} equal banks",
                                        psumBytes, target.psumBanks));

  const TensorEngineSpec &array = target.tensor;
  if (array.rows > target.partitions)
    throw tensor.fieldError("rows", fmt::format("{} PE rows exceed memory.partitions ({}): each row reads one "
                                                "partition",
                                                array.rows, target.partitions));
  if (array.maxContraction > target.partitions)
    throw tensor.fieldError("max_contraction", fmt::format("{} exceeds memory.partitions ({}): the contraction runs "
                                                           "over the partitions of both operands",
                                                           array.maxContraction, target.partitions));
  if (array.maxContraction > array.rows)
    throw tensor.fieldError("max_contraction",
                            fmt::format("{} exceeds tensor_engine.rows ({})", array.maxContraction, array.rows));
  if (array.maxStationaryFree > array.cols)
    throw tensor.fieldError("max_stationary_free",
                            fmt::format("{} exceeds tensor_engine.cols ({})", array.maxStationaryFree, array.cols));
  if (array.maxStationaryFree > target.partitions)
    throw tensor.fieldError("max_stationary_free",
                            fmt::format("{} exceeds memory.partitions ({}): the stationary free size becomes the "
                                        "output's partitions",
                                        array.maxStationaryFree, target.partitions));
  // Row tiles split the PE rows evenly, and nc_matmul's mode byte names at most 4 of them (isa/Modes.h).
  if (array.maxRowTiles > 4 || (array.maxRowTiles & (array.maxRowTiles - 1)) != 0 ||
      array.rows % array.maxRowTiles != 0)
    throw tensor.fieldError("max_row_tiles", fmt::format("expected 1, 2 or 4 tiles that split tensor_engine.rows "
                                                         "({}) evenly, got {}",
                                                         array.rows, array.maxRowTiles));
  // One matmul writes one PSUM bank on v2/v3; v4 lets the moving free size span all banks (docs/targets.md
  // "nc_matmul").
  const uint64_t movingBytes = uint64_t{array.maxMovingFree} * kFp32Bytes;
  if (movingBytes > target.psumBytesPerPartition)
    throw tensor.fieldError("max_moving_free",
                            fmt::format("{} FP32 results ({} bytes) do not fit a PSUM partition ({} bytes = "
                                        "memory.psum_bytes_per_partition)",
                                        array.maxMovingFree, movingBytes, target.psumBytesPerPartition));
  if (movingBytes > target.psumBankBytes() && movingBytes % target.psumBankBytes() != 0)
    throw tensor.fieldError("max_moving_free",
                            fmt::format("{} FP32 results ({} bytes) span PSUM banks of {} bytes but not whole ones",
                                        array.maxMovingFree, movingBytes, target.psumBankBytes()));
  if (target.access.partitionQuadrant > target.partitions)
    throw access.fieldError("partition_quadrant", fmt::format("{} exceeds memory.partitions ({})",
                                                              target.access.partitionQuadrant, target.partitions));
}

/// Reads [dma]; `rowBytesKey` names the bytes per partition (NeuronCore) or per row (TPU) that saturate a transfer.
DmaSpec readDma(TableReader &dma, std::string_view rowBytesKey) {
  DmaSpec spec;
  spec.engines = dma.integer("engines", 1);
  spec.queues = dma.integer("queues", 1);
  spec.bytesPerNsPerEngine = dma.number("bytes_per_ns_per_engine", NumberRange::Positive);
  spec.fixedLatencyNs = dma.number("fixed_latency_ns", NumberRange::NonNegative);
  spec.saturatedBytesPerPartition = dma.integer(rowBytesKey, 1);
  spec.efficiencyKneeBytes = dma.number("efficiency_knee_bytes", NumberRange::NonNegative);
  return spec;
}

/// Reads [hbm] into target.hbm, and the core's share of it into target.dma (read [dma] first).
void readHbm(TableReader &hbm, Target &target) {
  target.hbm.bytes = hbm.integer("bytes", 1, std::numeric_limits<int64_t>::max());
  target.hbm.chipGBps = hbm.number("chip_gbps", NumberRange::Positive);
  target.hbm.coresPerChip = hbm.integer("cores_per_chip", 1);
  if (hbm.has("launch_cores")) target.hbm.launchCores = hbm.integer("launch_cores", 1, target.hbm.coresPerChip);
  target.dma.hbmGBps = target.hbm.perCoreGBps(); // derived: the chip's bandwidth, shared by its cores
}

/// Every [cost] coefficient by name, for the ISA reference (`tessera isa`).
void collectCostCoefficients(const toml::table &root, Target &target) {
  if (const toml::table *costTable = root["cost"].as_table())
    for (const auto &[key, node] : *costTable)
      if (std::optional<double> value = node.value<double>())
        target.costCoefficients.emplace_back(std::string(key.str()), *value);
}

/// Reads the NeuronCore tables of a parsed file into `target`, validating every field.
void readNeuronCore(const toml::table &root, const fs::path &file, TableReader &header, Target &target) {
  const std::string hint = schemaHint(kNeuronCoreSchema);
  TableReader memory(root, "memory", file, hint);
  target.partitions = memory.integer("partitions", 1);
  target.sbufBytesPerPartition = memory.integer("sbuf_bytes_per_partition", 1, std::numeric_limits<int64_t>::max());
  target.psumBytesPerPartition = memory.integer("psum_bytes_per_partition", 1, std::numeric_limits<int64_t>::max());
  target.psumBanks = memory.integer("psum_banks", 1);
  target.ports.vectorGpsimdSbuf = memory.flag("vector_gpsimd_share_sbuf_port");
  target.ports.vectorScalarPsum = memory.flag("vector_scalar_share_psum_port");

  TableReader access(root, "access", file, hint);
  target.access.partitionQuadrant = access.integer("partition_quadrant", 1);
  target.access.maxFreeDims = access.integer("max_free_dims", 1, AccessPattern::kMaxFreeDims);
  target.access.maxSize = access.integer("max_size", 1, std::numeric_limits<int64_t>::max());
  target.access.maxStride = static_cast<int64_t>(access.integer("max_stride", 1));
  target.access.maxSbufElements = access.integer("max_sbuf_elements", 1, std::numeric_limits<int64_t>::max());
  target.access.maxPsumElements = access.integer("max_psum_elements", 1, std::numeric_limits<int64_t>::max());

  TableReader tensor(root, "tensor_engine", file, hint);
  static_cast<EngineSpec &>(target.tensor) = readEngine(tensor);
  target.tensor.rows = tensor.integer("rows", 1);
  target.tensor.cols = tensor.integer("cols", 1);
  target.tensor.maxContraction = tensor.integer("max_contraction", 1);
  target.tensor.maxStationaryFree = tensor.integer("max_stationary_free", 1);
  target.tensor.maxMovingFree = tensor.integer("max_moving_free", 1);
  target.tensor.peakBf16Tflops = tensor.number("peak_bf16_tflops", NumberRange::Positive);
  target.tensor.peakFp32Tflops = tensor.number("peak_fp32_tflops", NumberRange::Positive);
  target.tensor.peakFp8Tflops = tensor.number("peak_fp8_tflops", NumberRange::Positive);
  const std::string onto = tensor.text("accumulate_onto_non_matmul");
  if (onto != "undefined" && onto != "defined")
    throw tensor.fieldError("accumulate_onto_non_matmul",
                            fmt::format("expected \"undefined\" or \"defined\", got string \"{}\"", onto));
  target.tensor.accumulateOntoNonMatmulDefined = onto == "defined";
  target.tensor.maxRowTiles = tensor.integer("max_row_tiles", 1);
  target.tensor.fp8DoubleRowSpeedup = tensor.integer("fp8_double_row_speedup", 0);
  target.tensor.fp8E4m3 = tensor.text("fp8_e4m3");
  if (target.tensor.fp8E4m3 != "float8_e4m3" && target.tensor.fp8E4m3 != "float8_e4m3fn")
    throw tensor.fieldError("fp8_e4m3", fmt::format("expected \"float8_e4m3\" or \"float8_e4m3fn\", got string "
                                                    "\"{}\"",
                                                    target.tensor.fp8E4m3));

  TableReader vector(root, "vector_engine", file, hint);
  target.vector = readEngine(vector);
  target.vectorTransposeBlock = vector.integer("transpose_block", 1);
  TableReader scalar(root, "scalar_engine", file, hint);
  target.scalar = readEngine(scalar);
  TableReader gpsimd(root, "gpsimd_engine", file, hint);
  target.gpsimd = readEngine(gpsimd);
  target.gpsimdPartitionsPerCore = gpsimd.integer("partitions_per_core", 1);
  target.localGatherMaxIndices = gpsimd.integer("local_gather_max_indices", 1);
  target.localGatherMaxElementsPerIndex = gpsimd.integer("local_gather_max_elements_per_index", 1);

  TableReader dma(root, "dma", file, hint);
  target.dma = readDma(dma, "saturated_bytes_per_partition");
  target.dma.partitionsPerEngine = dma.integer("partitions_per_engine", 1);
  target.dma.descriptorNs = dma.number("descriptor_ns", NumberRange::NonNegative);
  for (auto [key, field] : {std::pair{"transpose_hbm_efficiency", &target.dma.transposeHbmEfficiency},
                            std::pair{"transpose_sbuf_efficiency", &target.dma.transposeSbufEfficiency}}) {
    *field = dma.number(key, NumberRange::NonNegative);
    if (*field > 1.0)
      throw dma.fieldError(key, fmt::format("expected a fraction of the copy throughput (0 to 1), got {}", *field));
  }

  TableReader hbm(root, "hbm", file, hint);
  readHbm(hbm, target);

  TableReader cost(root, "cost", file, hint);
  target.cost.matmulMinCycles = cost.integer("matmul_min_cycles", 0);
  target.cost.matmulFp32Factor = cost.integer("matmul_fp32_factor", 1);
  target.cost.accessOverheadCycles = cost.integer("access_overhead_cycles", 0);
  target.cost.minInitiationCycles = cost.integer("min_initiation_cycles", 0);
  target.cost.twoInputFactor = cost.integer("two_input_factor", 1);
  target.cost.gpsimdStartupCycles = cost.integer("gpsimd_startup_cycles", 0);
  target.cost.staticOverheadCycles = cost.integer("static_overhead_cycles", 0);
  target.cost.tinyFreeElements = cost.integer("tiny_free_elements", 0);
  target.cost.dependencyCommitCycles = cost.integer("dependency_commit_cycles", 0);
  target.cost.stridedAccessBytes = cost.integer("strided_access_bytes", 1);
  target.cost.stridedAccessFactor = cost.integer("strided_access_factor", 1);
  target.cost.reciprocalCyclesPerElement = cost.integer("reciprocal_cycles_per_element", 1);
  target.cost.actReadAccumulatorCycles = cost.integer("act_read_accumulator_cycles", 0);
  target.cost.scanCyclesPerElement = cost.integer("tensor_tensor_scan_cycles_per_element", 1);
  target.cost.bnAggrCyclesPerTriple = cost.integer("bn_aggr_cycles_per_triple", 1);
  target.cost.bnStatsMaxElements = cost.integer("bn_stats_max_elements", 1);
  target.cost.max8MaxElements = cost.integer("max8_max_elements", 8);

  target.cost.loadStationaryFactor = cost.integer("load_stationary_factor", 1);
  target.cost.transposeMinCycles = cost.integer("transpose_min_cycles", 0);
  target.cost.localGatherIndexCycles = cost.integer("local_gather_index_cycles", 0);
  target.cost.localGatherWordBytes = cost.integer("local_gather_word_bytes", 1);

  collectCostCoefficients(root, target);

  for (const TableReader *table :
       {&header, &memory, &access, &tensor, &vector, &scalar, &gpsimd, &dma, &hbm, &cost})
    table->rejectUnknownFields();
  rejectUnknownTables(root, file, kNeuronCoreSchema);
  checkNeuronCoreConsistency(target, memory, access, tensor);
}

constexpr uint64_t kMaxSublanes = 1024, kMaxLanes = 65536;

bool isPowerOfTwo(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

/// The TPU checks that relate several fields; each error is located at the field that cannot be right.
void checkTpuConsistency(const Target &target, const TableReader &core, const TableReader &mxu) {
  const TpuSpec &tpu = target.tpu;
  if (!isPowerOfTwo(tpu.sublanes))
    throw core.fieldError("sublanes", fmt::format("expected a power of two, got {}", tpu.sublanes));
  if (!isPowerOfTwo(tpu.lanes))
    throw core.fieldError("lanes", fmt::format("expected a power of two, got {}", tpu.lanes));
  // The MXU takes its LHS rows' K elements, and gives its N results, along a vreg's lanes.
  if (target.tensor.rows % tpu.lanes != 0)
    throw mxu.fieldError("rows", fmt::format("{} is not a multiple of tensor_core.lanes ({}): the contraction "
                                             "runs along a vreg's lanes",
                                             target.tensor.rows, tpu.lanes));
  if (target.tensor.cols % tpu.lanes != 0)
    throw mxu.fieldError("cols", fmt::format("{} is not a multiple of tensor_core.lanes ({}): the results leave "
                                             "the MXU along a vreg's lanes",
                                             target.tensor.cols, tpu.lanes));
  // A VMEM buffer starts on a whole native tile: (8, 128) 32-bit, (16, 128) 16-bit, (32, 128) 8-bit, all the
  // bytes of one vreg.
  const uint64_t vregBytes = uint64_t{tpu.sublanes} * tpu.lanes * 4;
  if (!isPowerOfTwo(tpu.vmemAlignment) || tpu.vmemAlignment % vregBytes != 0)
    throw core.fieldError("vmem_alignment",
                          fmt::format("expected a power of two that is a multiple of one vreg's {} bytes "
                                      "(tensor_core.sublanes x tensor_core.lanes x 4), got {}",
                                      vregBytes, tpu.vmemAlignment));
  if (tpu.vmemBytes % tpu.vmemAlignment != 0)
    throw core.fieldError("vmem_bytes", fmt::format("{} is not a multiple of tensor_core.vmem_alignment ({})",
                                                    tpu.vmemBytes, tpu.vmemAlignment));
  if (tpu.smemBytes % 4 != 0)
    throw core.fieldError("smem_bytes",
                          fmt::format("{} is not a multiple of 4: SMEM holds 32-bit scalars", tpu.smemBytes));

  // The published peak must be what the MXUs deliver at the clock, or every "% of peak" would be wrong.
  if (tpu.peakTolerance >= 1)
    throw mxu.fieldError("peak_tolerance", fmt::format("expected a fraction below 1, got {}", tpu.peakTolerance));
  const double derivedTflops = target.mxuPeakBf16Tflops();
  const double publishedTflops = target.tensor.peakBf16Tflops;
  const double gap = std::abs(derivedTflops - publishedTflops) / publishedTflops;
  if (gap > tpu.peakTolerance)
    throw mxu.fieldError(
        "peak_bf16_tflops_per_chip",
        fmt::format("{} TFLOPS per TensorCore (this / hbm.cores_per_chip) is {:.1f}% away from mxu.count x "
                    "cost.mxu_rows_per_cycle x mxu.rows x mxu.cols x 2 x tensor_core.clock_ghz = {} TFLOPS, "
                    "more than mxu.peak_tolerance ({})",
                    publishedTflops, gap * 100, derivedTflops, tpu.peakTolerance));
}

/// Reads the TPU tables of a parsed file into `target`, validating every field, and fills the shared fields
/// (tensor = one MXU, vector = the VPU, scalar = the scalar core) so that the rest of Tessera reads them as it
/// reads a NeuronCore's. Nothing is partitioned: partitions, SBUF and PSUM stay 0.
void readTpu(const toml::table &root, const fs::path &file, TableReader &header, Target &target) {
  const std::string hint = schemaHint(kTpuSchema);
  TpuSpec &tpu = target.tpu;

  TableReader core(root, "tensor_core", file, hint);
  const double clockGhz = core.number("clock_ghz", NumberRange::Positive);
  // Bounded so that one vreg's bytes (sublanes x lanes x 4) cannot overflow.
  tpu.sublanes = core.integer("sublanes", 1, kMaxSublanes);
  tpu.lanes = core.integer("lanes", 1, kMaxLanes);
  tpu.vregs = core.integer("vregs", 1);
  tpu.scalarRegisters = core.integer("scalar_registers", 1);
  tpu.vmemBytes = core.integer("vmem_bytes", 1, std::numeric_limits<int64_t>::max());
  tpu.vmemAlignment = core.integer("vmem_alignment", 1, std::numeric_limits<int64_t>::max());
  tpu.smemBytes = core.integer("smem_bytes", 1, std::numeric_limits<int64_t>::max());

  TableReader mxu(root, "mxu", file, hint);
  tpu.mxus = mxu.integer("count", 1);
  target.tensor.rows = mxu.integer("rows", 1);
  target.tensor.cols = mxu.integer("cols", 1);
  const double chipBf16Tflops = mxu.number("peak_bf16_tflops_per_chip", NumberRange::Positive);
  const double chipInt8Tops = mxu.number("peak_int8_tops_per_chip", NumberRange::NonNegative);
  const double chipFp8Tflops = mxu.number("peak_fp8_tflops_per_chip", NumberRange::NonNegative);
  tpu.peakTolerance = mxu.number("peak_tolerance", NumberRange::NonNegative);

  TableReader dma(root, "dma", file, hint);
  target.dma = readDma(dma, "saturated_bytes_per_row");
  TableReader hbm(root, "hbm", file, hint);
  readHbm(hbm, target);
  tpu.tensorCoresPerChip = target.hbm.coresPerChip;

  TableReader cost(root, "cost", file, hint);
  TpuCostModel &model = target.tpuCost;
  model.mxuRowsPerCycle = cost.integer("mxu_rows_per_cycle", 1);
  model.mxuWeightLoadCycles = cost.integer("mxu_weight_load_cycles", 0);
  model.mxuFp32Passes = cost.integer("mxu_fp32_passes", 1);
  model.mxuLatencyCycles = cost.integer("mxu_latency_cycles", 0);
  model.vpuLatencyCycles = cost.integer("vpu_latency_cycles", 0);
  model.vpuLoadSlots = cost.integer("vpu_load_slots", 1);
  model.vpuStoreSlots = cost.integer("vpu_store_slots", 1);
  model.eupCyclesPerVreg = cost.integer("eup_cycles_per_vreg", 1);
  model.xluReduceCycles = cost.integer("xlu_reduce_cycles", 0);
  model.xluRelayoutCyclesPerVreg = cost.number("xlu_relayout_cycles_per_vreg", NumberRange::NonNegative);
  model.gridStepCycles = cost.integer("grid_step_cycles", 0);
  collectCostCoefficients(root, target);

  // The shared fields: one MXU as the tensor engine, with the TensorCore's peaks; the VPU; the scalar core.
  const unsigned cores = target.hbm.coresPerChip;
  target.tensor.clockGhz = clockGhz;
  target.tensor.lanes = target.tensor.cols;
  target.tensor.peakBf16Tflops = chipBf16Tflops / cores;
  target.tensor.peakFp32Tflops = target.tensor.peakBf16Tflops / model.mxuFp32Passes; // derived
  target.tensor.peakFp8Tflops = chipFp8Tflops / cores;
  tpu.peakInt8Tops = chipInt8Tops / cores;
  target.vector = EngineSpec{clockGhz, tpu.sublanes * tpu.lanes};
  target.scalar = EngineSpec{clockGhz, 1};

  for (const TableReader *table : {&header, &core, &mxu, &dma, &hbm, &cost})
    table->rejectUnknownFields();
  rejectUnknownTables(root, file, kTpuSchema);
  checkTpuConsistency(target, core, mxu);
  if (root.get("libtpu")) { // optional: a machine the real compiler does not know has none
    TableReader libtpu(root, "libtpu", file, hint);
    tpu.libtpuTopology = libtpu.text("topology");
    tpu.scopedVmemDefaultBytes =
        libtpu.integer("scoped_vmem_default_bytes", 1, std::numeric_limits<int64_t>::max());
    tpu.kernelVmemMaxBytes = libtpu.integer("kernel_vmem_max_bytes", 1, std::numeric_limits<int64_t>::max());
    if (libtpu.has("mosaic_internal_vmem_bytes"))
      tpu.mosaicInternalVmemBytes =
          libtpu.integer("mosaic_internal_vmem_bytes", 0, static_cast<int64_t>(tpu.kernelVmemMaxBytes));
    if (tpu.kernelVmemMaxBytes > tpu.vmemBytes)
      throw libtpu.fieldError("kernel_vmem_max_bytes",
                              fmt::format("{} is more than the core's VMEM (tensor_core.vmem_bytes = {})",
                                          tpu.kernelVmemMaxBytes, tpu.vmemBytes));
    if (tpu.scopedVmemDefaultBytes > tpu.kernelVmemMaxBytes)
      throw libtpu.fieldError("scoped_vmem_default_bytes",
                              fmt::format("{} is more than a kernel may have (libtpu.kernel_vmem_max_bytes = {})",
                                          tpu.scopedVmemDefaultBytes, tpu.kernelVmemMaxBytes));
    libtpu.rejectUnknownFields();
  }
}

/// Builds a Target from a parsed file, validating every field; [target].family picks the schema.
Target fromToml(const toml::table &root, const fs::path &file) {
  Target target;
  target.file = file;

  TableReader header(root, "target", file, headerHint());
  target.name = header.text("name");
  target.family = header.text("family");
  target.generation = header.text("generation");
  target.description = header.text("description", /*allowEmpty=*/true);
  if (header.has("price_per_chip_hour")) // optional: not every machine has a published price
    target.pricePerChipHour = header.number("price_per_chip_hour", NumberRange::NonNegative);

  if (target.family == kNeuronCoreSchema.family)
    readNeuronCore(root, file, header, target);
  else if (target.family == kTpuSchema.family)
    readTpu(root, file, header, target);
  else
    throw header.fieldError("family", fmt::format("expected \"{}\" or \"{}\", got string \"{}\"",
                                                  kNeuronCoreSchema.family, kTpuSchema.family, target.family));
  return target;
}

bool looksLikePath(std::string_view nameOrPath) {
  return nameOrPath.ends_with(kTargetExtension) || nameOrPath.find('/') != std::string_view::npos;
}

/// $TESSERA_TARGET_PATH's folders, in order, then the built-in folder.
std::vector<fs::path> searchPath() {
  std::vector<fs::path> folders;
  if (const char *variable = std::getenv(kSearchPathVariable.data())) {
    std::string_view remaining = variable;
    while (!remaining.empty()) {
      const size_t colon = remaining.find(':');
      const std::string_view folder = remaining.substr(0, colon);
      if (!folder.empty())
        folders.emplace_back(folder);
      if (colon == std::string_view::npos)
        break;
      remaining.remove_prefix(colon + 1);
    }
  }
  folders.push_back(Target::builtinDirectory());
  return folders;
}

/// Every `<name>.toml` in the search path, by name; the first folder that has a name wins.
std::map<std::string, fs::path> targetFilesByName() {
  std::map<std::string, fs::path> files;
  for (const fs::path &folder : searchPath()) {
    std::error_code error;
    for (fs::directory_iterator entry(folder, error), end; !error && entry != end; entry.increment(error)) {
      if (!entry->is_regular_file(error) || entry->path().extension() != kTargetExtension)
        continue;
      files.emplace(entry->path().stem().string(), entry->path());
    }
  }
  return files;
}

} // namespace

Target Target::load(const fs::path &file) {
  std::error_code error;
  if (!fs::is_regular_file(file, error))
    throw Error(fs::exists(file, error) ? "cannot open target file: not a regular file (a folder?)"
                                        : "cannot open target file: no such file",
                SourceLoc{file.string()},
                "pass a target name (such as trn2) or the path of an existing .toml target file");
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw Error("cannot open target file: not readable", SourceLoc{file.string()});
  std::ostringstream contents;
  contents << in.rdbuf();
  return parse(contents.str(), file);
}

Target Target::parse(const std::string &text, const fs::path &origin) {
  toml::table root;
  try {
    root = toml::parse(text, origin.string());
  } catch (const toml::parse_error &syntaxError) {
    throw Error(fmt::format("TOML syntax error: {}", syntaxError.description()),
                locationOf(origin, syntaxError.source()));
  }
  return fromToml(root, origin);
}

Target Target::find(const std::string &nameOrPath) {
  if (looksLikePath(nameOrPath))
    return load(nameOrPath);
  for (const fs::path &folder : searchPath()) {
    const fs::path candidate = folder / (nameOrPath + std::string(kTargetExtension));
    std::error_code error;
    if (fs::is_regular_file(candidate, error))
      return load(candidate);
  }
  std::vector<std::string> available;
  for (const auto &[name, path] : targetFilesByName())
    available.push_back(name);
  throw Error(fmt::format("unknown target '{}'; available targets: {}", nameOrPath,
                          available.empty() ? std::string("none") : fmt::format("{}", fmt::join(available, ", "))),
              {},
              fmt::format("pass one of these names, the path of a .toml target file, or add the folder holding "
                          "'{}.toml' to ${}",
                          nameOrPath, kSearchPathVariable));
}

std::vector<Target> Target::all() {
  std::vector<Target> targets;
  for (const auto &[name, path] : targetFilesByName())
    targets.push_back(load(path));
  std::stable_sort(targets.begin(), targets.end(),
                   [](const Target &a, const Target &b) { return a.name < b.name; });
  return targets;
}

} // namespace tessera::isa
