// A deviceQuery program of our own, written only against the toolkit's cuda_runtime_api.h and
// linked against a libcudart.so.13 (ctest links it against the project's, target accel_cudart,
// and runs it with `accel run --machine <preset>`). For every device it lists, in the spirit of
// NVIDIA's deviceQuery sample (its fields, our wording), what cudaGetDeviceProperties and
// cudaDeviceGetAttribute answer, then which devices can reach which as peers, and ends with
// `Result = PASS` when every call succeeded (`Result = FAIL`, exit status 1, otherwise; each
// failed call is printed with its error name).
//
// After the listing comes a machine-readable block, one `key: value` line per fact, keyed by the
// driver's attribute names (CU_DEVICE_ATTRIBUTE_* in lower case) as tests/clients/device_query.cpp
// prints them: tests/cudart/device_query_agree.cmake checks every line against that driver-API
// listing of the same machine, so the runtime and the driver must say the same thing. The values
// come from cudaDeviceProp wherever CUDA 13 still has the field (the point is to prove the
// runtime's field-by-field translation), from cudaDeviceGetAttribute for the fields CUDA 13
// dropped (clock rates, compute mode, run-time limit).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

int g_failures = 0;

// Prints "<what> failed: <error name>" and counts a failure unless `rc` is cudaSuccess.
bool ok(cudaError_t rc, const std::string& what) {
  if (rc == cudaSuccess) return true;
  std::printf("%s failed: %s\n", what.c_str(), cudaGetErrorName(rc));
  ++g_failures;
  return false;
}

// The `key: value` lines of the block the driver's listing must agree with, in print order.
std::vector<std::pair<std::string, std::string>> g_facts;

void fact(const std::string& key, const std::string& value) { g_facts.emplace_back(key, value); }
void fact(const std::string& key, long long value) { fact(key, std::to_string(value)); }

const char* yes_no(int value) { return value != 0 ? "yes" : "no"; }

// An attribute that CUDA 13 no longer carries in cudaDeviceProp; -1 when the call failed.
int attribute(cudaDeviceAttr attr, int device, const char* what) {
  int value = -1;
  ok(cudaDeviceGetAttribute(&value, attr, device),
     std::string("cudaDeviceGetAttribute(") + what + ", " + std::to_string(device) + ")");
  return value;
}

const char* compute_mode_text(int mode) {
  switch (mode) {
    case cudaComputeModeDefault:
      return "default (any number of host threads and processes may use the device)";
    case cudaComputeModeExclusive:
      return "exclusive (one host thread at a time)";
    case cudaComputeModeProhibited:
      return "prohibited (no host thread may use the device)";
    case cudaComputeModeExclusiveProcess:
      return "exclusive process (one process at a time)";
    default:
      return "unknown";
  }
}

