// cuDeviceGetAttribute answers every attribute of CUDA 13.0's enum (Note [Device attribute
// answers] in mockdev/src/cuda/device_attributes.h), and the machine file's `attributes:`
// map overrides them.

#include <set>
#include <string>

#include "core/architecture_defaults.h"
#include "cuda/device_attributes.h"
#include "mock_test.h"

namespace mockdev::testing {
namespace {

using MockAttributes = MockTest;

int attribute(int attrib, CUdevice dev = 0) {
  int value = -12345;
  EXPECT_EQ(cuda().cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(attrib), dev),
            CUDA_SUCCESS)
      << "attribute " << attrib;
  return value;
}

TEST_F(MockAttributes, EveryValueOfTheEnumIsAnsweredAndNothingElse) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  int answered = 0;
  for (int a = -2; a <= CU_DEVICE_ATTRIBUTE_MAX + 2; ++a) {
    int value = -12345;
    CUresult rc = cu().cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(a), 0);
    if (a >= 1 && a < CU_DEVICE_ATTRIBUTE_MAX) {
      EXPECT_EQ(rc, CUDA_SUCCESS) << a;
      ++answered;
    } else {
      EXPECT_EQ(rc, CUDA_ERROR_INVALID_VALUE) << a;
      EXPECT_EQ(value, -12345) << a;  // untouched on failure
    }
  }
  EXPECT_EQ(answered, 147);
  int value = 0;
  EXPECT_EQ(cu().cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(9999), 0),
            CUDA_ERROR_INVALID_VALUE);  // recorded on an H200 (tests/hardware/recorded)
  EXPECT_EQ(cu().cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(0x80000000u), 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0),
            CUDA_ERROR_INVALID_VALUE);
  // [inferred] a bad device wins over a bad attribute.
  EXPECT_EQ(cu().cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MAX, 4),
            CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cu().cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_WARP_SIZE, -1),
            CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(MockAttributes, NeedsCuInit) {
  int value = 0;
  EXPECT_EQ(cu().cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0),
            CUDA_ERROR_NOT_INITIALIZED);
}

TEST_F(MockAttributes, DeprecatedAttributesAndAliasesAreAnswered) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_GPU_OVERLAP), 1);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER), 1);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH), 268435456);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH), 1);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK),
            attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK), 65536);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED), 1);
}

// The answers that existed before every attribute was modelled keep their values.
TEST_F(MockAttributes, IdentityAttributesComeFromTheDevicesOwnKeys) {
  use_yaml(R"(name: ids
devices:
  - name: NVIDIA H100 80GB HBM3
    memory: 80GiB
    compute_capability: "9.0"
    multiprocessors: 132
    pci_bus_id: "00000012:AB:1F.0"
  - name: Tesla T4
    memory: 15GiB
    compute_capability: "7.5"
    multiprocessors: 40
)");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), 132);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1), 40);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 1), 7);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 1), 5);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_INTEGRATED, 0), 0);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0), 0x12);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0), 0xAB);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0), 0x1F);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 1), 0);
}

TEST_F(MockAttributes, DefaultsFollowTheArchitecture) {
  use_machine("mixed");  // an H100 (9.0) and a T4 (7.5)
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  for (int dev : {0, 1}) {
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev), 32);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev), 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, dev), 2147483647);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev), 1);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev), 0);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_TCC_DRIVER, dev), 0);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID, dev), dev);
  }
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0), 50 << 20);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 1), 4 << 20);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 0), 2048);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 1), 1024);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0), 227 * 1024);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 1), 64 * 1024);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 0), 3);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0), 1);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 1), 0);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, 1), 0);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, 0), 0x233010DE);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, 1), 0x1EB810DE);
}

TEST(MockArchitectures, NearestRowAtOrBelowTheCapability) {
  EXPECT_EQ(core::architecture_for(9, 0).name, "Hopper");
  EXPECT_EQ(core::architecture_for(8, 7).name, "Ampere (GA10x)");
  EXPECT_EQ(core::architecture_for(8, 0).name, "Ampere");
  EXPECT_EQ(core::architecture_for(10, 3).name, "Blackwell");
  EXPECT_EQ(core::architecture_for(6, 1).name, "Volta");  // below the first row
  EXPECT_EQ(core::architecture_for(99, 9).name, "Blackwell (GB20x)");
}

