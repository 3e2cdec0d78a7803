// Fuzzer: the machine-file reader (mockdev::parse_machine, public machine.h). Any input
// must either parse or raise MachineFileError ("<file>:<line>: ..."); anything else
// escaping (a yaml-cpp exception, std::bad_alloc, a crash) is a finding. A parsed machine
// must parse again from the same text to the same devices.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "mockdev/machine.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const mockdev::MachineSpec machine = mockdev::parse_machine(text, "fuzz.yaml");
    const mockdev::MachineSpec again = mockdev::parse_machine(text, "fuzz.yaml");
    if (again.devices.size() != machine.devices.size()) std::abort();
  } catch (const mockdev::MachineFileError& e) {
    const std::string what = e.what();
    if (what.rfind("fuzz.yaml:", 0) != 0 || e.line() < 1) {
      std::fprintf(stderr, "MachineFileError without fuzz.yaml:<line>: %s\n", what.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parse_machine let a non-MachineFileError escape: %s\n", e.what());
    std::abort();
  }
  return 0;
}
