#pragma once
// ScopedEnv: sets (or unsets) one environment variable for a scope and restores the
// previous value after. Not thread-safe (setenv is not): use it before starting threads,
// or in a forked child.

#include <optional>
#include <string>

namespace accel::test {

class ScopedEnv {
 public:
  // value == nullopt unsets the variable.
  ScopedEnv(std::string name, std::optional<std::string> value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

}  // namespace accel::test
