#pragma once
/// \file
/// `tessera calibrate`: fits a target's cost coefficients to times measured on a device. Each record is what a
/// deploy bundle's run.py wrote after running the kernel on the device (record-device.json): the kernel, its shape
/// and parameters, the target, and the measured time. Calibration compiles each record's kernel once (the very
/// program the bundle ran) and re-times that program under candidate coefficients until the simulated times best
/// match the measured ones (least squares of the log ratio), one coefficient at a time.

#include "tessera/Driver.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tessera::driver {

/// One device measurement.
struct DeviceRecord {
  std::filesystem::path file;
  std::string kernel, target, device;
  std::map<std::string, int64_t> shape, kernelParams;
  unsigned loopBuffers = compiler::CompileOptions{}.loopBuffers;
  double measuredUs = 0;
};

/// Reads a record run.py wrote. Throws InputError naming the file when it is not one, or when it holds no device
/// time (a record of --interpret, --export or --simulate).
DeviceRecord readDeviceRecord(const std::filesystem::path &file);

/// A cost coefficient: a numeric key of a target file's table ("dma", "fixed_latency_ns").
struct Coefficient {
  std::string table, key;
  double before = 0, after = 0;
  bool integer = false;    ///< the file holds an integer (cycles); fitted values are rounded
  bool determined = true;  ///< false: no record's time depends on it, so it kept its value
  std::string name() const { return table + "." + key; }
};

/// One record before and after calibration.
struct CalibratedRecord {
  DeviceRecord record;
  double beforeUs = 0, afterUs = 0; ///< the simulated time with the target's and the fitted coefficients
};

struct Calibration {
  isa::Target base;
  std::vector<Coefficient> coefficients;
  std::vector<CalibratedRecord> records;
  /// Root mean square of ln(simulated / measured) over the records, before and after.
  double errorBefore = 0, errorAfter = 0;
  std::string calibratedToml; ///< the base target file with the fitted values (and a note of where they came from)
};

/// The coefficients calibrated unless `--fit` names others: those a family's target files mark as assumptions
/// and that set fixed costs (DMA latency and efficiency, per-instruction or per-grid-step overheads).
std::vector<std::string> defaultCoefficients(const isa::Target &target);

/// Fits `fit` ("table.key" names; empty: defaultCoefficients) of `target` (a name or path; empty: the records'
/// target, which they must all share) to `records`. Bad names, kernels or a mix of targets are InputErrors.
Calibration calibrate(const std::vector<DeviceRecord> &records, const std::string &target,
                      const std::vector<std::string> &fit);

/// `text` (a TOML file) with the value of `key` in table `table` replaced by `value`, and `comment` after it; the
/// rest of the file as it was. Throws InputError when the table or key is not there.
std::string setTomlValue(const std::string &text, const std::string &table, const std::string &key,
                         const std::string &value, const std::string &comment = {});

} // namespace tessera::driver
