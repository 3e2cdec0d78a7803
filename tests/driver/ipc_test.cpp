// Interprocess memory and event handles (CUDA Driver API, "Memory Management" and "Event
// Management"; mockdev/src/cuda/driver_ipc.cpp, Note [IPC handles]). Opening a handle needs
// a second process that shares the device; what one process can check is exporting, the
// arguments, and opening in the exporting process.

#include <cstring>

#include "driver_test.h"

namespace accel::driver_test {
namespace {

using Ipc = DriverTest;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// cuIpcGetMemHandle "Takes a pointer to the base of an existing device memory allocation
// created with cuMemAlloc"; a pointer inside one exports it too (Recording 2), a freed one
// is CUDA_ERROR_INVALID_VALUE.
TEST_F(Ipc, MemoryHandlesExportAnAllocationsBase) {
  ACCEL_REQUIRE_SYMBOLS("cuIpcGetMemHandle");
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&p, 2 * kMiB));
  CUipcMemHandle first{}, second{};
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuIpcGetMemHandle(&first, p));
  // "may be called multiple times on an allocation without adverse effects"
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuIpcGetMemHandle(&second, p));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuIpcGetMemHandle(nullptr, p));
  CUipcMemHandle interior{};
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuIpcGetMemHandle(&interior, p + 256));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(p));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuIpcGetMemHandle(&first, p));
}

// [inferred] Opening a memory handle in the process that exported it is
// CUDA_ERROR_INVALID_CONTEXT; flags other than CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS are
// CUDA_ERROR_INVALID_VALUE; a NULL output too.
TEST_F(Ipc, AMemoryHandleDoesNotOpenInItsOwnProcess) {
  ACCEL_REQUIRE_SYMBOLS("cuIpcGetMemHandle", "cuIpcOpenMemHandle_v2");
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&p, 2 * kMiB));
  CUipcMemHandle handle{};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuIpcGetMemHandle(&handle, p));
  CUdeviceptr opened = 0;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
                  cu().cuIpcOpenMemHandle_v2(&opened, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuIpcOpenMemHandle_v2(&opened, handle, 0x2));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuIpcOpenMemHandle_v2(nullptr, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  EXPECT_EQ(opened, 0u);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(p));
}

// A memory handle no driver made (all zero) is CUDA_ERROR_INVALID_VALUE, and closing an
// address that no handle opened too; such an event handle is CUDA_ERROR_MAP_FAILED
// (Recording 2).
TEST_F(Ipc, AHandleNoDriverMadeIsInvalid) {
  ACCEL_REQUIRE_SYMBOLS("cuIpcOpenMemHandle_v2", "cuIpcCloseMemHandle", "cuIpcOpenEventHandle");
  CUipcMemHandle zero{};
  CUdeviceptr opened = 0;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuIpcOpenMemHandle_v2(&opened, zero, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&p, 2 * kMiB));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuIpcCloseMemHandle(p));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(p));
  CUipcEventHandle zero_event{};
  CUevent event = nullptr;
  ACCEL_EXPECT_CU(CUDA_ERROR_MAP_FAILED, cu().cuIpcOpenEventHandle(&event, zero_event));
}

// cuIpcGetEventHandle: "The event must have been created with the CU_EVENT_INTERPROCESS and
// CU_EVENT_DISABLE_TIMING flags set" (else CUDA_ERROR_INVALID_HANDLE); opening it in its
// own process is CUDA_ERROR_INVALID_CONTEXT (both Recording 2).
TEST_F(Ipc, EventHandlesNeedAnInterprocessEvent) {
  ACCEL_REQUIRE_SYMBOLS("cuIpcGetEventHandle", "cuIpcOpenEventHandle");
  CUevent plain = nullptr, shared = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuEventCreate(&plain, CU_EVENT_DISABLE_TIMING));
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuEventCreate(&shared, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
  CUipcEventHandle handle{};
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cu().cuIpcGetEventHandle(&handle, plain));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuIpcGetEventHandle(&handle, shared));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuIpcGetEventHandle(nullptr, shared));
  CUevent opened = nullptr;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cu().cuIpcOpenEventHandle(&opened, handle));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuEventDestroy_v2(plain));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuEventDestroy_v2(shared));
}

}  // namespace
}  // namespace accel::driver_test
