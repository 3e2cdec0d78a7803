// A stream-ordering bug, and what the simulated hardware says about it: two of the
// runtime's streams fill the same bytes with nothing ordering them, so which value the
// buffer ends with depends on the hardware's schedule. Run it on a simulated machine:
//
//   accel run --machine 2xa100 -- stream_race            # the race report on stderr
//   accel run --machine 2xa100 -- stream_race --ordered  # the same work, ordered: no report
//
// The report names both streams as the program knows them (their Stream::id(), through the
// runtime's tool interface, which `accel run` connects to the simulated hardware) and the
// line that queued each fill. --ordered makes the second stream wait for the first
// (Stream::wait_stream), which is the fix. Exit status: 0, or 2 for a usage error; under
// `accel run --races fail` a run that raced ends with the simulation's 86.
#include <accel/accel.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  const bool ordered = argc == 2 && std::strcmp(argv[1], "--ordered") == 0;
  if (argc > 2 || (argc == 2 && !ordered)) {
    std::fprintf(stderr, "usage: stream_race [--ordered]\n");
    return 2;
  }
  accel::Stream first(0);
  accel::Stream second(0, -1);
  accel::DataPtr buffer = accel::allocate(4096);
  accel::fill_async(buffer.get(), 1, 4096, first);
  if (ordered) second.wait_stream(first);
  accel::fill_async(buffer.get(), 2, 4096, second);
  accel::synchronize();
  std::printf("first stream id=%lld, second stream id=%lld\n",
              static_cast<long long>(first.id()), static_cast<long long>(second.id()));
  return 0;
}