void list_device(int device, int driver_version, int runtime_version) {
  if (!ok(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")")) return;
  int current = -1;
  ok(cudaGetDevice(&current), "cudaGetDevice");
  if (current != device) {
    std::printf("cudaGetDevice answered %d after cudaSetDevice(%d)\n", current, device);
    ++g_failures;
  }
  cudaDeviceProp p{};
  if (!ok(cudaGetDeviceProperties(&p, device),
          "cudaGetDeviceProperties(" + std::to_string(device) + ")")) {
    return;
  }
  const int clock_khz = attribute(cudaDevAttrClockRate, device, "cudaDevAttrClockRate");
  const int memory_clock_khz =
      attribute(cudaDevAttrMemoryClockRate, device, "cudaDevAttrMemoryClockRate");
  const int compute_mode = attribute(cudaDevAttrComputeMode, device, "cudaDevAttrComputeMode");
  const int exec_timeout =
      attribute(cudaDevAttrKernelExecTimeout, device, "cudaDevAttrKernelExecTimeout");
  char bus_id[32] = {};
  ok(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device), "cudaDeviceGetPCIBusId");

  std::printf("\nDevice %d: \"%s\"\n", device, p.name);
  std::printf("  Driver / runtime version:                 %d.%d / %d.%d\n", driver_version / 1000,
              (driver_version % 1000) / 10, runtime_version / 1000, (runtime_version % 1000) / 10);
  std::printf("  Compute capability:                       %d.%d\n", p.major, p.minor);
  std::printf("  Global memory:                            %zu MiB (%zu bytes)\n",
              p.totalGlobalMem >> 20, p.totalGlobalMem);
  std::printf("  Multiprocessors:                          %d\n", p.multiProcessorCount);
  std::printf("  GPU clock (peak):                         %d MHz\n", clock_khz / 1000);
  std::printf("  Memory clock (peak):                      %d MHz\n", memory_clock_khz / 1000);
  std::printf("  Memory bus width:                         %d bits\n", p.memoryBusWidth);
  std::printf("  L2 cache:                                 %d bytes\n", p.l2CacheSize);
  std::printf("  Largest 1D / 2D / 3D texture:             %d / %d x %d / %d x %d x %d\n",
              p.maxTexture1D, p.maxTexture2D[0], p.maxTexture2D[1], p.maxTexture3D[0],
              p.maxTexture3D[1], p.maxTexture3D[2]);
  std::printf("  Largest layered 1D / 2D texture:          %d, %d layers / %d x %d, %d layers\n",
              p.maxTexture1DLayered[0], p.maxTexture1DLayered[1], p.maxTexture2DLayered[0],
              p.maxTexture2DLayered[1], p.maxTexture2DLayered[2]);
  std::printf("  Constant memory:                          %zu bytes\n", p.totalConstMem);
  std::printf("  Shared memory per block:                  %zu bytes\n", p.sharedMemPerBlock);
  std::printf("  Shared memory per multiprocessor:         %zu bytes\n",
              p.sharedMemPerMultiprocessor);
  std::printf("  Registers per block:                      %d\n", p.regsPerBlock);
  std::printf("  Warp size:                                %d threads\n", p.warpSize);
  std::printf("  Threads per multiprocessor (max):         %d\n", p.maxThreadsPerMultiProcessor);
  std::printf("  Threads per block (max):                  %d\n", p.maxThreadsPerBlock);
  std::printf("  Block dimensions (max x, y, z):           %d, %d, %d\n", p.maxThreadsDim[0],
              p.maxThreadsDim[1], p.maxThreadsDim[2]);
  std::printf("  Grid dimensions (max x, y, z):            %d, %d, %d\n", p.maxGridSize[0],
              p.maxGridSize[1], p.maxGridSize[2]);
  std::printf("  Memory pitch (max):                       %zu bytes\n", p.memPitch);
  std::printf("  Texture alignment:                        %zu bytes\n", p.textureAlignment);
  std::printf("  Copy engines beside kernels:              %d\n", p.asyncEngineCount);
  std::printf("  Kernel run-time limit:                    %s\n", yes_no(exec_timeout));
  std::printf("  Integrated with the host's memory:        %s\n", yes_no(p.integrated));
  std::printf("  Maps page-locked host memory:             %s\n", yes_no(p.canMapHostMemory));
  std::printf("  Surface alignment:                        %zu bytes\n", p.surfaceAlignment);
  std::printf("  ECC:                                      %s\n",
              p.ECCEnabled != 0 ? "enabled" : "disabled");
  std::printf("  Unified addressing:                       %s\n", yes_no(p.unifiedAddressing));
  std::printf("  Managed memory:                           %s\n", yes_no(p.managedMemory));
  std::printf("  Compute preemption:                       %s\n",
              yes_no(p.computePreemptionSupported));
  std::printf("  Cooperative launch:                       %s\n", yes_no(p.cooperativeLaunch));
  std::printf("  PCI domain / bus / device:                %d / %d / %d (%s)\n", p.pciDomainID,
              p.pciBusID, p.pciDeviceID, bus_id);
  std::printf("  Compute mode:                             %s\n", compute_mode_text(compute_mode));

  const std::string d = "device." + std::to_string(device) + ".";
  fact(d + "name", p.name);
  fact(d + "compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor));
  fact(d + "total_global_mem_bytes", static_cast<long long>(p.totalGlobalMem));
  fact(d + "clock_rate", clock_khz);
  fact(d + "memory_clock_rate", memory_clock_khz);
  fact(d + "compute_mode", compute_mode);
  fact(d + "kernel_exec_timeout", exec_timeout);
  // cudaDeviceProp fields, each under the name of the driver attribute it stands for
  // (../shared/spec/cuda_runtime.md §3.1).
  fact(d + "max_threads_per_block", p.maxThreadsPerBlock);
  fact(d + "max_block_dim_x", p.maxThreadsDim[0]);
  fact(d + "max_block_dim_y", p.maxThreadsDim[1]);
  fact(d + "max_block_dim_z", p.maxThreadsDim[2]);
  fact(d + "max_grid_dim_x", p.maxGridSize[0]);
  fact(d + "max_grid_dim_y", p.maxGridSize[1]);
  fact(d + "max_grid_dim_z", p.maxGridSize[2]);
  fact(d + "max_shared_memory_per_block", static_cast<long long>(p.sharedMemPerBlock));
  fact(d + "total_constant_memory", static_cast<long long>(p.totalConstMem));
  fact(d + "warp_size", p.warpSize);
  fact(d + "max_pitch", static_cast<long long>(p.memPitch));
  fact(d + "max_registers_per_block", p.regsPerBlock);
  fact(d + "texture_alignment", static_cast<long long>(p.textureAlignment));
  fact(d + "multiprocessor_count", p.multiProcessorCount);
  fact(d + "integrated", p.integrated);
  fact(d + "can_map_host_memory", p.canMapHostMemory);
  fact(d + "maximum_texture1d_width", p.maxTexture1D);
  fact(d + "maximum_texture2d_width", p.maxTexture2D[0]);
  fact(d + "maximum_texture2d_height", p.maxTexture2D[1]);
  fact(d + "maximum_texture3d_width", p.maxTexture3D[0]);
  fact(d + "maximum_texture3d_height", p.maxTexture3D[1]);
  fact(d + "maximum_texture3d_depth", p.maxTexture3D[2]);
  fact(d + "maximum_texture2d_layered_width", p.maxTexture2DLayered[0]);
  fact(d + "maximum_texture2d_layered_height", p.maxTexture2DLayered[1]);
  fact(d + "maximum_texture2d_layered_layers", p.maxTexture2DLayered[2]);
  fact(d + "surface_alignment", static_cast<long long>(p.surfaceAlignment));
  fact(d + "concurrent_kernels", p.concurrentKernels);
  fact(d + "ecc_enabled", p.ECCEnabled);
  fact(d + "pci_bus_id", p.pciBusID);
  fact(d + "pci_device_id", p.pciDeviceID);
  fact(d + "tcc_driver", p.tccDriver);
  fact(d + "global_memory_bus_width", p.memoryBusWidth);
  fact(d + "l2_cache_size", p.l2CacheSize);
  fact(d + "max_threads_per_multiprocessor", p.maxThreadsPerMultiProcessor);
  fact(d + "async_engine_count", p.asyncEngineCount);
  fact(d + "unified_addressing", p.unifiedAddressing);
  fact(d + "maximum_texture1d_layered_width", p.maxTexture1DLayered[0]);
  fact(d + "maximum_texture1d_layered_layers", p.maxTexture1DLayered[1]);
  fact(d + "pci_domain_id", p.pciDomainID);
  fact(d + "texture_pitch_alignment", static_cast<long long>(p.texturePitchAlignment));
  fact(d + "compute_capability_major", p.major);
  fact(d + "compute_capability_minor", p.minor);
  fact(d + "stream_priorities_supported", p.streamPrioritiesSupported);
  fact(d + "global_l1_cache_supported", p.globalL1CacheSupported);
  fact(d + "local_l1_cache_supported", p.localL1CacheSupported);
  fact(d + "max_shared_memory_per_multiprocessor",
       static_cast<long long>(p.sharedMemPerMultiprocessor));
  fact(d + "max_registers_per_multiprocessor", p.regsPerMultiprocessor);
  fact(d + "managed_memory", p.managedMemory);
  fact(d + "multi_gpu_board", p.isMultiGpuBoard);
  fact(d + "multi_gpu_board_group_id", p.multiGpuBoardGroupID);
  fact(d + "host_native_atomic_supported", p.hostNativeAtomicSupported);
  fact(d + "pageable_memory_access", p.pageableMemoryAccess);
  fact(d + "concurrent_managed_access", p.concurrentManagedAccess);
  fact(d + "compute_preemption_supported", p.computePreemptionSupported);
  fact(d + "can_use_host_pointer_for_registered_mem", p.canUseHostPointerForRegisteredMem);
  fact(d + "cooperative_launch", p.cooperativeLaunch);
  fact(d + "max_shared_memory_per_block_optin", static_cast<long long>(p.sharedMemPerBlockOptin));
  fact(d + "host_register_supported", p.hostRegisterSupported);
  fact(d + "pageable_memory_access_uses_host_page_tables",
       p.pageableMemoryAccessUsesHostPageTables);
  fact(d + "direct_managed_mem_access_from_host", p.directManagedMemAccessFromHost);
  fact(d + "max_blocks_per_multiprocessor", p.maxBlocksPerMultiProcessor);
  fact(d + "max_persisting_l2_cache_size", p.persistingL2CacheMaxSize);
  fact(d + "max_access_policy_window_size", p.accessPolicyMaxWindowSize);
  fact(d + "reserved_shared_memory_per_block", static_cast<long long>(p.reservedSharedMemPerBlock));
  fact(d + "sparse_cuda_array_supported", p.sparseCudaArraySupported);
  fact(d + "read_only_host_register_supported", p.hostRegisterReadOnlySupported);
  fact(d + "timeline_semaphore_interop_supported", p.timelineSemaphoreInteropSupported);
  fact(d + "memory_pools_supported", p.memoryPoolsSupported);
  fact(d + "gpu_direct_rdma_supported", p.gpuDirectRDMASupported);
  fact(d + "gpu_direct_rdma_flush_writes_options", p.gpuDirectRDMAFlushWritesOptions);
  fact(d + "gpu_direct_rdma_writes_ordering", p.gpuDirectRDMAWritesOrdering);
  fact(d + "mempool_supported_handle_types", p.memoryPoolSupportedHandleTypes);
  fact(d + "cluster_launch", p.clusterLaunch);
  fact(d + "deferred_mapping_cuda_array_supported", p.deferredMappingCudaArraySupported);
  fact(d + "ipc_event_supported", p.ipcEventSupported);
  fact(d + "unified_function_pointers", p.unifiedFunctionPointers);
  fact(d + "numa_config", p.deviceNumaConfig);
  fact(d + "numa_id", p.deviceNumaId);
  fact(d + "mps_enabled", p.mpsEnabled);
  fact(d + "host_numa_id", p.hostNumaId);
  fact(d + "gpu_pci_device_id", p.gpuPciDeviceID);
  fact(d + "gpu_pci_subsystem_id", p.gpuPciSubsystemID);
  fact(d + "host_numa_multinode_ipc_supported", p.hostNumaMultinodeIpcSupported);
}

