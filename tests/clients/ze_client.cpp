// A client written only against the Level Zero loader API (<level_zero/ze_api.h>, linked
// against the system's libze_loader), as any Level Zero program is: it runs on whatever
// drivers the loader finds. ctest points the real loader at the simulated driver with
// ZE_ENABLE_ALT_DRIVERS and compares the output with an expected listing
// (compare_output.cmake), so the mock driver must stand in for Intel's unchanged.
//
// It lists drivers and devices with their properties, then on the first device: creates a
// context and a synchronous immediate command list (compute group), allocates device and
// host memory, copies host -> device -> host, checks the bytes, reads the allocations'
// properties, and frees everything. Prints one stable line per step (no pointers, no
// times) and exits 1 at the end if any step returned an unexpected code. Codes are printed by
// name from the project's table of ze_result_t names (accel_abi/level_zero_results.h, data
// only: nothing of the simulated driver).

#include <level_zero/ze_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "accel_abi/level_zero_results.h"

namespace {

int g_failures = 0;

std::string code_name(ze_result_t rc) {
  if (const char* name = accel::abi::level_zero::ze_result_name(static_cast<std::uint32_t>(rc))) {
    return name;
  }
  char text[32];
  std::snprintf(text, sizeof text, "ze_result_t 0x%08x", static_cast<unsigned>(rc));
  return text;
}

// Prints "<what>: <code>" and counts a code other than `expected`.
bool step(const char* what, ze_result_t rc, ze_result_t expected = ZE_RESULT_SUCCESS) {
  std::printf("%s: %s\n", what, code_name(rc).c_str());
  if (rc != expected) ++g_failures;
  return rc == expected;
}

std::string uuid_text(const std::uint8_t* id) {
  std::string text;
  char byte[4];
  for (int i = 0; i < ZE_MAX_DEVICE_UUID_SIZE; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", id[i]);
    text += byte;
  }
  return text;
}

const char* memory_type_name(ze_memory_type_t type) {
  switch (type) {
    case ZE_MEMORY_TYPE_HOST: return "host";
    case ZE_MEMORY_TYPE_DEVICE: return "device";
    case ZE_MEMORY_TYPE_SHARED: return "shared";
    default: return "unknown";
  }
}

void list_device(const char* indent, int index, ze_device_handle_t device) {
  ze_device_properties_t props{};
  props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  if (!step("  zeDeviceGetProperties", zeDeviceGetProperties(device, &props))) return;
  std::printf("%sdevice %d: %s, vendor 0x%04x, device id 0x%04x, type %s%s%s\n", indent, index,
              props.name, props.vendorId, props.deviceId,
              props.type == ZE_DEVICE_TYPE_GPU ? "GPU" : "other",
              (props.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) ? ", integrated" : ", discrete",
              (props.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) ? ", sub-device" : "");
  std::printf("%s  uuid %s\n", indent, uuid_text(props.uuid.id).c_str());
  std::printf("%s  %u slices x %u subslices x %u EUs x %u threads, SIMD %u, %u MHz\n", indent,
              props.numSlices, props.numSubslicesPerSlice, props.numEUsPerSubslice,
              props.numThreadsPerEU, props.physicalEUSimdWidth, props.coreClockRate);
  std::printf("%s  max allocation %llu MiB, timestamp bits %u, kernel timestamp bits %u\n",
              indent, static_cast<unsigned long long>(props.maxMemAllocSize >> 20),
              props.timestampValidBits, props.kernelTimestampValidBits);
  std::uint32_t memories = 0;
  zeDeviceGetMemoryProperties(device, &memories, nullptr);
  std::vector<ze_device_memory_properties_t> memory(memories);
  for (auto& m : memory) m.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  if (step("  zeDeviceGetMemoryProperties",
           zeDeviceGetMemoryProperties(device, &memories, memory.data()))) {
    for (std::uint32_t i = 0; i < memories; ++i) {
      std::printf("%s  memory %u: %llu MiB\n", indent, i,
                  static_cast<unsigned long long>(memory[i].totalSize >> 20));
    }
  }
  std::uint32_t groups = 0;
  zeDeviceGetCommandQueueGroupProperties(device, &groups, nullptr);
  std::vector<ze_command_queue_group_properties_t> group(groups);
  for (auto& g : group) g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  if (step("  zeDeviceGetCommandQueueGroupProperties",
           zeDeviceGetCommandQueueGroupProperties(device, &groups, group.data()))) {
    for (std::uint32_t i = 0; i < groups; ++i) {
      std::printf("%s  queue group %u: %u queues%s%s\n", indent, i, group[i].numQueues,
                  (group[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ? ", compute"
                                                                                  : "",
                  (group[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY) ? ", copy" : "");
    }
  }
  std::uint32_t subdevices = 0;
  step("  zeDeviceGetSubDevices", zeDeviceGetSubDevices(device, &subdevices, nullptr));
  std::printf("%s  sub-devices: %u\n", indent, subdevices);
  std::vector<ze_device_handle_t> sub(subdevices);
  if (subdevices > 0 && step("  zeDeviceGetSubDevices (handles)",
                             zeDeviceGetSubDevices(device, &subdevices, sub.data()))) {
    for (std::uint32_t i = 0; i < subdevices; ++i) {
      list_device("      ", static_cast<int>(i), sub[i]);
    }
  }
}

// Context, immediate list, memory and copies on `device` of `driver`.
void exercise(ze_driver_handle_t driver, ze_device_handle_t device) {
  ze_context_desc_t context_desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t context = nullptr;
  if (!step("zeContextCreate", zeContextCreate(driver, &context_desc, &context))) return;

  std::uint32_t groups = 0;
  zeDeviceGetCommandQueueGroupProperties(device, &groups, nullptr);
  std::vector<ze_command_queue_group_properties_t> group(groups);
  for (auto& g : group) g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  zeDeviceGetCommandQueueGroupProperties(device, &groups, group.data());
  std::uint32_t compute = 0;
  while (compute < groups &&
         (group[compute].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) == 0) {
    ++compute;
  }
  std::printf("compute queue group: %u\n", compute);

  ze_command_queue_desc_t queue_desc{};
  queue_desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  queue_desc.ordinal = compute;
  queue_desc.index = 0;
  queue_desc.mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
  queue_desc.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  ze_command_list_handle_t list = nullptr;
  step("zeCommandListCreateImmediate",
       zeCommandListCreateImmediate(context, device, &queue_desc, &list));

  constexpr std::size_t kBytes = std::size_t{1} << 20;
  ze_device_mem_alloc_desc_t device_desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  ze_host_mem_alloc_desc_t host_desc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void* on_device = nullptr;
  void* on_host = nullptr;
  step("zeMemAllocDevice 1 MiB",
       zeMemAllocDevice(context, &device_desc, kBytes, 64, device, &on_device));
  step("zeMemAllocHost 1 MiB", zeMemAllocHost(context, &host_desc, kBytes, 64, &on_host));

  std::vector<unsigned char> pattern(kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) pattern[i] = static_cast<unsigned char>(i % 251);
  std::vector<unsigned char> back(kBytes, 0);
  if (list != nullptr && on_device != nullptr && on_host != nullptr) {
    step("copy host -> device",
         zeCommandListAppendMemoryCopy(list, on_device, pattern.data(), kBytes, nullptr, 0,
                                       nullptr));
    const unsigned char fill = 0x5A;
    step("fill device tail",
         zeCommandListAppendMemoryFill(list, static_cast<unsigned char*>(on_device) + kBytes / 2,
                                       &fill, 1, kBytes / 2, nullptr, 0, nullptr));
    step("copy device -> usm host",
         zeCommandListAppendMemoryCopy(list, on_host, on_device, kBytes, nullptr, 0, nullptr));
    step("copy usm host -> pageable",
         zeCommandListAppendMemoryCopy(list, back.data(), on_host, kBytes, nullptr, 0, nullptr));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < kBytes; ++i) {
      const unsigned char want = i < kBytes / 2 ? pattern[i] : fill;
      if (back[i] != want) ++wrong;
    }
    std::printf("bytes wrong after the round trip: %zu\n", wrong);
    if (wrong != 0) ++g_failures;
  }

  for (void* pointer : {on_device, on_host}) {
    if (pointer == nullptr) continue;
    ze_memory_allocation_properties_t alloc{};
    alloc.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
    ze_device_handle_t owner = nullptr;
    if (step("zeMemGetAllocProperties", zeMemGetAllocProperties(context, pointer, &alloc, &owner))) {
      std::printf("  type %s, owner %s\n", memory_type_name(alloc.type),
                  owner == device ? "the device" : owner == nullptr ? "none" : "another device");
    }
    void* base = nullptr;
    std::size_t size = 0;
    if (step("zeMemGetAddressRange",
             zeMemGetAddressRange(context, static_cast<char*>(pointer) + 100, &base, &size))) {
      std::printf("  base %s, size %zu\n", base == pointer ? "the allocation" : "elsewhere", size);
    }
  }

  void* huge = nullptr;
  const ze_result_t rc = zeMemAllocDevice(context, &device_desc, std::size_t{1} << 40, 64, device,
                                          &huge);
  std::printf("zeMemAllocDevice 1 TiB: %s\n", code_name(rc).c_str());
  if (rc == ZE_RESULT_SUCCESS) {
    ++g_failures;
    zeMemFree(context, huge);
  }

  if (on_device != nullptr) step("zeMemFree device", zeMemFree(context, on_device));
  if (on_host != nullptr) step("zeMemFree host", zeMemFree(context, on_host));
  if (list != nullptr) step("zeCommandListDestroy", zeCommandListDestroy(list));
  step("zeContextDestroy", zeContextDestroy(context));
}

}  // namespace

int main() {
  if (!step("zeInit", zeInit(ZE_INIT_FLAG_GPU_ONLY))) {
    std::printf("client: FAILED (no Level Zero driver with a GPU)\n");
    return 1;
  }
  std::uint32_t drivers = 0;
  step("zeDriverGet", zeDriverGet(&drivers, nullptr));
  std::printf("drivers: %u\n", drivers);
  std::vector<ze_driver_handle_t> driver(drivers);
  if (drivers > 0) zeDriverGet(&drivers, driver.data());
  ze_driver_handle_t first_driver = nullptr;
  ze_device_handle_t first_device = nullptr;
  for (std::uint32_t d = 0; d < drivers; ++d) {
    ze_driver_properties_t props{};
    props.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
    step("zeDriverGetProperties", zeDriverGetProperties(driver[d], &props));
    ze_api_version_t version = ZE_API_VERSION_1_0;
    step("zeDriverGetApiVersion", zeDriverGetApiVersion(driver[d], &version));
    std::printf("driver %u: version 0x%08x, API %u.%u\n", d, props.driverVersion,
                ZE_MAJOR_VERSION(version), ZE_MINOR_VERSION(version));
    std::uint32_t devices = 0;
    step("zeDeviceGet", zeDeviceGet(driver[d], &devices, nullptr));
    std::printf("devices: %u\n", devices);
    std::vector<ze_device_handle_t> device(devices);
    if (devices > 0) zeDeviceGet(driver[d], &devices, device.data());
    for (std::uint32_t i = 0; i < devices; ++i) list_device("", static_cast<int>(i), device[i]);
    if (first_device == nullptr && devices > 0) {
      first_driver = driver[d];
      first_device = device[0];
    }
  }
  if (first_device == nullptr) {
    std::printf("client: FAILED (no device)\n");
    return 1;
  }
  exercise(first_driver, first_device);
  std::printf("%s\n", g_failures == 0 ? "client: all steps as expected" : "client: FAILED");
  return g_failures == 0 ? 0 : 1;
}
