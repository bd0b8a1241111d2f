#include "tessera/BundleCheck.h"

#include "tessera/Driver.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <thread>
#include <vector>

extern char **environ;

namespace fs = std::filesystem;

namespace tessera::driver {

std::optional<BundleCheck> parseBundleCheck(std::string_view name) {
  if (name == "compile") return BundleCheck::Compile;
  if (name == "interpret") return BundleCheck::Interpret;
  return std::nullopt;
}

std::string_view name(BundleCheck check) { return check == BundleCheck::Compile ? "compile" : "interpret"; }

namespace {

/// build/backend-venv/bin/python for a tessera at build/tools/tessera; empty when /proc/self/exe cannot be read.
fs::path besideTheBuild() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return {};
  return exe.parent_path().parent_path() / "backend-venv" / "bin" / "python";
}

} // namespace

fs::path backendPython(const std::string &given) {
  fs::path python = given;
  std::string from = "--python";
  if (python.empty()) {
    if (const char *env = std::getenv("TESSERA_BACKEND_PYTHON"); env && *env) {
      python = env;
      from = "TESSERA_BACKEND_PYTHON";
    } else {
      python = besideTheBuild();
      from = "the build tree's backend environment";
    }
  }
  std::error_code error;
  const bool onPath = !python.empty() && !python.has_parent_path(); // a bare name: looked up on PATH when run
  if (python.empty() || (!onPath && !fs::exists(python, error)))
    throw InputError(fmt::format("--check needs the backend environment's Python, and {} ({}) does not exist", from,
                                 python.empty() ? "unknown" : python.string()),
                     {},
                     "make it with scripts/backend-venv.sh (jax, jaxlib and libtpu pinned; Python >= 3.12), then "
                     "pass --python DIR/bin/python or set TESSERA_BACKEND_PYTHON");
  return python;
}

bool runBundleCheck(const fs::path &python, const fs::path &dir, BundleCheck check, bool outputToStderr,
                    std::optional<std::chrono::steady_clock::time_point> deadline, double timeoutSeconds) {
  const std::string runner = (dir / "run.py").string(), flag = fmt::format("--{}", name(check));
  std::vector<std::string> argv = {python.string(), runner, flag};
  std::vector<char *> args;
  for (std::string &a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (outputToStderr) posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  std::fflush(stdout);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw InputError(fmt::format("--check {}: cannot run {}: {}", name(check), python.string(),
                                 std::strerror(spawned)));
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, deadline ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR)
      throw InputError(fmt::format("--check {}: lost the runner: {}", name(check), std::strerror(errno)));
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      throw LimitError(fmt::format("stopped by --timeout ({} s) while --check {} ran: the runner was killed (the "
                                   "bundle in {} is whole)",
                                   timeoutSeconds, name(check), dir.string()),
                       {}, fmt::format("raise --timeout, or run the check alone: python3 {} --{}", runner, name(check)));
    }
    if (deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace tessera::driver
