#pragma once
/// \file
/// `tessera calibrate`: fits a target's cost coefficients to times measured on a device. Each record is what a
/// deploy bundle's run.py wrote after running the kernel on the device (record-device.json): the kernel, its shape
/// and parameters, the target, the measured time and how it was measured. Only times the device measured (run.py's
/// "measured_by": "device_profiler": nrtpy or Neuron Explorer on the kernel's NEFF) are fitted; a time from the
/// host's wall clock (copies and launch included) is refused. Calibration compiles each record's kernel once (the
/// very program the bundle ran) and fits the coefficients to the measured times (CoefficientFit.h: least squares
/// of the log ratio, one coefficient at a time; `tessera fidelity` fits with the same code).

#include "tessera/CoefficientFit.h"
#include "tessera/Driver.h"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::driver {

/// One device measurement.
struct DeviceRecord {
  std::filesystem::path file;
  std::string kernel, target, device;
  std::map<std::string, int64_t> shape, kernelParams;
  unsigned loopBuffers = compiler::CompileOptions{}.loopBuffers;
  double measuredUs = 0;
  /// How measuredUs was measured (run.py's "measured_by"): kDeviceProfiler, "host_wall_clock", or empty in a
  /// record of a run.py from before the field (whose times were all the host's wall clock).
  std::string measuredBy;
  std::string timer; ///< the tool or clock that measured it, as run.py names it ("timer")
};

/// The "measured_by" of a time the device measured: the only kind calibration fits.
inline constexpr std::string_view kDeviceProfiler = "device_profiler";

/// Whether `r`'s time was measured on the device (not by the host's clock around the launch).
inline bool measuredOnDevice(const DeviceRecord &r) { return r.measuredBy == kDeviceProfiler; }

/// Why `r` cannot be fitted ("its time is the host's wall clock ..."), naming its file; empty when it can.
std::string notDeviceTimed(const DeviceRecord &r);

/// The records measured on the device, in their order; each other one adds a line to `skipped` (notDeviceTimed).
/// Throws InputError (exit status 2) when none is left.
std::vector<DeviceRecord> deviceTimedRecords(const std::vector<DeviceRecord> &records,
                                             std::vector<std::string> &skipped);

/// Reads a record run.py wrote. Throws InputError naming the file when it is not one, or when it holds no device
/// time (a record of --interpret, --export or --simulate).
DeviceRecord readDeviceRecord(const std::filesystem::path &file);

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
/// target, which they must all share) to `records`. Bad names, kernels, a mix of targets, or a record whose time
/// the device did not measure (deviceTimedRecords filters those out first) are InputErrors.
Calibration calibrate(const std::vector<DeviceRecord> &records, const std::string &target,
                      const std::vector<std::string> &fit);

/// `text` (a TOML file) with the value of `key` in table `table` replaced by `value`, and `comment` after it; the
/// rest of the file as it was. Throws InputError when the table or key is not there.
std::string setTomlValue(const std::string &text, const std::string &table, const std::string &key,
                         const std::string &value, const std::string &comment = {});

} // namespace tessera::driver
