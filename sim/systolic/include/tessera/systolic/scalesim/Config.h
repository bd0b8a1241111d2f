#pragma once
/// \file
/// A SCALE-Sim v3 configuration file (`-c scale.cfg`): the array, its three SRAMs, the dataflow and how DRAM is
/// modelled. The file is Python configparser's INI format; the keys and their meanings are SCALE-Sim's
/// (`scalesim/scale_config.py`), and so are the two bandwidth modes:
///  - CALC: no bandwidth limit; SCALE-Sim works out the bandwidth each operand would need (its ifmap and filter
///    prefetchers start at 10 words per cycle, the ofmap drains `ArrayWidth` words per cycle);
///  - USER: the ifmap and filter DRAM interfaces move `IfmapSRAMBankBandwidth` and `FilterSRAMBankBandwidth`
///    words per cycle (section [layout]; the first `Bandwidth` when a v2 file has no such section), the ofmap the
///    first `Bandwidth`; the array stalls when an operand is not in its SRAM yet.

#include "tessera/systolic/ArrayConfig.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tessera::systolic::scalesim {

enum class BandwidthMode { Calc, User };

struct Config {
  std::string runName;
  int64_t rows = 0, cols = 0;
  Dataflow dataflow = Dataflow::WeightStationary;
  int64_t ifmapKiB = 0, filterKiB = 0, ofmapKiB = 0;
  int64_t ifmapOffset = 0, filterOffset = 10000000, ofmapOffset = 20000000;
  BandwidthMode bandwidthMode = BandwidthMode::Calc;
  /// USER mode: DRAM words per cycle of each operand's interface.
  int64_t ifmapBandwidth = 10, filterBandwidth = 10, ofmapBandwidth = 10;
  /// SRAM banks of the ifmap and filter buffers (section [layout]); USER mode needs the bandwidth to divide.
  int64_t ifmapBanks = 1, filterBanks = 1;

  /// The array and its SRAMs, as the teaching models take them (its mapping of a GEMM is SCALE-Sim's: Mapping.h).
  ArrayConfig array() const { return {rows, cols, dataflow, {ifmapKiB, filterKiB, ofmapKiB}}; }
};

/// Reads a SCALE-Sim configuration file. Throws tessera::Error naming the file, the line and the key for a
/// missing or malformed value, and for what SCALE-Sim can do that is not modelled here (custom SRAM layouts,
/// sparsity, Ramulator DRAM traces).
Config readConfig(const std::filesystem::path &path);

/// The same, from the file's text (`path` names it in messages).
Config parseConfig(std::string_view text, const std::string &path);

} // namespace tessera::systolic::scalesim
