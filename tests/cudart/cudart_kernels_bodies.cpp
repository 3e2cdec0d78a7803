#include "cudart_kernels_bodies.h"

#include <cstdint>

#include "mockdev/kernels.h"

namespace accel_test {

using mockdev::kernels::Accesses;
using mockdev::kernels::DeviceMemory;
using mockdev::kernels::KernelSpec;
using mockdev::kernels::Launch;

void register_kernel_bodies() {
  // scale_add(float* out, const float* in, float a, int n): out[i] = a * in[i] + 1.
  KernelSpec scale_add;
  scale_add.name = "_Z9scale_addPfPKffi";
  scale_add.param_sizes = {8, 8, 4, 4};
  scale_add.body = [](const Launch& l, DeviceMemory& m) {
    const auto out = l.arg<std::uint64_t>(0);
    const auto in = l.arg<std::uint64_t>(1);
    const auto a = l.arg<float>(2);
    const auto n = l.arg<int>(3);
    const int threads = static_cast<int>(l.grid[0] * l.block[0]);
    for (int i = 0; i < n && i < threads; ++i) {
      m.store<float>(out + 4u * i, a * m.load<float>(in + 4u * i) + 1.0f);
    }
  };
  scale_add.accesses = [](const Launch& l) {
    const auto n = static_cast<std::uint64_t>(l.arg<int>(3));
    return Accesses{{{l.arg<std::uint64_t>(1), 4 * n}}, {{l.arg<std::uint64_t>(0), 4 * n}}};
  };
  mockdev::kernels::register_kernel(scale_add);

  // fill<int>(int* out, int value, int n): out[i] = value.
  KernelSpec fill;
  fill.name = "_Z4fillIiEvPT_S0_i";
  fill.param_sizes = {8, 4, 4};
  fill.body = [](const Launch& l, DeviceMemory& m) {
    const auto out = l.arg<std::uint64_t>(0);
    const int threads = static_cast<int>(l.grid[0] * l.block[0]);
    for (int i = 0; i < l.arg<int>(2) && i < threads; ++i) {
      m.store<int>(out + 4u * i, l.arg<int>(1));
    }
  };
  fill.accesses = [](const Launch& l) {
    return Accesses{{}, {{l.arg<std::uint64_t>(0), 4 * static_cast<std::uint64_t>(l.arg<int>(2))}}};
  };
  mockdev::kernels::register_kernel(fill);

  // slow(): no effect, one virtual second.
  KernelSpec slow;
  slow.name = "_Z4slowv";
  slow.duration_ns = 1000000000;
  mockdev::kernels::register_kernel(slow);
}

}  // namespace accel_test
