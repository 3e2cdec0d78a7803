// The CUDA driver and NVML serve the NVIDIA devices of a machine only (docs/MACHINE_FILES.md,
// "Vendors, tiles and Level Zero"): on mixed_vendors (NVIDIA, Intel, NVIDIA, Intel) they
// see two devices, CUDA ordinals and NVML indices count NVIDIA devices, and memory stays
// accounted to the physical (machine-file) index.

#include <cstdio>
#include <string>

#include "core/device_ids.h"
#include "cuda/visible_devices.h"
#include "mock_test.h"
#include "mockdev/memory.h"

namespace mockdev::testing {
namespace {

class VendorFilter : public MockTest {
 protected:
  void SetUp() override {
    MockTest::SetUp();
    use_machine("mixed_vendors");
  }

  static std::string uuid_of(CUdevice dev) {
    CUuuid uuid{};
    EXPECT_EQ(cu().cuDeviceGetUuid_v2(&uuid, dev), CUDA_SUCCESS);
    const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
    char text[64];
    std::snprintf(text, sizeof text,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return text;
  }
  static std::string name_of(CUdevice dev) {
    char name[128] = {};
    EXPECT_EQ(cu().cuDeviceGetName(name, sizeof name, dev), CUDA_SUCCESS);
    return name;
  }
  static std::string pci_of(CUdevice dev) {
    char text[64] = {};
    EXPECT_EQ(cu().cuDeviceGetPCIBusId(text, sizeof text, dev), CUDA_SUCCESS);
    return text;
  }
  // The machine's device `physical`.
  static const DeviceSpec& physical(int index) {
    static const MachineSpec machine = load_machine("mixed_vendors");
    return machine.devices.at(static_cast<std::size_t>(index));
  }
};

TEST_F(VendorFilter, CudaSeesExactlyTheTwoH100s) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  int count = 0;
  ASSERT_EQ(cu().cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(count, 2);
  EXPECT_EQ(name_of(0), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(name_of(1), "NVIDIA H100 80GB HBM3");
  // CUDA device 1 is the machine's device 2 (device 1 is the Intel Max 1550).
  EXPECT_EQ(uuid_of(0), core::generate_uuid("mixed_vendors", 0));
  EXPECT_EQ(uuid_of(1), core::generate_uuid("mixed_vendors", 2));
  // cuDeviceGetPCIBusId writes a 4-digit domain.
  EXPECT_EQ("0000" + pci_of(1), physical(2).pci_bus_id);
  EXPECT_EQ(physical(2).pci_bus_id, core::generate_pci_bus_id(2));
  CUdevice dev = 0;
  EXPECT_EQ(cu().cuDeviceGet(&dev, 2), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(VendorFilter, CudaVisibleDevicesOrdinalsCountNvidiaDevicesOnly) {
  setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  int count = 0;
  ASSERT_EQ(cu().cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(name_of(0), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(uuid_of(0), physical(2).uuid);  // the second H100, not the Intel device 1
}

TEST_F(VendorFilter, CudaVisibleDevicesBeyondTheNvidiaDevicesSelectsNothing) {
  // Ordinal 2 would be a physical device (the second H100) if Intel devices counted.
  setenv("CUDA_VISIBLE_DEVICES", "2", 1);
  EXPECT_EQ(cu().cuInit(0), CUDA_ERROR_NO_DEVICE);
}

TEST_F(VendorFilter, AnIntelUuidIsNoCudaDevice) {
  setenv("CUDA_VISIBLE_DEVICES", physical(1).uuid.c_str(), 1);
  EXPECT_EQ(cu().cuInit(0), CUDA_ERROR_NO_DEVICE);
}

TEST_F(VendorFilter, NvmlSeesExactlyTheTwoH100s) {
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  unsigned count = 0;
  ASSERT_EQ(nv().nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 2u);
  nvmlDevice_t handle = nullptr;
  char text[96] = {};
  for (unsigned i = 0; i < 2; ++i) {
    ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(i, &handle), NVML_SUCCESS);
    ASSERT_EQ(nv().nvmlDeviceGetName(handle, text, sizeof text), NVML_SUCCESS);
    EXPECT_STREQ(text, "NVIDIA H100 80GB HBM3");
    ASSERT_EQ(nv().nvmlDeviceGetUUID(handle, text, sizeof text), NVML_SUCCESS);
    EXPECT_EQ(std::string(text), physical(static_cast<int>(2 * i)).uuid) << i;
  }
  EXPECT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(2, &handle), NVML_ERROR_INVALID_ARGUMENT);
  // By UUID: an H100 is found as its own handle, an Intel device not at all.
  nvmlDevice_t second = nullptr;
  ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(1, &second), NVML_SUCCESS);
  EXPECT_EQ(nv().nvmlDeviceGetHandleByUUID(physical(2).uuid.c_str(), &handle), NVML_SUCCESS);
  EXPECT_EQ(handle, second);
  EXPECT_EQ(nv().nvmlDeviceGetHandleByUUID(physical(1).uuid.c_str(), &handle),
            NVML_ERROR_NOT_FOUND);
  EXPECT_EQ(nv().nvmlDeviceGetHandleByUUID(physical(3).uuid.c_str(), &handle),
            NVML_ERROR_NOT_FOUND);
}

TEST_F(VendorFilter, MemoryStaysOnThePhysicalDevice) {
  // Allocate on CUDA device 1: the machine's device 2 holds it, NVML index 1 reports it.
  CUcontext ctx = init_and_make_current(1);
  ASSERT_NE(ctx, nullptr);
  CUdeviceptr ptr = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&ptr, 64u << 20), CUDA_SUCCESS);
  EXPECT_EQ(control::memory_usage(2).allocation_bytes, 64u << 20);
  EXPECT_EQ(control::memory_usage(1).allocation_bytes, 0u);
  EXPECT_EQ(control::memory_usage(0).allocation_bytes, 0u);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t handle = nullptr;
  ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(1, &handle), NVML_SUCCESS);
  nvmlMemory_t memory{};
  ASSERT_EQ(nv().nvmlDeviceGetMemoryInfo(handle, &memory), NVML_SUCCESS);
  EXPECT_EQ(memory.total, 80ull << 30);
  EXPECT_EQ(memory.used, control::memory_usage(2).used_bytes);
  EXPECT_GE(memory.used, 64u << 20);
  EXPECT_EQ(cu().cuMemFree_v2(ptr), CUDA_SUCCESS);
}

TEST_F(VendorFilter, AnIntelOnlyMachineHasNoCudaDeviceLikeAnEmptyOne) {
  use_machine("none");
  const CUresult empty = cu().cuInit(0);
  EXPECT_EQ(empty, CUDA_ERROR_NO_DEVICE);
  use_machine("2xmax1550");
  EXPECT_EQ(cu().cuInit(0), empty);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  unsigned count = 7;
  ASSERT_EQ(nv().nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 0u);
}

TEST(VendorFilterRules, TheSelectionHoldsPhysicalIndicesOfNvidiaDevices) {
  const MachineSpec m = load_machine("mixed_vendors");
  using cuda::select_visible_devices;
  EXPECT_EQ(select_visible_devices(std::nullopt, m.devices).devices, (std::vector<int>{0, 2}));
  EXPECT_EQ(select_visible_devices("1,0", m.devices).devices, (std::vector<int>{2, 0}));
  EXPECT_EQ(select_visible_devices("0,2,1", m.devices).devices, (std::vector<int>{0}));
  EXPECT_TRUE(select_visible_devices("1,1", m.devices).repeated);
  // UUIDs: an H100's selects it; an Intel device's matches nothing and ends the list.
  const std::string h100 = m.devices[2].uuid.substr(0, 12);
  EXPECT_EQ(select_visible_devices(h100, m.devices).devices, (std::vector<int>{2}));
  const std::string list = m.devices[3].uuid + "," + m.devices[0].uuid;
  EXPECT_TRUE(select_visible_devices(list, m.devices).devices.empty());
  EXPECT_TRUE(select_visible_devices(std::nullopt, load_machine("2xmax1550").devices)
                  .devices.empty());
}

}  // namespace
}  // namespace mockdev::testing
