#include "tessera/systolic/scalesim/Topology.h"

#include "TextFile.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <sstream>

namespace tessera::systolic::scalesim {

namespace {

/// The row's fields, trimmed, less the empty one after a trailing comma.
std::vector<std::string_view> fields(std::string_view row) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t comma = row.find(',', start);
    out.push_back(trim(row.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

/// Dimensions stay below 2^24 so that a layer's counts fit 63 bits.
constexpr int64_t kMaxDim = int64_t(1) << 24;

int64_t dimension(std::string_view text, std::string_view what, const SourceLoc &where) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxDim)
    throw Error(fmt::format("{}: expected a positive integer up to 2^24, got '{}'", what, text), where);
  return v;
}

/// Each dimension is below 2^24, but their products are not: the ifmap, the window (K), the output pixels (M) and
/// the MACs must stay where every count the simulation keeps fits 63 bits.
void checkSize(const Layer &layer, const SourceLoc &where) {
  constexpr __int128 kMaxWords = __int128(1) << 40, kMaxMacs = __int128(1) << 62;
  const __int128 ifmap = __int128(layer.ifmapHeight) * layer.ifmapWidth * layer.channels;
  const __int128 k = __int128(layer.filterHeight) * layer.filterWidth * layer.channels;
  const __int128 m = __int128(layer.ofmapHeight()) * layer.ofmapWidth();
  if (ifmap > kMaxWords || k > kMaxWords || m > kMaxWords || m * k * layer.filters > kMaxMacs)
    throw Error(fmt::format("layer '{}' is too large: its ifmap, window or output must stay under 2^40 elements and "
                            "its MACs under 2^62",
                            layer.name),
                where);
}

} // namespace

TopologyKind parseTopologyKind(std::string_view text) {
  if (text == "conv") return TopologyKind::Conv;
  if (text == "gemm") return TopologyKind::Gemm;
  throw Error(fmt::format("-i: expected conv or gemm, got '{}'", text));
}

Topology parseTopology(std::string_view text, const std::string &path, std::string_view kindText) {
  Topology topo;
  std::string file = std::filesystem::path(path).filename().string();
  size_t dot = file.rfind('.');
  topo.name = dot == std::string::npos || dot == 0 ? file : file.substr(0, dot);

  std::istringstream in{std::string(text)};
  bool header = true;
  TopologyKind kind = TopologyKind::Conv;
  uint32_t lineNo = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++lineNo;
    std::string_view row = trim(raw);
    if (header) {
      header = false;
      std::vector<std::string_view> names = fields(row);
      kind = !kindText.empty() ? parseTopologyKind(kindText)
             : names.size() > 1 && (names[1] == "M" || names[1] == "m") ? TopologyKind::Gemm
                                                                      : TopologyKind::Conv;
      continue;
    }
    if (row.empty()) continue;
    SourceLoc where{path, lineNo};
    std::vector<std::string_view> f = fields(row);
    // An "N:M" sparsity ratio may follow the dimensions.
    if (!f.empty() && f.back().find(':') != std::string_view::npos) f.pop_back();
    Layer layer;
    layer.name = std::string(f.empty() ? std::string_view{} : f[0]);
    layer.line = lineNo;
    if (kind == TopologyKind::Gemm) {
      if (f.size() != 4)
        throw Error(fmt::format("a GEMM row has 4 fields (name, M, N, K), this one {}", f.size()), where,
                    "for convolution layers leave out -i gemm (or give -i conv)");
      int64_t m = dimension(f[1], "M", where), n = dimension(f[2], "N", where), k = dimension(f[3], "K", where);
      layer.ifmapHeight = m, layer.ifmapWidth = k, layer.filterHeight = 1, layer.filterWidth = k;
      layer.channels = 1, layer.filters = n;
      checkSize(layer, where);
      topo.layers.push_back(layer);
      continue;
    }
    if (f.size() != 8)
      throw Error(fmt::format("a convolution row has 8 fields (name, IFMAP Height, IFMAP Width, Filter Height, "
                              "Filter Width, Channels, Num Filter, Strides), this one {}",
                              f.size()),
                  where, "for GEMM rows (name, M, N, K) give -i gemm");
    layer.ifmapHeight = dimension(f[1], "IFMAP Height", where);
    layer.ifmapWidth = dimension(f[2], "IFMAP Width", where);
    layer.filterHeight = dimension(f[3], "Filter Height", where);
    layer.filterWidth = dimension(f[4], "Filter Width", where);
    layer.channels = dimension(f[5], "Channels", where);
    layer.filters = dimension(f[6], "Num Filter", where);
    layer.strideHeight = layer.strideWidth = dimension(f[7], "Strides", where);
    if (layer.filterHeight > layer.ifmapHeight)
      throw Error(fmt::format("layer '{}': the filter is {} high, the ifmap only {}", layer.name, layer.filterHeight,
                              layer.ifmapHeight),
                  where);
    if (layer.filterWidth > layer.ifmapWidth)
      throw Error(fmt::format("layer '{}': the filter is {} wide, the ifmap only {}", layer.name, layer.filterWidth,
                              layer.ifmapWidth),
                  where);
    checkSize(layer, where);
    if (layer.name.find("DP") == std::string::npos) {
      topo.layers.push_back(layer);
      continue;
    }
    // Depth-wise: SCALE-Sim runs one single-channel layer per channel.
    int64_t channels = layer.channels;
    layer.channels = 1;
    std::string base = layer.name;
    for (int64_t ch = 0; ch < channels; ++ch) {
      layer.name = fmt::format("{}Channel_{}", base, ch);
      topo.layers.push_back(layer);
    }
  }
  if (topo.layers.empty())
    throw Error("the topology has no layers", SourceLoc{path},
                "a header row, then one row per layer: see docs/systolic.md");
  return topo;
}

Topology readTopology(const std::filesystem::path &path, std::string_view kind) {
  return parseTopology(readText(path, "topology file"), path.string(), kind);
}

} // namespace tessera::systolic::scalesim