// Which device reaches which: cudaDeviceCanAccessPeer, the link's P2P attributes, and peer
// access enabled then disabled from the first device's primary context where it is allowed.
void list_peers(int count) {
  std::printf(
      "\nPeer access (can access | rank, supported, native atomics, arrays | enable, "
      "disable):\n");
  for (int a = 0; a < count; ++a) {
    for (int b = 0; b < count; ++b) {
      int can = -1;
      const std::string pair = std::to_string(a) + ", " + std::to_string(b);
      if (!ok(cudaDeviceCanAccessPeer(&can, a, b), "cudaDeviceCanAccessPeer(" + pair + ")")) {
        continue;
      }
      const std::string key = "peer." + std::to_string(a) + "." + std::to_string(b) + ".";
      fact(key + "can_access", can);
      if (a == b) {
        std::printf("  GPU%d -> GPU%d: %s\n", a, b, yes_no(can));
        continue;
      }
      const cudaDeviceP2PAttr attributes[4] = {
          cudaDevP2PAttrPerformanceRank, cudaDevP2PAttrAccessSupported,
          cudaDevP2PAttrNativeAtomicSupported, cudaDevP2PAttrCudaArrayAccessSupported};
      const char* const names[4] = {"performance_rank", "access_supported",
                                    "native_atomic_supported", "cuda_array_access_supported"};
      int values[4] = {-1, -1, -1, -1};
      for (int i = 0; i < 4; ++i) {
        if (ok(cudaDeviceGetP2PAttribute(&values[i], attributes[i], a, b),
               std::string("cudaDeviceGetP2PAttribute(") + names[i] + ", " + pair + ")")) {
          fact(key + names[i], values[i]);
        }
      }
      std::string enable = "-", disable = "-";
      if (can == 1 && ok(cudaSetDevice(a), "cudaSetDevice(" + std::to_string(a) + ")")) {
        const cudaError_t enabled = cudaDeviceEnablePeerAccess(b, 0);
        enable = cudaGetErrorName(enabled);
        ok(enabled, "cudaDeviceEnablePeerAccess(" + pair + ")");
        const cudaError_t disabled = cudaDeviceDisablePeerAccess(b);
        disable = cudaGetErrorName(disabled);
        ok(disabled, "cudaDeviceDisablePeerAccess(" + pair + ")");
      }
      std::printf("  GPU%d -> GPU%d: %s | %d %d %d %d | %s %s\n", a, b, yes_no(can), values[0],
                  values[1], values[2], values[3], enable.c_str(), disable.c_str());
    }
  }
}

}  // namespace

