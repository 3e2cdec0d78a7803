#pragma once
// The host bodies of cudart_kernels_program.cu's kernels, registered for the simulation
// (mockdev/kernels.h): the simulated GPU runs these instead of the device code.

namespace accel_test {

// Registers scale_add, fill<int> and slow by their mangled names.
void register_kernel_bodies();

}  // namespace accel_test
