// The simulated libcuda.so.1 through dlopen: exports, the not-initialised gate, cuInit,
// device queries, primary contexts and the per-thread current context.

#include <cstring>
#include <thread>

#include "mock_test.h"

namespace mockdev::testing {
namespace {

using MockCuda = MockTest;

TEST_F(MockCuda, ExportsExactlyTheAbiEntryPoints) {
  std::set<std::string> expected = {"cuGetProcAddress_v2", "cuGetProcAddress"};
#define MOCKDEV_TEST_NAME(name, version, symbol, params) expected.insert(#symbol);
  ACCEL_CUDA_ENTRY_POINTS(MOCKDEV_TEST_NAME)
#undef MOCKDEV_TEST_NAME
#define MOCKDEV_TEST_PT_NAME(name, version, symbol, variant, pt_version, suffix, params, args, \
                             traits)                                                          \
  expected.insert(#variant);
  ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_TEST_PT_NAME)
#undef MOCKDEV_TEST_PT_NAME
  EXPECT_EQ(defined_dynamic_symbols(cuda_driver_path()), expected);
  // The legacy (unversioned) ABI names are not served.
  EXPECT_EQ(dlsym(cu().handle, "cuMemAlloc"), nullptr);
  EXPECT_EQ(dlsym(cu().handle, "cuDeviceTotalMem"), nullptr);
}

// Calls `f` with every argument value-initialised (null pointers, zero sizes and handles).
template <class... A>
CUresult call_with_zeros(CUresult (*f)(A...)) {
  return f(A{}...);
}

// A row NOT_SUPPORTED by design answers CUDA_ERROR_NOT_SUPPORTED for every argument once
// past the gates, null pointers included (docs/CUDA_DRIVER_COVERAGE.md lists them).
TEST_F(MockCuda, RowsNotSupportedByDesignAnswerNotSupported) {
  init_and_make_current(0);
  int rows = 0;
#define MOCKDEV_TEST_UNSUPPORTED(name, version, symbol, params, args, traits)            \
  if (((traits) & kNotSupportedByDesign) != 0) {                                         \
    ++rows;                                                                              \
    EXPECT_EQ(call_with_zeros(cu().symbol), CUDA_ERROR_NOT_SUPPORTED) << #symbol;       \
  }
  ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_TEST_UNSUPPORTED)
#undef MOCKDEV_TEST_UNSUPPORTED
  // The rows docs/CUDA_DRIVER_COVERAGE.md counts as NOT_SUPPORTED by design.
  EXPECT_EQ(rows, 13);
}

TEST_F(MockCuda, LoadedByPathItAnswersToItsSoname) {
  // Every later dlopen("libcuda.so.1") in the process gets this same object (glibc's dlopen matches
  // a loaded library by SONAME).
  ASSERT_NE(cu().handle, nullptr);  // loaded by path
  ASSERT_NE(nv().handle, nullptr);
  void* by_name = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(by_name, nullptr);
  EXPECT_EQ(dlsym(by_name, "cuInit"), reinterpret_cast<void*>(cu().cuInit));
  dlclose(by_name);
  void* nvml_by_name = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(nvml_by_name, nullptr);
  EXPECT_EQ(dlsym(nvml_by_name, "nvmlInit_v2"), reinterpret_cast<void*>(nv().nvmlInit_v2));
  dlclose(nvml_by_name);
}

