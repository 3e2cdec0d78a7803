// Fuzzer: the replay's RMM log reader (read_rmm_text, tools/replay/trace.h). Any input must
// either give a trace that keeps the invariants of replay_trace_checks.h (and no frees of
// blocks from before the log: an RMM log has no window) or raise TraceError naming
// "fuzz.csv"; anything else escaping is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "replay_trace_checks.h"
#include "trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const accel::replay::Trace trace = accel::replay::read_rmm_text(text, "fuzz.csv");
    accel::replay::fuzz::check_trace(trace);
    if (trace.unmatched_frees != 0) {
      std::fprintf(stderr, "an RMM log with frees of unknown pointers was accepted\n");
      std::abort();
    }
  } catch (const accel::replay::TraceError& e) {
    const std::string what = e.what();
    if (what.rfind("fuzz.csv:", 0) != 0) {
      std::fprintf(stderr, "TraceError without fuzz.csv: %s\n", what.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "read_rmm_text let a non-TraceError escape: %s\n", e.what());
    std::abort();
  }
  return 0;
}
