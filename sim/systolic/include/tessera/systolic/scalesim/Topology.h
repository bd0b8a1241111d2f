#pragma once
/// \file
/// A SCALE-Sim topology file (`-t network.csv`): the layers of a network, each a convolution that SCALE-Sim
/// lowers to the GEMM of its im2col matrices (OperandMatrices.h). Two formats, as SCALE-Sim reads them
/// (`scalesim/topology_utils.py`): a header row, then one layer per row,
///  - conv: `name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,`
///    (a layer whose name contains "DP" is depth-wise: one single-channel layer per channel);
///  - gemm: `name, M, N, K,` (read as an M x K "image" convolved with N filters of 1 x K).
/// SCALE-Sim drops the field after a row's last comma, so its rows end in one; here a row without the trailing
/// comma reads the same. An `N:M` sparsity field after the last number is accepted and ignored, as SCALE-Sim does
/// without SparsitySupport.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::systolic::scalesim {

enum class TopologyKind { Conv, Gemm };

/// "conv" or "gemm"; throws tessera::Error.
TopologyKind parseTopologyKind(std::string_view text);

struct Layer {
  std::string name;
  int64_t ifmapHeight = 1, ifmapWidth = 1, filterHeight = 1, filterWidth = 1;
  int64_t channels = 1, filters = 1, strideHeight = 1, strideWidth = 1;
  uint32_t line = 0; ///< where it is in the file

  /// SCALE-Sim's ofmap size: ceil((ifmap - filter + stride) / stride) in each dimension.
  int64_t ofmapHeight() const { return (ifmapHeight - filterHeight + strideHeight + strideHeight - 1) / strideHeight; }
  int64_t ofmapWidth() const { return (ifmapWidth - filterWidth + strideWidth + strideWidth - 1) / strideWidth; }
  /// The GEMM: M output pixels per filter, N filters, K elements per convolution window.
  int64_t gemmM() const { return ofmapHeight() * ofmapWidth(); }
  int64_t gemmN() const { return filters; }
  int64_t gemmK() const { return filterHeight * filterWidth * channels; }
  int64_t macs() const { return gemmM() * gemmN() * gemmK(); }
};

struct Topology {
  std::string name; ///< the file's name without its extension, as SCALE-Sim names it
  std::vector<Layer> layers;
};

/// Reads a topology file. `kind` empty: gemm when the header's second field is "M", conv otherwise. Throws
/// tessera::Error naming the file and line for a malformed row or a filter larger than its ifmap.
Topology readTopology(const std::filesystem::path &path, std::string_view kind = {});

/// The same, from the file's text.
Topology parseTopology(std::string_view text, const std::string &path, std::string_view kind = {});

} // namespace tessera::systolic::scalesim