TEST_F(MockCuda, EveryEntryPointButTheQueriesNeedsCuInit) {
  int value = 0;
  CUdevice dev = 0;
  char name[64];
  std::size_t bytes = 0, bytes2 = 0;
  CUuuid uuid;
  CUcontext ctx = nullptr;
  unsigned flags = 0;
  CUdeviceptr ptr = 0;
  EXPECT_EQ(cu().cuDeviceGetCount(&value), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDeviceGetName(name, 64, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0),
            CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDeviceTotalMem_v2(&bytes, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDeviceGetUuid_v2(&uuid, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDeviceGetPCIBusId(name, 64, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuDevicePrimaryCtxGetState(0, &flags, &value), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuCtxSetCurrent(nullptr), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuCtxGetCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuMemGetInfo_v2(&bytes, &bytes2), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuMemAlloc_v2(&ptr, 16), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cu().cuMemFree_v2(ptr), CUDA_ERROR_NOT_INITIALIZED);

  EXPECT_EQ(cu().cuDriverGetVersion(&value), CUDA_SUCCESS);
  EXPECT_EQ(value, 13000);
  const char* text = nullptr;
  EXPECT_EQ(cu().cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "CUDA_ERROR_NOT_INITIALIZED");
  EXPECT_EQ(cu().cuGetErrorString(CUDA_ERROR_NOT_INITIALIZED, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "initialization error");
  void* pfn = nullptr;
  EXPECT_EQ(cu().cuGetProcAddress_v2("cuInit", &pfn, 2000, 0, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuInit));

  EXPECT_FALSE(control::driver_initialized());
  EXPECT_EQ(control::call_count("cuInit"), 0u);
  EXPECT_EQ(control::call_count("cuDeviceGetCount"), 1u);
}

TEST_F(MockCuda, CuInitRejectsFlagsAndIsIdempotent) {
  EXPECT_EQ(cu().cuInit(1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_FALSE(control::driver_initialized());
  EXPECT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_TRUE(control::driver_initialized());
  EXPECT_EQ(control::call_count("cuInit"), 3u);
}

TEST_F(MockCuda, NoDevicesMeansNoDevice) {
  use_machine("none");
  EXPECT_EQ(cu().cuInit(0), CUDA_ERROR_NO_DEVICE);
  int count = -1;
  EXPECT_EQ(cu().cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
}

TEST_F(MockCuda, DeviceQueries) {
  use_machine("mixed");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  int count = 0;
  ASSERT_EQ(cu().cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(count, 2);
  CUdevice dev = -1;
  EXPECT_EQ(cu().cuDeviceGet(&dev, 1), CUDA_SUCCESS);
  EXPECT_EQ(dev, 1);
  EXPECT_EQ(cu().cuDeviceGet(&dev, 2), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDeviceGet(nullptr, 0), CUDA_ERROR_INVALID_VALUE);

  char name[96];
  ASSERT_EQ(cu().cuDeviceGetName(name, sizeof name, 1), CUDA_SUCCESS);
  EXPECT_STREQ(name, "Tesla T4");
  ASSERT_EQ(cu().cuDeviceGetName(name, 5, 0), CUDA_SUCCESS);
  EXPECT_STREQ(name, "NVID");  // truncated and terminated
  EXPECT_EQ(cu().cuDeviceGetName(name, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceGetName(name, 96, 2), CUDA_ERROR_INVALID_DEVICE);

  int v = 0;
  EXPECT_EQ(cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 1),
            CUDA_SUCCESS);
  EXPECT_EQ(v, 7);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 1),
            CUDA_SUCCESS);
  EXPECT_EQ(v, 5);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(v, 132);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_INTEGRATED, 0), CUDA_SUCCESS);
  EXPECT_EQ(v, 0);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 1), CUDA_SUCCESS);
  EXPECT_EQ(v, 0x11);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 1), CUDA_SUCCESS);
  EXPECT_EQ(v, 0);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 5),
            CUDA_ERROR_INVALID_DEVICE);

  std::size_t bytes = 0;
  EXPECT_EQ(cu().cuDeviceTotalMem_v2(&bytes, 1), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 15ULL << 30);
  EXPECT_EQ(cu().cuDeviceTotalMem_v2(nullptr, 1), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MockCuda, UuidBytesSpellTheMachineUuid) {
  use_yaml(
      "name: u\ndevices:\n  - {name: d, memory: 1GiB, compute_capability: '9.0', multiprocessors: "
      "1, uuid: GPU-00112233-4455-6677-8899-aAbBcCdDeEfF}\n");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUuuid uuid;
  ASSERT_EQ(cu().cuDeviceGetUuid_v2(&uuid, 0), CUDA_SUCCESS);
  const unsigned char expected[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                      0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  EXPECT_EQ(std::memcmp(uuid.bytes, expected, 16), 0);
  EXPECT_EQ(cu().cuDeviceGetUuid_v2(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceGetUuid_v2(&uuid, 1), CUDA_ERROR_INVALID_DEVICE);
}

// The driver's format ("0000:1B:00.0": four-digit domain, upper-case hex, 13 bytes with the
// terminator) from the machine file's nvidia-smi-style id, in visible order; a buffer too
// short for the whole id is CUDA_ERROR_INVALID_VALUE (a modelling choice).
TEST_F(MockCuda, PciBusIdInTheDriversFormat) {
  use_yaml(
      "name: p\ndevices:\n"
      "  - {name: a, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1,\n"
      "     pci_bus_id: 00000000:1b:0a.0}\n"
      "  - {name: b, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1,\n"
      "     pci_bus_id: 0001A2B3:C4:1F.3}\n"
      "  - {name: c, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1}\n");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  char id[64];
  ASSERT_EQ(cu().cuDeviceGetPCIBusId(id, sizeof id, 0), CUDA_SUCCESS);
  EXPECT_STREQ(id, "0000:1B:0A.0");
  ASSERT_EQ(cu().cuDeviceGetPCIBusId(id, sizeof id, 1), CUDA_SUCCESS);
  EXPECT_STREQ(id, "1A2B3:C4:1F.3");  // a domain above 0xFFFF keeps its digits
  ASSERT_EQ(cu().cuDeviceGetPCIBusId(id, 13, 2), CUDA_SUCCESS);  // exactly enough
  EXPECT_STREQ(id, "0000:12:00.0");                              // generated: 0x10 + index
  std::memset(id, 'x', sizeof id);
  EXPECT_EQ(cu().cuDeviceGetPCIBusId(id, 12, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_STREQ(id, "0000:12:00.");  // as much as fits, terminated (Recording 2)
  EXPECT_EQ(cu().cuDeviceGetPCIBusId(id, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceGetPCIBusId(nullptr, 64, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceGetPCIBusId(id, 64, 3), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDeviceGetPCIBusId(id, 64, -1), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(MockCuda, PciBusIdFollowsCudaVisibleDevices) {
  setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
  use_machine("mixed");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  char id[64];
  ASSERT_EQ(cu().cuDeviceGetPCIBusId(id, sizeof id, 0), CUDA_SUCCESS);
  EXPECT_STREQ(id, "0000:11:00.0");
  ASSERT_EQ(cu().cuDeviceGetPCIBusId(id, sizeof id, 1), CUDA_SUCCESS);
  EXPECT_STREQ(id, "0000:10:00.0");
  unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST_F(MockCuda, ErrorNamesAndStrings) {
  const char* s = nullptr;
  EXPECT_EQ(cu().cuGetErrorName(CUDA_ERROR_INVALID_DEVICE, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "CUDA_ERROR_INVALID_DEVICE");
  EXPECT_EQ(cu().cuGetErrorString(CUDA_ERROR_INVALID_DEVICE, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "invalid device ordinal");
  EXPECT_EQ(cu().cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "out of memory");
  EXPECT_EQ(cu().cuGetErrorString(CUDA_ERROR_NO_DEVICE, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "no CUDA-capable device is detected");
  EXPECT_EQ(cu().cuGetErrorString(CUDA_ERROR_TIMEOUT, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "wait operation timed out");  // the driver's text (Note [Result texts])
  s = "untouched";
  EXPECT_EQ(cu().cuGetErrorName(static_cast<CUresult>(12345), &s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(s, nullptr);
  s = "untouched";
  EXPECT_EQ(cu().cuGetErrorString(static_cast<CUresult>(-1), &s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(cu().cuGetErrorName(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MockCuda, PrimaryContextLifecycle) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUdevice dev = -1;
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext current = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cu().cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, nullptr);

  unsigned flags = 7;
  int active = 7;
  EXPECT_EQ(cu().cuDevicePrimaryCtxGetState(2, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(active, 0);

  CUcontext a = nullptr, b = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&a, 2), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&b, 2), CUDA_SUCCESS);
  EXPECT_NE(a, nullptr);
  EXPECT_EQ(a, b);  // one primary context per device
  EXPECT_EQ(cu().cuDevicePrimaryCtxGetState(2, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 1);
  control::LiveObjects live = control::live_objects();
  EXPECT_EQ(live.primary_contexts_active, 1u);
  EXPECT_EQ(live.descriptions, std::vector<std::string>{"ctx dev=2 refs=2"});

  ASSERT_EQ(cu().cuCtxSetCurrent(a), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, a);
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_SUCCESS);
  EXPECT_EQ(dev, 2);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);

  EXPECT_EQ(cu().cuDevicePrimaryCtxRelease_v2(2), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuDevicePrimaryCtxRelease_v2(2), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuDevicePrimaryCtxRelease_v2(2), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cu().cuDevicePrimaryCtxGetState(2, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(control::live_objects().primary_contexts_active, 0u);
  // The released context is still this thread's current one, but no longer usable; work on
  // it reports CUDA_ERROR_CONTEXT_IS_DESTROYED, as the real driver does (docs/HARDWARE.md).
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  // [inferred] Setting it again succeeds, as for a destroyed created context (Recording 2).
  EXPECT_EQ(cu().cuCtxSetCurrent(a), CUDA_SUCCESS);
  // Retained again, the same handle comes back.
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&b, 2), CUDA_SUCCESS);
  EXPECT_EQ(b, a);
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cu().cuDevicePrimaryCtxRetain(&b, 4), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDevicePrimaryCtxRelease_v2(-1), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(MockCuda, UnknownContextHandlesAreRejectedWithoutBeingRead) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  // Pointers the driver never handed out; the engine must not dereference them.
  EXPECT_EQ(cu().cuCtxSetCurrent(reinterpret_cast<CUcontext>(0x10)), CUDA_ERROR_INVALID_CONTEXT);
  int local = 0;
  EXPECT_EQ(cu().cuCtxSetCurrent(reinterpret_cast<CUcontext>(&local)), CUDA_ERROR_INVALID_CONTEXT);
  // A context from before a reset is dead afterwards.
  CUcontext old = init_and_make_current(1);
  use_machine("4xh100");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSetCurrent(old), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext current = old;
  EXPECT_EQ(cu().cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, nullptr);
}

TEST_F(MockCuda, CurrentContextIsPerThread) {
  CUcontext ctx = init_and_make_current(3);
  CUcontext seen = ctx;
  CUdevice other_dev = -1;
  CUresult other_rc = CUDA_SUCCESS;
  std::thread t([&] {
    cu().cuCtxGetCurrent(&seen);
    other_rc = cu().cuCtxGetDevice(&other_dev);
    CUcontext c1 = nullptr;
    cu().cuDevicePrimaryCtxRetain(&c1, 1);
    cu().cuCtxSetCurrent(c1);
  });
  t.join();
  EXPECT_EQ(seen, nullptr);
  EXPECT_EQ(other_rc, CUDA_ERROR_INVALID_CONTEXT);
  CUdevice dev = -1;
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_SUCCESS);
  EXPECT_EQ(dev, 3);  // the other thread's cuCtxSetCurrent did not change ours
}

TEST_F(MockCuda, DriverVersionComesFromTheMachine) {
  use_machine(std::string(MOCKDEV_TEST_MACHINES_DIR) + "/small_memory.yaml");
  int version = 0;
  EXPECT_EQ(cu().cuDriverGetVersion(&version), CUDA_SUCCESS);
  EXPECT_EQ(version, 12080);
  EXPECT_EQ(cu().cuDriverGetVersion(nullptr), CUDA_ERROR_INVALID_VALUE);
}

}  // namespace
}  // namespace mockdev::testing
