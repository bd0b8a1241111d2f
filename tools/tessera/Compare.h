#pragma once
/// \file
/// `tessera compare`: one kernel, one shape, on several targets, in one table: simulated time, % of peak, what
/// bounds it, how far each target's outputs are from the FP32 reference and from the first target's (so precision
/// differences between families show before porting), and price-performance from each target file's
/// price_per_chip_hour.

#include "tessera/Driver.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::driver {

/// How far one output is from another: max |a - b| and max |a - b| / max(|b|, rms(b)).
struct Difference {
  std::string output;
  double maxAbs = 0, maxRel = 0;
};

/// One target's line of the table.
struct CompareRow {
  std::string target;
  std::optional<RunReport> report;     ///< absent when the kernel does not run there (`error` says why)
  std::string error;
  std::vector<Difference> vsReference; ///< against the FP32 reference (the golden model, else the kernel's own)
  std::vector<Difference> vsFirst;     ///< against the first target's outputs
  double pricePerChipHour = 0;         ///< 0: no price (the target file has none and --price gave none)
  unsigned coresPerChip = 1;
  /// Dollars for a million calls: the simulated time of one call on one core, at the chip's price divided among
  /// its cores (every core of the chip busy with calls). Absent without a price.
  std::optional<double> dollarsPerMillionCalls() const;
};

struct Comparison {
  std::string kernel;
  tsr::Params params;
  std::vector<CompareRow> rows;
  bool ok = true; ///< every target that runs the kernel matched its references
};

/// Runs `request` (its kernel, shape, parameters, seed) on each of `targets` with the same inputs. `prices`
/// (target name -> USD per chip-hour, from --price) override the target files'. A target that cannot run the kernel
/// (a NeuronCore-only kernel on a TPU) is a row with its error; an unknown target is an InputError.
Comparison compareTargets(const RunRequest &request, const std::vector<std::string> &targets,
                          const std::map<std::string, double> &prices);

} // namespace tessera::driver
