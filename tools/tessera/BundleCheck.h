#pragma once
/// \file
/// A deploy bundle's own checks, run here by `tessera deploy --check`: the bundle's run.py under the backend
/// environment's Python (scripts/backend-venv.sh pins jax, jaxlib and the libtpu that jax's tpu extra pins).
/// `compile` compiles a TPU bundle's Pallas kernel with the real TPU compiler, deviceless (run.py --compile:
/// Mosaic and XLA:TPU for the target's generation; a refusal names the kernel line); `interpret` runs it under
/// Pallas' interpret mode with race detection and compares its outputs with the simulator's (run.py --interpret).
/// There is no NKI toolchain to run here, so a Trainium bundle has neither.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::driver {

enum class BundleCheck { Compile, Interpret };

/// "compile" or "interpret"; nullopt for anything else.
std::optional<BundleCheck> parseBundleCheck(std::string_view name);
std::string_view name(BundleCheck check);

/// The Python that runs a bundle's checks: `given` when not empty, else $TESSERA_BACKEND_PYTHON, else the backend
/// environment of the build tree this tessera is in (build/backend-venv/bin/python beside build/tools/tessera).
/// An InputError, saying how to make one, when that file does not exist (a bare name is looked up on PATH).
std::filesystem::path backendPython(const std::string &given);

/// Runs `python dir/run.py --compile` (or --interpret) and waits for it; the runner's output goes to this
/// process's stdout, or to its stderr when `outputToStderr` (so that --json keeps stdout to itself). True when
/// the runner passed (exit 0). An InputError when the runner cannot be started; a LimitError when `deadline`
/// (`--timeout`, set from `timeoutSeconds`) passes first, after killing the runner.
bool runBundleCheck(const std::filesystem::path &python, const std::filesystem::path &dir, BundleCheck check,
                    bool outputToStderr, std::optional<std::chrono::steady_clock::time_point> deadline = {},
                    double timeoutSeconds = 0);

} // namespace tessera::driver
