#pragma once
/// \file
/// `tessera deploy`: a folder to copy to a Trainium or TPU host. It holds the kernel as the device's toolchain
/// takes it (NKI or Pallas, emitted from the very program the simulator ran), the inputs the simulator used and the
/// outputs it computed (.npy), its predicted time, and run.py, which runs the kernel on the device, compares the
/// outputs, and records measured against predicted time for `tessera calibrate`.

#include "tessera/Driver.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::driver {

struct DeployBundle {
  std::filesystem::path dir;
  std::string backend;               ///< "nki" or "pallas"
  std::vector<std::string> files;    ///< what was written, relative to dir
  RunReport report;                  ///< the simulation the bundle's expected outputs and time come from
};

/// The run a bundle is written from: `request` with values, its tensors kept and provenance recorded. A run whose
/// outputs fail their checks throws tessera::Error (Tessera deploys only kernels whose simulated outputs are right).
RunReport runForDeploy(RunRequest request);

/// Whether `dir` holds a bundle an earlier deploy wrote (its tessera.json says so): deploy replaces such a folder.
bool isDeployBundle(const std::filesystem::path &dir);

/// Checks, before a run, that a bundle can be written at `dir`: absent, an empty folder, an earlier bundle, or
/// (with `force`) any folder; otherwise an InputError naming it, which says --force replaces it.
void checkBundleFolder(const std::filesystem::path &dir, bool force);

/// Writes the bundle of `report` (what runForDeploy gave for `request`) as the folder `dir` and returns the files
/// written, relative to dir. The folder appears whole (AtomicFolder): an earlier bundle there is replaced, with none
/// of its files left; a folder of other files is refused unless `force`, which replaces it too. `pallasStyle`: how a
/// TPU kernel is written (manual, grid, auto: tessera compile's --pallas-style). A kernel the backend cannot express
/// in that style is an InputError and writes nothing; a `dir` that cannot be written is an InputError.
std::vector<std::string> writeDeployBundle(const RunRequest &request, const RunReport &report,
                                           const std::filesystem::path &dir, const std::string &command,
                                           const std::string &pallasStyle = "auto", bool force = false);

/// checkBundleFolder, runForDeploy, then writeDeployBundle: `tessera deploy`.
DeployBundle deployKernel(RunRequest request, const std::filesystem::path &dir, const std::string &command,
                          const std::string &pallasStyle = "auto", bool force = false);

} // namespace tessera::driver
