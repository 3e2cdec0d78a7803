#pragma once
// What the replay reader fuzzers check of every trace a reader accepts (trace.h): the
// counts agree with the events, every free names an allocation made before it and frees it
// once, every stream index names a stream, lines are 1-based and never go back. A broken
// invariant prints the first and aborts (a finding).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "trace.h"

namespace accel::replay::fuzz {

inline void check_trace(const Trace& trace) {
  auto broken = [](const char* what) {
    std::fprintf(stderr, "accepted trace breaks an invariant: %s\n", what);
    std::abort();
  };
  if (trace.allocations + trace.frees != trace.events.size()) broken("allocations + frees != events");
  std::vector<char> state(trace.allocations, 0);  // 0 unseen, 1 live, 2 freed
  std::uint64_t next_id = 0;
  std::uint64_t last_line = 1;
  for (const TraceEvent& event : trace.events) {
    if (event.line < last_line) broken("an event's line is before the previous one's");
    last_line = event.line;
    if (event.stream >= trace.streams.size()) broken("a stream index names no stream");
    if (event.kind == TraceEvent::Kind::kAllocate) {
      if (event.id != next_id++ || event.id >= state.size()) {
        broken("allocation ids are not dense and in order");
      }
      state[event.id] = 1;
    } else {
      if (event.id >= trace.allocations || state[event.id] != 1) broken("a free of no live allocation");
      state[event.id] = 2;
    }
  }
  if (!trace.streams.empty() && trace.streams[0] != 0) broken("stream 0 is not the default stream");
}

}  // namespace accel::replay::fuzz
