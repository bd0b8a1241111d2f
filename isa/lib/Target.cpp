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

fs::path Target::builtinDirectory() { return fs::path(TESSERA_TARGETS_DIR); }

namespace {

constexpr std::string_view kTargetExtension = ".toml";
constexpr std::string_view kSearchPathVariable = "TESSERA_TARGET_PATH";
constexpr uint64_t kFp32Bytes = 4; ///< PSUM accumulates in FP32: what one moving-free element takes in a bank

/// The hint every schema error carries: where to find a complete target with comments.
std::string schemaHint() {
  return fmt::format("compare with {}: a complete target, with the meaning and source of each figure",
                     (Target::builtinDirectory() / "trn2.toml").string());
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
  TableReader(const toml::table &root, std::string tableName, fs::path file)
      : tableName_(std::move(tableName)), file_(std::move(file)) {
    const toml::node *node = root.get(tableName_);
    if (!node)
      throw Error(fmt::format("{}: missing table [{}]", tableName_, tableName_), SourceLoc{file_.string()},
                  schemaHint());
    table_ = node->as_table();
    if (!table_)
      throw Error(fmt::format("{}: expected a table, got {}", tableName_, describe(*node)),
                  locationOf(file_, node->source()), schemaHint());
  }

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
    return Error(fmt::format("{}: {}", qualified(key), message), where, schemaHint());
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
                  locationOf(file_, key.source()), schemaHint());
    }
  }

private:
  const toml::node &field(std::string_view key) {
    read_.emplace(key);
    const toml::node *node = table_->get(key);
    if (!node)
      throw Error(fmt::format("{}: missing field", qualified(key)), locationOf(file_, table_->source()),
                  schemaHint());
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
  const toml::table *table_ = nullptr;
  std::set<std::string, std::less<>> read_;
};

/// The tables of the schema, in file order.
constexpr std::string_view kTables[] = {"target",        "memory",        "access", "tensor_engine",
                                        "vector_engine", "scalar_engine", "gpsimd_engine", "dma",
                                        "hbm",           "cost"};

void rejectUnknownTables(const toml::table &root, const fs::path &file) {
  for (const auto &[key, node] : root) {
    if (std::find(std::begin(kTables), std::end(kTables), key.str()) != std::end(kTables))
      continue;
    throw Error(fmt::format("{}: unknown table (a target has [{}])", key.str(), fmt::join(kTables, "], [")),
                locationOf(file, key.source()), schemaHint());
  }
}

EngineSpec readEngine(TableReader &table) {
  EngineSpec engine;
  engine.clockGhz = table.number("clock_ghz", NumberRange::Positive);
  engine.lanes = table.integer("lanes", 1);
  return engine;
}

/// Checks that relate several fields; each error is located at the field that cannot be right.
void checkConsistency(const Target &target, const TableReader &memory, const TableReader &access,
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
  // One matmul writes one PSUM bank on v2/v3; v4 lets the moving free size span all banks (TARGETS.md).
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

/// Builds a Target from a parsed file, validating every field.
Target fromToml(const toml::table &root, const fs::path &file) {
  Target target;
  target.file = file;

  TableReader header(root, "target", file);
  target.name = header.text("name");
  target.family = header.text("family");
  target.generation = header.text("generation");
  target.description = header.text("description", /*allowEmpty=*/true);

  TableReader memory(root, "memory", file);
  target.partitions = memory.integer("partitions", 1);
  target.sbufBytesPerPartition = memory.integer("sbuf_bytes_per_partition", 1, std::numeric_limits<int64_t>::max());
  target.psumBytesPerPartition = memory.integer("psum_bytes_per_partition", 1, std::numeric_limits<int64_t>::max());
  target.psumBanks = memory.integer("psum_banks", 1);
  target.ports.vectorGpsimdSbuf = memory.flag("vector_gpsimd_share_sbuf_port");
  target.ports.vectorScalarPsum = memory.flag("vector_scalar_share_psum_port");

  TableReader access(root, "access", file);
  target.access.partitionQuadrant = access.integer("partition_quadrant", 1);
  target.access.maxFreeDims = access.integer("max_free_dims", 1, AccessPattern::kMaxFreeDims);
  target.access.maxSize = access.integer("max_size", 1, std::numeric_limits<int64_t>::max());
  target.access.maxStride = static_cast<int64_t>(access.integer("max_stride", 1));
  target.access.maxSbufElements = access.integer("max_sbuf_elements", 1, std::numeric_limits<int64_t>::max());
  target.access.maxPsumElements = access.integer("max_psum_elements", 1, std::numeric_limits<int64_t>::max());

  TableReader tensor(root, "tensor_engine", file);
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

  TableReader vector(root, "vector_engine", file);
  target.vector = readEngine(vector);
  target.vectorTransposeBlock = vector.integer("transpose_block", 1);
  TableReader scalar(root, "scalar_engine", file);
  target.scalar = readEngine(scalar);
  TableReader gpsimd(root, "gpsimd_engine", file);
  target.gpsimd = readEngine(gpsimd);
  target.gpsimdPartitionsPerCore = gpsimd.integer("partitions_per_core", 1);
  target.localGatherMaxIndices = gpsimd.integer("local_gather_max_indices", 1);
  target.localGatherMaxElementsPerIndex = gpsimd.integer("local_gather_max_elements_per_index", 1);

  TableReader dma(root, "dma", file);
  target.dma.engines = dma.integer("engines", 1);
  target.dma.queues = dma.integer("queues", 1);
  target.dma.bytesPerNsPerEngine = dma.number("bytes_per_ns_per_engine", NumberRange::Positive);
  target.dma.fixedLatencyNs = dma.number("fixed_latency_ns", NumberRange::NonNegative);
  target.dma.saturatedBytesPerPartition = dma.integer("saturated_bytes_per_partition", 1);
  target.dma.efficiencyKneeBytes = dma.number("efficiency_knee_bytes", NumberRange::NonNegative);

  TableReader hbm(root, "hbm", file);
  target.hbm.bytes = hbm.integer("bytes", 1, std::numeric_limits<int64_t>::max());
  target.hbm.chipGBps = hbm.number("chip_gbps", NumberRange::Positive);
  target.hbm.coresPerChip = hbm.integer("cores_per_chip", 1);
  target.dma.hbmGBps = target.hbm.perCoreGBps(); // derived: the chip's bandwidth, shared by its cores

  TableReader cost(root, "cost", file);
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

  // Every [cost] coefficient by name, for the ISA reference (`tessera isa`).
  if (const toml::table *costTable = root["cost"].as_table())
    for (const auto &[key, node] : *costTable)
      if (std::optional<double> value = node.value<double>())
        target.costCoefficients.emplace_back(std::string(key.str()), *value);

  for (const TableReader *table :
       {&header, &memory, &access, &tensor, &vector, &scalar, &gpsimd, &dma, &hbm, &cost})
    table->rejectUnknownFields();
  rejectUnknownTables(root, file);
  checkConsistency(target, memory, access, tensor);
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

  toml::table root;
  try {
    root = toml::parse(contents.str(), file.string());
  } catch (const toml::parse_error &syntaxError) {
    throw Error(fmt::format("TOML syntax error: {}", syntaxError.description()),
                locationOf(file, syntaxError.source()));
  }
  return fromToml(root, file);
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
