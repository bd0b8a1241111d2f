// `tessera calibrate`: a target's cost coefficients fitted to times measured on the device (Calibrate.h). A record
// whose time the host's wall clock measured is skipped with a note on stderr; none left is bad input (exit 2).

#include "tessera/commands/Commands.h"

#include "tessera/AtomicFile.h"
#include "tessera/Calibrate.h"
#include "tessera/CommandLine.h"
#include "tessera/JsonText.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optional>

namespace po = boost::program_options;

namespace tessera::driver {

int calibrateCommand(const std::vector<std::string> &args) {
  std::vector<std::string> files;
  std::string target, fit, write;
  bool json = false;
  po::options_description desc("tessera calibrate RECORD.json...");
  desc.add_options()("records", po::value(&files)->required()->composing(), "record-device.json files from run.py")(
      "target,t", po::value(&target), "the target to calibrate (default: the records' own)")(
      "fit", po::value(&fit)->value_name("TABLE.KEY,..."),
      "the coefficients to fit (default: the fixed costs the target files mark as assumptions)")(
      "write,w", po::value(&write)->value_name("FILE.toml"), "write a copy of the target file with the fitted values")(
      "json", po::bool_switch(&json), "print one JSON object");
  parse(args, desc, "records", -1);
  std::vector<DeviceRecord> read;
  for (const std::string &f : files) read.push_back(readDeviceRecord(f));
  std::vector<std::string> skipped;
  const std::vector<DeviceRecord> records = deviceTimedRecords(read, skipped);
  for (const std::string &why : skipped) fmt::print(stderr, "tessera calibrate: skipping a record: {}\n", why);
  const std::vector<std::string> names = splitList(fit);
  std::optional<AtomicFile> out;
  if (!write.empty()) out.emplace(write, "calibrated target");
  const Calibration c = calibrate(records, target, names);
  if (out) out->commit(c.calibratedToml);
  if (json) {
    nlohmann::json coefficients = nlohmann::json::array(), rows = nlohmann::json::array();
    for (const Coefficient &k : c.coefficients)
      coefficients.push_back(
          {{"name", k.name()}, {"before", k.before}, {"after", k.after}, {"determined", k.determined}});
    for (const CalibratedRecord &r : c.records)
      rows.push_back({{"file", r.record.file.string()},
                      {"kernel", r.record.kernel},
                      {"measured_us", r.record.measuredUs},
                      {"measured_by", r.record.measuredBy},
                      {"before_us", r.beforeUs},
                      {"after_us", r.afterUs}});
    fmt::print("{}\n", jsonText(nlohmann::json{{"target", c.base.name},
                                      {"coefficients", coefficients},
                                      {"records", rows},
                                      {"skipped", skipped},
                                      {"error_before", c.errorBefore},
                                      {"error_after", c.errorAfter},
                                      {"written", write}}, 2));
    return kOk;
  }
  fmt::print("calibrating {} from {} device record{}\n\n", c.base.name, c.records.size(),
             c.records.size() == 1 ? "" : "s");
  fmt::print("  {:<34} {:>12} {:>12}\n", "coefficient", "was", "fitted");
  for (const Coefficient &k : c.coefficients)
    fmt::print("  {:<34} {:>12.6g} {:>12}\n", k.name(), k.before,
               k.determined ? fmt::format("{:.6g}", k.after) : std::string("(no record depends on it)"));
  fmt::print("\n  {:<20} {:<24} {:>12} {:>12} {:>12}\n", "kernel", "record", "measured us", "was us", "fitted us");
  for (const CalibratedRecord &r : c.records)
    fmt::print("  {:<20} {:<24} {:>12.3f} {:>12.3f} {:>12.3f}\n", r.record.kernel, r.record.file.filename().string(),
               r.record.measuredUs, r.beforeUs, r.afterUs);
  fmt::print("\n  rms of ln(simulated / measured): {:.4f} before, {:.4f} after\n", c.errorBefore, c.errorAfter);
  if (out) fmt::print("  wrote {} (tessera run ... --target {})\n", write, write);
  return kOk;
}

} // namespace tessera::driver
