#pragma once
/// \file
/// An environment variable set for a test's scope (GoldenCacheTest, GoldenTest): restored, or unset, at its end.

#include <cstdlib>
#include <optional>
#include <string>

namespace tessera::scratch {

class ScopedEnvironment {
public:
  ScopedEnvironment(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

} // namespace tessera::scratch
