#include "tessera/systolic/ArrayConfig.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace tessera::systolic {

Dataflow parseDataflow(std::string_view text) {
  if (text == "ws") return Dataflow::WeightStationary;
  if (text == "os") return Dataflow::OutputStationary;
  if (text == "is") return Dataflow::InputStationary;
  throw Error(fmt::format("--dataflow: unknown dataflow '{}'", text), {},
              "ws (weight stationary), os (output stationary) or is (input stationary)");
}

std::string_view shortName(Dataflow dataflow) {
  switch (dataflow) {
  case Dataflow::WeightStationary: return "ws";
  case Dataflow::OutputStationary: return "os";
  case Dataflow::InputStationary: return "is";
  }
  return "?";
}

std::string_view longName(Dataflow dataflow) {
  switch (dataflow) {
  case Dataflow::WeightStationary: return "weight stationary";
  case Dataflow::OutputStationary: return "output stationary";
  case Dataflow::InputStationary: return "input stationary";
  }
  return "?";
}

namespace {

/// "a,b,c" -> three positive integers, or an Error naming `flag`.
std::vector<int64_t> parseTriple(std::string_view text, std::string_view flag, std::string_view example) {
  std::vector<int64_t> values;
  size_t start = 0;
  while (true) {
    size_t end = text.find(',', start);
    std::string_view item = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || v <= 0)
      throw Error(fmt::format("{}: expected three positive integers, got '{}'", flag, text), {},
                  fmt::format("e.g. {} {}", flag, example));
    values.push_back(v);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (values.size() != 3)
    throw Error(fmt::format("{}: expected three positive integers, got '{}'", flag, text), {},
                fmt::format("e.g. {} {}", flag, example));
  return values;
}

} // namespace

Gemm parseGemm(std::string_view text) {
  std::vector<int64_t> v = parseTriple(text, "--gemm", "1024,1024,1024 (M,N,K: C[M][N] = A[M][K] * B[K][N])");
  return {v[0], v[1], v[2]};
}

std::array<int64_t, 3> parseSramKiB(std::string_view text) {
  std::vector<int64_t> v = parseTriple(text, "--sram-kib", "6144,6144,2048 (ifmap, filter, ofmap)");
  return {v[0], v[1], v[2]};
}

void validate(const ArrayConfig &config, const Gemm &gemm) {
  // Bounds that keep every count (cycles, MACs, accesses, addresses) well inside 63 bits.
  constexpr int64_t kMaxSide = 1 << 16, kMaxDim = int64_t(1) << 24, kMaxMacs = int64_t(1) << 50;
  constexpr int64_t kMaxKiB = int64_t(1) << 30;
  if (config.rows <= 0 || config.rows > kMaxSide)
    throw Error(fmt::format("--rows: the array needs 1 to {} rows, got {}", kMaxSide, config.rows));
  if (config.cols <= 0 || config.cols > kMaxSide)
    throw Error(fmt::format("--cols: the array needs 1 to {} columns, got {}", kMaxSide, config.cols));
  for (auto [name, v] : {std::pair{'M', gemm.m}, {'N', gemm.n}, {'K', gemm.k}})
    if (v <= 0 || v > kMaxDim)
      throw Error(fmt::format("--gemm: {} must be between 1 and {}, got {}", name, kMaxDim, v));
  if (gemm.m * gemm.n > kMaxMacs / gemm.k)
    throw Error(fmt::format("--gemm: {}x{}x{} is more than 2^50 multiply-accumulates", gemm.m, gemm.n, gemm.k));
  for (int64_t kib : config.sramKiB)
    if (kib <= 0 || kib > kMaxKiB)
      throw Error(fmt::format("--sram-kib: sizes must be between 1 and {} KiB, got {}", kMaxKiB, kib));
}

} // namespace tessera::systolic
