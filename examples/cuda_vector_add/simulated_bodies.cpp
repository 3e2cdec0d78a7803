// What vector_add does, for the simulated GPU (the only simulation-specific file of the
// example; copy it next to your program and describe your own kernels the same way). The
// simulated driver finds a kernel by its mangled name (`cuobjdump -elf` or `nm` on the object
// shows it) and, at each launch, runs this host body over the simulated device memory when
// the launch completes in virtual time; `accesses` tells the race detector what one launch
// reads and writes. Registered before main by a static constructor, so vector_add.cu needs
// no change. Link with -lmockdev (accel's simulated-hardware library).

#include <cstdint>

#include "mockdev/kernels.h"

namespace {

using mockdev::kernels::Accesses;
using mockdev::kernels::DeviceMemory;
using mockdev::kernels::KernelSpec;
using mockdev::kernels::Launch;

const bool registered = [] {
  KernelSpec spec;
  spec.name = "_Z10vector_addPKfS0_Pfi";  // vector_add(const float*, const float*, float*, int)
  spec.param_sizes = {8, 8, 8, 4};
  spec.body = [](const Launch& l, DeviceMemory& memory) {
    const auto a = l.arg<std::uint64_t>(0);
    const auto b = l.arg<std::uint64_t>(1);
    const auto c = l.arg<std::uint64_t>(2);
    const int n = l.arg<int>(3);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t at = 4u * static_cast<std::uint64_t>(i);
      memory.store<float>(c + at, memory.load<float>(a + at) + memory.load<float>(b + at));
    }
  };
  spec.accesses = [](const Launch& l) {
    const std::uint64_t bytes = 4u * static_cast<std::uint64_t>(l.arg<int>(3));
    return Accesses{{{l.arg<std::uint64_t>(0), bytes}, {l.arg<std::uint64_t>(1), bytes}},
                    {{l.arg<std::uint64_t>(2), bytes}}};
  };
  mockdev::kernels::register_kernel(spec);
  return true;
}();

}  // namespace