int main() {
  std::printf("device_query_rt: CUDA runtime API device query\n");
  int driver_version = 0, runtime_version = 0;
  ok(cudaDriverGetVersion(&driver_version), "cudaDriverGetVersion");
  ok(cudaRuntimeGetVersion(&runtime_version), "cudaRuntimeGetVersion");
  int count = 0;
  if (!ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount")) {
    std::printf("Result = FAIL\n");
    return 1;
  }
  std::printf("%d CUDA device(s)\n", count);
  fact("driver_version",
       std::to_string(driver_version / 1000) + "." + std::to_string((driver_version % 1000) / 10));
  fact("device_count", count);
  for (int device = 0; device < count; ++device) {
    list_device(device, driver_version, runtime_version);
  }
  list_peers(count);
  const cudaError_t last = cudaGetLastError();
  if (last != cudaSuccess) {
    std::printf("cudaGetLastError after the listing: %s\n", cudaGetErrorName(last));
    ++g_failures;
  }

  std::printf("\nkey: value (the driver's listing must agree)\n");
  for (const auto& [key, value] : g_facts) std::printf("%s: %s\n", key.c_str(), value.c_str());
  std::printf("\nResult = %s\n", g_failures == 0 ? "PASS" : "FAIL");
  return g_failures == 0 ? 0 : 1;
}
