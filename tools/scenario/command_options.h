#pragma once
// The values of the runner's options that are numbers, checked in the user's terms
// (docs/SCENARIOS.md, "The runner"): a value outside what an option accepts is a usage
// error naming the option, the accepted range and the value as typed, never a value quietly
// wrapped (`--seed -1` as 2^64 - 1) or capped (`--seed` above 2^64 - 1).
// Pure functions; thread-safe.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenario.h"

namespace accel::scenario {

// A malformed option value: what() is the whole message, e.g.
// "--seed expects an unsigned integer from 0 to 18446744073709551615, got '-1'".
class OptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
};

inline constexpr int kMaxTimeoutSeconds = 3600;

// --seed N: decimal digits only, 0 .. 2^64 - 1. Throws OptionError.
std::uint64_t parse_seed(const std::string& text);

// --timeout S: whole seconds, 1 .. kMaxTimeoutSeconds. Throws OptionError.
int parse_timeout(const std::string& text);

// --shard I/N: decimal digits, 0 <= I < N. Throws OptionError.
Shard parse_shard(const std::string& text);

// --machine M[,M...]: presets or machine files (a relative path from the working
// directory), each loaded now, each once. A case id is the preset as typed or the file's
// stem. Throws OptionError: an empty item, a machine that does not load (mockdev's
// message, which lists the presets), two items with the same id.
std::vector<MachineChoice> parse_machines(const std::string& text);

}  // namespace accel::scenario