TEST_F(MockAttributes, MachineFileOverridesWinAndAreVisibleThroughTheMapping) {
  use_yaml(R"(name: custom
devices:
  - name: A
    memory: 1GiB
    compute_capability: "8.0"
    multiprocessors: 10
    attributes:
      compute_mode: 3
      ecc_enabled: 0
      clock_rate: 1000
      numa_id: -1
      registers_per_block: 32768
  - name: B
    memory: 1GiB
    compute_capability: "8.0"
    multiprocessors: 20
)");
  setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 1), 3);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 1), 0);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1), 1000);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_NUMA_ID, 1), -1);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 1), 32768);  // by alias
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0), 0);  // physical 1: defaults
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 0), 1);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0), 1410000);
}

TEST(MockAttributeKeys, KeysAreTheVendorNamesInLowerCase) {
  EXPECT_EQ(cuda::attribute_key(1), "max_threads_per_block");
  EXPECT_EQ(cuda::attribute_key(102), "virtual_memory_management_supported");
  EXPECT_EQ(cuda::attribute_key(147), "only_partial_host_native_atomic_supported");
  EXPECT_EQ(cuda::attribute_key(0), "");
  EXPECT_EQ(cuda::attribute_key(148), "");
  EXPECT_EQ(cuda::attribute_from_key("warp_size"), 10);
  EXPECT_EQ(cuda::attribute_from_key("virtual_address_management_supported"), 102);
  EXPECT_EQ(cuda::attribute_from_key("WARP_SIZE"), std::nullopt);
  EXPECT_EQ(cuda::attribute_from_key("max"), std::nullopt);
  std::set<std::string> keys;
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    keys.insert(cuda::attribute_key(a));
    EXPECT_EQ(cuda::attribute_from_key(cuda::attribute_key(a)), a);
  }
  EXPECT_EQ(keys.size(), 147u);
}

std::string error_of(std::string_view attributes) {
  try {
    parse_machine(std::string("name: x\ndevices:\n  - name: d\n    memory: 1GiB\n"
                              "    compute_capability: \"9.0\"\n    multiprocessors: 1\n"
                              "    attributes:\n") +
                      std::string(attributes),
                  "m.yaml");
  } catch (const MachineFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MockAttributeOverrides, BadEntriesNameTheKeyTheValueAndTheClosestNames) {
  EXPECT_EQ(error_of("      warp_sise: 16\n"),
            "m.yaml:8: devices[0].attributes: expected a device attribute (cuda.h's name without "
            "CU_DEVICE_ATTRIBUTE_, lower case; closest: warp_size), got 'warp_sise'");
  EXPECT_EQ(error_of("      WARP_SIZE: 16\n"),
            "m.yaml:8: devices[0].attributes: expected a device attribute (cuda.h's name without "
            "CU_DEVICE_ATTRIBUTE_, lower case; closest: warp_size), got 'WARP_SIZE'");
  EXPECT_EQ(error_of("      colour: 1\n"),
            "m.yaml:8: devices[0].attributes: expected a device attribute (cuda.h's name without "
            "CU_DEVICE_ATTRIBUTE_, lower case), got 'colour'");
  EXPECT_EQ(error_of("      warp_size: 2147483648\n"),
            "m.yaml:8: devices[0].attributes.warp_size: expected an integer from -2147483648 to "
            "2147483647, got '2147483648'");
  EXPECT_EQ(error_of("      warp_size: big\n"),
            "m.yaml:8: devices[0].attributes.warp_size: expected an integer from -2147483648 to "
            "2147483647, got 'big'");
  EXPECT_EQ(error_of("      pci_bus_id: 3\n"),
            "m.yaml:8: devices[0].attributes: expected an attribute the device's own keys do not "
            "set (pci_bus_id comes from pci_bus_id), got 'pci_bus_id'");
  EXPECT_EQ(error_of("      multiprocessor_count: 3\n"),
            "m.yaml:8: devices[0].attributes: expected an attribute the device's own keys do not "
            "set (multiprocessor_count comes from multiprocessors), got 'multiprocessor_count'");
  EXPECT_EQ(error_of("      registers_per_block: 1\n      max_registers_per_block: 2\n"),
            "m.yaml:9: devices[0].attributes: expected each attribute once (an alias names the "
            "same attribute), got 'max_registers_per_block'");
  EXPECT_EQ(error_of("      - warp_size\n"),
            "m.yaml:8: devices[0].attributes: expected a mapping of attribute names to values, "
            "got '[...]'");
  EXPECT_EQ(error_of("      warp_size: -7\n"), "(no error)");
}

}  // namespace
}  // namespace mockdev::testing
