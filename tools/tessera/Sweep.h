#pragma once
/// \file
/// A parameter sweep: one kernel run for every combination of a few shape and kernel-parameter values
/// (`tessera sweep`). The library plans the combinations, runs any subset of them on a pool of threads and
/// tabulates the results; the CLI only parses and prints. A distributed sweep (one process per MPI rank,
/// SweepRanks.h) runs its share, shardOf(), and rank 0 gathers the rows (encodeRows, decodeRows).
///
/// Threads: tracing, compiling (MLIR), the golden model and the reference run in parallel; the simulation proper
/// takes turns, because SystemC keeps its simulation context in one process-wide global (sim/lib/SimContext.h).

#include "tessera/Driver.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessera::driver {

/// One swept name and its values, in the order given: a shape parameter (`--shape M=1024,2048`), a kernel
/// parameter (`--param bm=128,256`) or a scalar parameter (`--param causal=0,1`, `--param eps=1e-5,1e-6`).
struct SweepAxis {
  enum class Kind { Shape, KernelParam, ScalarParam };
  Kind kind = Kind::KernelParam;
  std::string name;
  std::vector<int64_t> values; ///< shape and kernel parameters
  std::vector<double> reals;   ///< scalar parameters
  size_t size() const { return kind == Kind::ScalarParam ? reals.size() : values.size(); }
};

/// Parses one `--shape` or `--param` value of `tessera sweep`: "bm=128,256,512" is one axis; "bm=128,256,bn=512"
/// two (a comma item with '=' starts the next name). Values are positive integers, except for the names
/// `isScalar` accepts, whose axes are scalar parameters of any finite real values; errors are InputErrors naming
/// `option`.
std::vector<SweepAxis> parseSweepAxes(const std::string &option, const std::string &text, SweepAxis::Kind kind,
                                      const std::function<bool(const std::string &)> &isScalar = {});

/// One combination: the shape, kernel-parameter and scalar-parameter overrides it adds to the base request.
struct SweepPoint {
  std::map<std::string, int64_t> shape, kernelParams;
  std::map<std::string, double> scalarParams;
  /// "bm=128 bn=256": the swept names and values, in axis order.
  std::string label;
};

/// Every combination of `axes` (the first axis varies slowest). A name given twice is an InputError.
std::vector<SweepPoint> sweepPoints(const std::vector<SweepAxis> &axes);

/// The points of shard `index` of `count` (round robin), for splitting one sweep across processes.
std::vector<SweepPoint> shardOf(const std::vector<SweepPoint> &points, unsigned index, unsigned count);

/// What one combination gave.
struct SweepRow {
  /// ok: ran and (unless timing only) matched; failed: ran, and a check failed (numerics, a kernel bug); invalid:
  /// the combination cannot be compiled or run (a block size that does not divide, tiles that do not fit);
  /// limit: a resource limit stopped it.
  enum class Status { Ok, Failed, Invalid, Limit };
  SweepPoint point;
  Status status = Status::Invalid;
  std::string message; ///< why, when not ok (file:line first where known)
  double timeUs = 0;   ///< simulated time (0 when it did not run)
  double achievedTflops = 0;
  uint64_t instructions = 0;
  double simSeconds = 0;  ///< host time of the simulation proper
  double wallSeconds = 0; ///< host time of the whole combination: trace, compile, simulate, check
  std::map<std::string, double> busyPercent;

  bool ran() const { return status == Status::Ok || status == Status::Failed; }
};

/// "ok", "failed", "invalid", "limit".
const char *statusName(SweepRow::Status s);

/// Runs `base` once per point, with the point's overrides, on `jobs` threads (at least 1). Rows come back in
/// point order. `done(rowsFinished, total)` is called after each row, from the worker that finished it, one call at
/// a time. A RunRequest's progress callback and deadline are not used.
std::vector<SweepRow> runSweep(const RunRequest &base, const std::vector<SweepPoint> &points, unsigned jobs,
                               const std::function<void(size_t, size_t)> &done = {});

/// Rows as text and back, every field exactly (doubles round-trip), for rows run by another process
/// (SweepRanks::gather). Text that is not such rows is an Error.
std::string encodeRows(const std::vector<SweepRow> &rows);
std::vector<SweepRow> decodeRows(const std::string &text);

/// Rows that ran, fastest simulated time first, then the rest in their original order.
void sortBySimulatedTime(std::vector<SweepRow> &rows);

/// The table `tessera sweep` prints: one line per row, the swept names as columns.
std::string sweepTable(const std::vector<SweepRow> &rows, const std::vector<SweepAxis> &axes);
/// CSV: a header line, then one line per row (the swept names, status, time_us, achieved_tflops, instructions,
/// sim_seconds, wall_seconds, message).
std::string sweepCsv(const std::vector<SweepRow> &rows, const std::vector<SweepAxis> &axes);
/// {"kernel", "target", "axes", "rows": [...]}.
nlohmann::json sweepJson(const std::vector<SweepRow> &rows, const std::vector<SweepAxis> &axes,
                         const RunRequest &base);

} // namespace tessera::driver
