// Device attribute keys and answers (device_attributes.h, Note [Device attribute answers]).

#include "cuda/device_attributes.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "accel_abi/cuda_driver.h"
#include "accel_common/edit_distance.h"
#include "core/architecture_defaults.h"
#include "core/device_ids.h"

namespace mockdev::cuda {
namespace {

using namespace accel::cuda_abi;

struct Named {
  std::string_view name;  // cuda.h's spelling without the prefix, upper case
  int value;
};

constexpr Named kAttributes[] = {
#define MOCKDEV_ATTRIBUTE_ROW(name, value) {#name, value},
    ACCEL_CUDA_DEVICE_ATTRIBUTES(MOCKDEV_ATTRIBUTE_ROW)
#undef MOCKDEV_ATTRIBUTE_ROW
};
constexpr Named kAliases[] = {
#define MOCKDEV_ATTRIBUTE_ROW(name, value) {#name, value},
    ACCEL_CUDA_DEVICE_ATTRIBUTE_ALIASES(MOCKDEV_ATTRIBUTE_ROW)
#undef MOCKDEV_ATTRIBUTE_ROW
};

// The rows are the values 1..147 in order, so a value indexes its row.
constexpr bool rows_are_the_values() {
  int expected = 1;
  for (const Named& n : kAttributes) {
    if (n.value != expected++) return false;
  }
  return expected == CU_DEVICE_ATTRIBUTE_MAX;
}
static_assert(rows_are_the_values());

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int pci_domain(const std::string& pci_bus_id) {
  // "dddddddd:bb:dd.f" (the machine-file reader checked it): the domain is hex.
  return static_cast<int>(std::stoul(pci_bus_id.substr(0, pci_bus_id.find(':')), nullptr, 16));
}

int combined_id(std::uint16_t id, std::uint16_t vendor) {
  return static_cast<int>((static_cast<std::uint32_t>(id) << 16) | vendor);
}

}  // namespace

bool is_device_attribute(int attribute) {
  return attribute >= 1 && attribute < CU_DEVICE_ATTRIBUTE_MAX;
}

std::string attribute_key(int attribute) {
  if (!is_device_attribute(attribute)) return "";
  return lower(kAttributes[attribute - 1].name);
}

std::optional<int> attribute_from_key(std::string_view key) {
  for (const Named& n : kAttributes) {
    if (lower(n.name) == key) return n.value;
  }
  for (const Named& n : kAliases) {
    if (lower(n.name) == key) return n.value;
  }
  return std::nullopt;
}

std::vector<std::string> close_attribute_keys(std::string_view key) {
  struct Candidate {
    std::size_t distance;
    std::string key;
  };
  std::vector<Candidate> close;
  const std::size_t limit = accel::common::close_distance_limit(key);
  for (const Named& n : kAttributes) {
    std::string k = lower(n.name);
    std::size_t d = accel::common::edit_distance(key, k);
    if (d <= limit) close.push_back({d, std::move(k)});
  }
  std::sort(close.begin(), close.end(), [](const Candidate& a, const Candidate& b) {
    return a.distance != b.distance ? a.distance < b.distance : a.key < b.key;
  });
  std::vector<std::string> result;
  for (std::size_t i = 0; i < close.size() && i < 3; ++i) result.push_back(close[i].key);
  return result;
}

std::optional<std::string_view> attribute_fixed_by(int attribute) {
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      return "multiprocessors";
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      return "compute_capability";
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
      return "pci_bus_id";
    default:
      return std::nullopt;
  }
}

// Every case of the enum is listed and there is no default, so -Wswitch (an error in CI)
// fails the build when the ABI gains an attribute this function does not answer.
int device_attribute_value(const DeviceSpec& d, int physical, int attribute) {
  if (auto it = d.attributes.find(attribute); it != d.attributes.end()) return it->second;
  const core::Architecture& a = core::architecture_for(d.cc_major, d.cc_minor);
  const int cc = d.cc_major * 10 + d.cc_minor;
  const bool hopper_or_later = cc >= 90;
  // One attribute a line reads as the table it is.
  // clang-format off
  switch (static_cast<CUdevice_attribute>(attribute)) {
    // Limits every architecture since Volta shares.
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 48 * 1024;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 64 * 1024;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return a.clock_khz;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: return 1;  // deprecated, still answered
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return d.multiprocessor_count;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: return 0;  // no display watchdog
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return 0;  // CU_COMPUTEMODE_DEFAULT
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 1;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return core::pci_bus_number(d.pci_bus_id);
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: return core::pci_device_number(d.pci_bus_id);
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: return 0;  // Linux has no driver models
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return a.memory_clock_khz;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return a.memory_bus_width_bits;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return a.l2_cache_bytes;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      return a.max_threads_per_multiprocessor;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return a.async_engine_count;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: return 1;  // deprecated, still answered
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE: return 8192;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE: return 8192;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE: return 32768;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return pci_domain(d.pci_bus_id);
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: return 32;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS: return 2046;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS: return 2046;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH: return 268435456;  // deprecated
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT: return 65000;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH: return 2097120;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return d.cc_major;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return d.cc_minor;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
      return a.shared_memory_per_multiprocessor;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
      return a.registers_per_multiprocessor;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: return 0;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: return physical;  // one board each
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: return 0;     // x86 host over PCIe
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO:
      return a.single_to_double_precision_ratio;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: return 0;  // no HMM assumed
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: return 1;
    // The v1 stream memory operations are deprecated: the H100 answered 0 for all three
    // (Recording 2). Multi-device cooperative launch, deprecated too, is still answered as
    // supported (the H100 answered 1).
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1: return 0;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      return a.shared_memory_per_block_optin;
    case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: return 0;
    case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: return 0;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return a.max_blocks_per_multiprocessor;
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: return cc >= 80 ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: return a.max_persisting_l2_bytes;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: return a.max_access_policy_window_bytes;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
      return a.reserved_shared_memory_per_block;
    case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: return 1;  // HOST flag
    // Recording 2 (H100): writes ordered for all devices (100), pools exportable as POSIX
    // file descriptors and fabric handles (1 | 8). [inferred] Earlier architectures: no
    // ordering, POSIX file descriptors only.
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: return hopper_or_later ? 100 : 0;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: return hopper_or_later ? 9 : 1;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return hopper_or_later ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR: return 1;
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: return hopper_or_later ? 4 : 1;
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED: return hopper_or_later ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED: return hopper_or_later ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS: return 1;
    case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: return 0;  // CU_DEVICE_NUMA_CONFIG_NONE
    case CU_DEVICE_ATTRIBUTE_NUMA_ID: return -1;     // GPU memory is not a NUMA node
    case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MPS_ENABLED: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: return 0;  // the host's one NUMA node (Recording 2)
    case CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK: return 0;
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH: return 0;
    case CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID:
      return combined_id(a.pci_device_id, core::kPciVendorNvidia);
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID:
      return combined_id(a.pci_subsystem_id, core::kPciVendorNvidia);
    // Recording 2 (H100, driver 580): host NUMA allocations through VMM and pools, but no
    // dma-buf export of host allocations.
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MAX:
      break;
  }
  // clang-format on
  return 0;  // unreachable for a valid attribute (callers check is_device_attribute)
}

}  // namespace mockdev::cuda
