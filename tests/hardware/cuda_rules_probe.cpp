// accel_cuda_rules_probe: asks a CUDA driver -- the real one on a GPU machine, or the
// simulated one -- how it answers each driver rule the simulated driver encodes, and each
// rule the specs mark [inferred], and prints one line per rule:
//
//   <section>.<rule> = <observed>
//
// Sections `init`, `device`, `ctx`, `mem`, `fork`, `visible` and the streams section
// (`stream`, `event`, `copy`, `capture`) are rules the simulated driver implements:
// tests/hardware/CMakeLists.txt runs the probe on the simulated twin of a recorded machine
// and compares those lines with the recording (compare_probe.cmake). The entry points come
// from the ABI tables (tests/support/abi_loader.h); a library without the streams
// section's entry points (an older driver) prints `stream.symbols = absent` instead. Lines
// starting `info.` are facts about the machine (versions, sizes), never compared.
// docs/HARDWARE.md explains how to record a machine and what the recordings showed.
//
// Usage: accel_cuda_rules_probe [DRIVER [NVML]]   (defaults: $ACCEL_CUDA_DRIVER or
// libcuda.so.1, $ACCEL_NVML_LIBRARY or libnvidia-ml.so.1). Each section runs in its own
// child process so that initialisation, fork and CUDA_VISIBLE_DEVICES start fresh; the
// parent never calls cuInit. Exit status: 0 when every section ran, 1 otherwise.

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cuda_probe.h"

namespace accel::hardware {
namespace {

test::NvmlEntryPoints nvml;
bool have_nvml = false;

using cuda_abi::CUcontext;
using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUdevice;
using cuda_abi::CUdevice_attribute;
using cuda_abi::CUdeviceptr;
using cuda_abi::CUevent;
using cuda_abi::CUgraph;
using cuda_abi::CUresult;
using cuda_abi::CUstream;
using cuda_abi::CUstreamCaptureMode;
using cuda_abi::CUstreamCaptureStatus;
using cuda_abi::CUuuid;

// The probe passes raw numbers on purpose (9999 is no attribute, 7 no capture mode): how
// the driver answers them is the rule recorded.
CUdevice_attribute attribute(int value) { return static_cast<CUdevice_attribute>(value); }
CUstreamCaptureMode capture_mode(int value) { return static_cast<CUstreamCaptureMode>(value); }

// Opens `file` (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE, never closed) and checks the entry
// points every section calls; on failure sets `error` and returns false.
bool load_cuda_driver(const std::string& file, std::string& error) {
  const test::LoadReport report = test::load_cuda_entry_points(file, cu);
  if (!report.opened()) {
    error = report.open_error;
    return false;
  }
  if (!report.missing_of({"cuInit", "cuDeviceGetCount"}).empty()) {
    error = file + " does not export cuInit/cuDeviceGetCount";
    return false;
  }
  return true;
}

bool load_nvml(const std::string& file, std::string& error) {
  const test::LoadReport report = test::load_nvml_entry_points(file, nvml);
  if (!report.opened()) {
    error = report.open_error;
    return false;
  }
  if (!report.missing_of({"nvmlInit_v2", "nvmlDeviceGetCount_v2"}).empty()) {
    error = file + " does not export nvmlInit_v2/nvmlDeviceGetCount_v2";
    return false;
  }
  return true;
}

void probe_risky_calls() {
  char name[64];
  int value = 0;
  std::size_t bytes = 0;
  CUcontext ctx = nullptr;
  risky("device.cuDeviceGetCount_null", false, [] { return cu.cuDeviceGetCount(nullptr); });
  risky("device.cuDeviceGet_null", false, [] { return cu.cuDeviceGet(nullptr, 0); });
  risky("device.cuDeviceGetName_len_0", false, [&] { return cu.cuDeviceGetName(name, 0, 0); });
  risky("device.cuDeviceGetName_len_negative", false,
        [&] { return cu.cuDeviceGetName(name, -1, 0); });
  risky("device.cuDeviceGetName_null", false, [] { return cu.cuDeviceGetName(nullptr, 64, 0); });
  risky("device.cuDeviceGetAttribute_null", false,
        [] { return cu.cuDeviceGetAttribute(nullptr, attribute(16), 0); });
  risky("device.cuDeviceTotalMem_null", false, [] { return cu.cuDeviceTotalMem_v2(nullptr, 0); });
  risky("device.cuDeviceGetUuid_null", false, [] { return cu.cuDeviceGetUuid_v2(nullptr, 0); });
  risky("ctx.retain_null", false, [] { return cu.cuDevicePrimaryCtxRetain(nullptr, 0); });
  risky("ctx.state_null", false, [] { return cu.cuDevicePrimaryCtxGetState(0, nullptr, nullptr); });
  risky("ctx.cuCtxGetCurrent_null", false, [] { return cu.cuCtxGetCurrent(nullptr); });
  risky("ctx.cuCtxGetDevice_null", true, [] { return cu.cuCtxGetDevice(nullptr); });
  risky("mem.cuMemGetInfo_null_free", true, [&] { return cu.cuMemGetInfo_v2(nullptr, &bytes); });
  risky("mem.cuMemGetInfo_null_total", true, [&] { return cu.cuMemGetInfo_v2(&bytes, nullptr); });
  risky("mem.cuMemAlloc_null", true, [] { return cu.cuMemAlloc_v2(nullptr, 1024); });
  (void)value;
  (void)ctx;
}

std::string format_uuid(const CUuuid& uuid) {
  static const int kGroups[] = {4, 2, 2, 2, 6};
  std::string out = "GPU-";
  int byte = 0;
  for (int g = 0; g < 5; ++g) {
    if (g > 0) out += '-';
    for (int i = 0; i < kGroups[g]; ++i, ++byte) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[byte]));
      out += hex;
    }
  }
  return out;
}

// ---- init, device, ctx, mem: one fresh process ---------------------------------------

void probe_init_device_ctx_mem() {
  int count = -1;
  rc_line("init.before.cuDeviceGetCount", cu.cuDeviceGetCount(&count));
  int version = 0;
  rc_line("init.before.cuDriverGetVersion", cu.cuDriverGetVersion(&version));
  CUdevice dev = -1;
  rc_line("init.before.cuDeviceGet", cu.cuDeviceGet(&dev, 0));
  CUcontext ctx = nullptr;
  rc_line("init.before.cuCtxGetCurrent", cu.cuCtxGetCurrent(&ctx));
  CUdeviceptr ptr = 0;
  rc_line("init.before.cuMemAlloc", cu.cuMemAlloc_v2(&ptr, 1024));
  rc_line("init.cuInit_flags_1", cu.cuInit(1));
  rc_line("init.cuInit", cu.cuInit(0));
  rc_line("init.cuInit_again", cu.cuInit(0));
  line("info.driver_version", std::to_string(version));

  rc_line("device.cuDeviceGetCount", cu.cuDeviceGetCount(&count));
  line("info.device_count", std::to_string(count));
  rc_line("device.cuDeviceGet_past_end", cu.cuDeviceGet(&dev, count));
  rc_line("device.cuDeviceGet_negative", cu.cuDeviceGet(&dev, -1));
  rc_line("device.cuDeviceGet_0", cu.cuDeviceGet(&dev, 0));
  line("device.cuDeviceGet_0_value", std::to_string(dev));
  char name[256] = {};
  rc_line("device.cuDeviceGetName", cu.cuDeviceGetName(name, sizeof name, 0));
  line("info.device_name", name);
  char short_name[6];
  std::memset(short_name, 'x', sizeof short_name);
  rc_line("device.cuDeviceGetName_len_5", cu.cuDeviceGetName(short_name, 5, 0));
  line("device.cuDeviceGetName_len_5_nul_at_4", short_name[4] == '\0' ? "yes" : "no");
  rc_line("device.cuDeviceGetName_bad_device", cu.cuDeviceGetName(name, sizeof name, count));
  int value = 0;
  rc_line("device.cuDeviceGetAttribute_bad_attribute",
          cu.cuDeviceGetAttribute(&value, attribute(9999), 0));
  rc_line("device.cuDeviceGetAttribute_attribute_0",
          cu.cuDeviceGetAttribute(&value, attribute(0), 0));
  rc_line("device.cuDeviceGetAttribute_bad_device",
          cu.cuDeviceGetAttribute(&value, attribute(16), count));
  int major = 0, minor = 0, sms = 0;
  cu.cuDeviceGetAttribute(&major, attribute(75), 0);
  cu.cuDeviceGetAttribute(&minor, attribute(76), 0);
  cu.cuDeviceGetAttribute(&sms, attribute(16), 0);
  line("info.compute_capability", std::to_string(major) + "." + std::to_string(minor));
  line("info.multiprocessors", std::to_string(sms));
  std::size_t total = 0;
  rc_line("device.cuDeviceTotalMem_bad_device", cu.cuDeviceTotalMem_v2(&total, count));
  rc_line("device.cuDeviceTotalMem", cu.cuDeviceTotalMem_v2(&total, 0));
  line("info.total_memory", std::to_string(total));
  CUuuid uuid{};
  rc_line("device.cuDeviceGetUuid_bad_device", cu.cuDeviceGetUuid_v2(&uuid, count));

  // Contexts.
  rc_line("ctx.none.cuCtxGetCurrent", cu.cuCtxGetCurrent(&ctx));
  line("ctx.none.current_is_null", ctx == nullptr ? "yes" : "no");
  rc_line("ctx.none.cuCtxGetDevice", cu.cuCtxGetDevice(&dev));
  rc_line("ctx.none.cuCtxSynchronize", cu.cuCtxSynchronize());
  std::size_t free_bytes = 0;
  rc_line("ctx.none.cuMemGetInfo", cu.cuMemGetInfo_v2(&free_bytes, &total));
  rc_line("ctx.none.cuMemAlloc", cu.cuMemAlloc_v2(&ptr, 1024));
  rc_line("ctx.none.cuMemFree_0", cu.cuMemFree_v2(0));
  unsigned flags = 99;
  int active = 99;
  rc_line("ctx.state_before_retain", cu.cuDevicePrimaryCtxGetState(0, &flags, &active));
  line("ctx.state_before_retain.active", std::to_string(active));
  line("ctx.state_before_retain.flags", std::to_string(flags));
  rc_line("ctx.state_bad_device", cu.cuDevicePrimaryCtxGetState(count, &flags, &active));
  rc_line("ctx.retain_bad_device", cu.cuDevicePrimaryCtxRetain(&ctx, count));
  CUcontext primary = nullptr;
  rc_line("ctx.retain", cu.cuDevicePrimaryCtxRetain(&primary, 0));
  CUcontext again = nullptr;
  cu.cuDevicePrimaryCtxRetain(&again, 0);
  line("ctx.retain_twice_same_handle", again == primary ? "yes" : "no");
  cu.cuDevicePrimaryCtxGetState(0, &flags, &active);
  line("ctx.state_after_retain.active", std::to_string(active));
  rc_line("ctx.retain_does_not_set_current", cu.cuCtxGetCurrent(&ctx));
  line("ctx.retain_does_not_set_current.current_is_null", ctx == nullptr ? "yes" : "no");
  rc_line("ctx.cuCtxSetCurrent", cu.cuCtxSetCurrent(primary));
  rc_line("ctx.cuCtxGetDevice", cu.cuCtxGetDevice(&dev));
  line("ctx.cuCtxGetDevice_value", std::to_string(dev));
  rc_line("ctx.cuCtxSynchronize", cu.cuCtxSynchronize());
  std::thread([&] {
    CUcontext other = primary;
    const CUresult rc = cu.cuCtxGetCurrent(&other);
    rc_line("ctx.other_thread.cuCtxGetCurrent", rc);
    line("ctx.other_thread.current_is_null", other == nullptr ? "yes" : "no");
  }).join();

  // Memory, with the primary context current.
  rc_line("mem.cuMemGetInfo", cu.cuMemGetInfo_v2(&free_bytes, &total));
  line("mem.cuMemGetInfo.free_le_total", free_bytes <= total ? "yes" : "no");
  rc_line("mem.cuMemAlloc_0_bytes", cu.cuMemAlloc_v2(&ptr, 0));
  rc_line("mem.cuMemAlloc_over_total", cu.cuMemAlloc_v2(&ptr, total + 1));
  rc_line("mem.cuMemAlloc_after_oom", cu.cuMemAlloc_v2(&ptr, 1024));
  rc_line("mem.cuMemFree_after_oom", cu.cuMemFree_v2(ptr));
  CUdeviceptr one = 0;
  rc_line("mem.cuMemAlloc_1_byte", cu.cuMemAlloc_v2(&one, 1));
  line("mem.cuMemAlloc_1_byte.aligned_256", one % 256 == 0 ? "yes" : "no");
  std::size_t free_before = 0, free_after = 0;
  cu.cuMemGetInfo_v2(&free_before, &total);
  CUdeviceptr big = 0;
  rc_line("mem.cuMemAlloc_1GiB", cu.cuMemAlloc_v2(&big, std::size_t{1} << 30));
  cu.cuMemGetInfo_v2(&free_after, &total);
  line("mem.cuMemAlloc_1GiB.free_drops_by_at_least_1GiB",
       free_before - free_after >= (std::size_t{1} << 30) ? "yes" : "no");
  rc_line("mem.cuMemFree_interior", cu.cuMemFree_v2(big + 4096));
  rc_line("mem.cuMemFree_1GiB", cu.cuMemFree_v2(big));
  rc_line("mem.cuMemFree_twice", cu.cuMemFree_v2(big));
  rc_line("mem.cuMemFree_0", cu.cuMemFree_v2(0));
  rc_line("mem.cuMemFree_never_allocated", cu.cuMemFree_v2(CUdeviceptr{0xdead0000}));
  cu.cuCtxSetCurrent(nullptr);
  rc_line("mem.no_current.cuMemFree_valid", cu.cuMemFree_v2(one));
  cu.cuCtxSetCurrent(primary);
  rc_line("mem.cuMemFree_after_no_current_attempt", cu.cuMemFree_v2(one));

  // Releasing the primary context.
  rc_line("ctx.release", cu.cuDevicePrimaryCtxRelease_v2(0));
  cu.cuDevicePrimaryCtxGetState(0, &flags, &active);
  line("ctx.after_one_release.active", std::to_string(active));
  rc_line("ctx.release_last", cu.cuDevicePrimaryCtxRelease_v2(0));
  cu.cuDevicePrimaryCtxGetState(0, &flags, &active);
  line("ctx.after_last_release.active", std::to_string(active));
  rc_line("ctx.after_last_release.cuCtxGetCurrent", cu.cuCtxGetCurrent(&ctx));
  line("ctx.after_last_release.current_unchanged", ctx == primary ? "yes" : "no");
  rc_line("ctx.after_last_release.cuMemAlloc", cu.cuMemAlloc_v2(&ptr, 1024));
  rc_line("ctx.after_last_release.cuCtxSynchronize", cu.cuCtxSynchronize());
  rc_line("ctx.release_unretained", cu.cuDevicePrimaryCtxRelease_v2(0));
  rc_line("ctx.release_bad_device", cu.cuDevicePrimaryCtxRelease_v2(count));
  CUcontext revived = nullptr;
  rc_line("ctx.retain_after_release", cu.cuDevicePrimaryCtxRetain(&revived, 0));
  line("ctx.retain_after_release.same_handle", revived == primary ? "yes" : "no");
  rc_line("ctx.retain_after_release.cuMemAlloc", cu.cuMemAlloc_v2(&ptr, 1024));
  rc_line("ctx.cuCtxSetCurrent_null", cu.cuCtxSetCurrent(nullptr));
  cu.cuCtxGetCurrent(&ctx);
  line("ctx.cuCtxSetCurrent_null.current_is_null", ctx == nullptr ? "yes" : "no");

  const char* error_name = nullptr;
  rc_line("init.cuGetErrorName_9999", cu.cuGetErrorName(static_cast<CUresult>(9999), &error_name));
  rc_line("init.cuGetErrorName_201", cu.cuGetErrorName(static_cast<CUresult>(201), &error_name));
  line("init.cuGetErrorName_201.text", error_name != nullptr ? error_name : "(null)");
}

// ---- fork --------------------------------------------------------------------------

void probe_fork_child(const std::string& prefix) {
  int count = -1;
  rc_line(prefix + ".cuInit", cu.cuInit(0));
  rc_line(prefix + ".cuDeviceGetCount", cu.cuDeviceGetCount(&count));
  int version = 0;
  rc_line(prefix + ".cuDriverGetVersion", cu.cuDriverGetVersion(&version));
  CUcontext ctx = nullptr;
  rc_line(prefix + ".cuCtxGetCurrent", cu.cuCtxGetCurrent(&ctx));
  CUdeviceptr ptr = 0;
  rc_line(prefix + ".cuMemAlloc", cu.cuMemAlloc_v2(&ptr, 1024));
  rc_line(prefix + ".cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(&ctx, 0));
  if (have_nvml) {
    unsigned nvml_count = 0;
    line(prefix + ".nvmlInit", std::to_string(nvml.nvmlInit_v2()));
    line(prefix + ".nvmlDeviceGetCount", std::to_string(nvml.nvmlDeviceGetCount_v2(&nvml_count)));
  }
}

void probe_fork() {
  // A child of a process that loaded the driver but never called cuInit.
  in_child("fork.after_load_only", [] { probe_fork_child("fork.after_load_only"); });
  // A child of a process that initialised, made a context current and allocated.
  in_child("fork.after_init", [] {
    cu.cuInit(0);
    CUcontext primary = nullptr;
    cu.cuDevicePrimaryCtxRetain(&primary, 0);
    cu.cuCtxSetCurrent(primary);
    CUdeviceptr ptr = 0;
    cu.cuMemAlloc_v2(&ptr, 1024);
    in_child("fork.after_init", [&] {
      probe_fork_child("fork.after_init");
      rc_line("fork.after_init.cuCtxSetCurrent_parent_context", cu.cuCtxSetCurrent(primary));
      rc_line("fork.after_init.cuMemFree_parent_pointer", cu.cuMemFree_v2(ptr));
      rc_line("fork.after_init.cuCtxSynchronize", cu.cuCtxSynchronize());
    });
    rc_line("fork.after_init.parent_still_works.cuMemFree", cu.cuMemFree_v2(ptr));
  });
}

// ---- CUDA_VISIBLE_DEVICES ----------------------------------------------------------

struct Devices {
  std::vector<std::string> uuids;  // physical order (no CUDA_VISIBLE_DEVICES)
};

Devices physical_devices() {
  Devices out;
  int fds[2];
  if (pipe(fds) != 0) return out;
  in_child("visible.discover", [&] {
    close(fds[0]);
    unsetenv("CUDA_VISIBLE_DEVICES");
    cu.cuInit(0);
    int count = 0;
    cu.cuDeviceGetCount(&count);
    std::string text;
    for (int i = 0; i < count; ++i) {
      CUuuid uuid{};
      cu.cuDeviceGetUuid_v2(&uuid, i);
      text += format_uuid(uuid) + "\n";
    }
    if (write(fds[1], text.data(), text.size()) < 0) _exit(2);
    close(fds[1]);
  });
  close(fds[1]);
  std::string text;
  char buffer[512];
  ssize_t n = 0;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out.uuids.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Replaces {u0} (device 0's full UUID), {p0} (GPU- plus its first 8 hex digits), {P0} (the
// same in upper case), {h0} (its first 8 hex digits alone) and {M0} (MIG- plus them).
std::string expand(const std::string& pattern, const Devices& devices) {
  if (devices.uuids.empty()) return pattern;
  const std::string& u0 = devices.uuids[0];
  const std::string h0 = u0.substr(4, 8);
  std::string upper = h0;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::pair<const char*, std::string> keys[] = {{"{u0}", u0},
                                                      {"{p0}", "GPU-" + h0},
                                                      {"{P0}", "GPU-" + upper},
                                                      {"{h0}", h0},
                                                      {"{M0}", "MIG-" + h0}};
  std::string out = pattern;
  for (const auto& [key, value] : keys) {
    for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key)) {
      out.replace(at, std::strlen(key), value);
    }
  }
  return out;
}

std::string visible_label(const std::string& pattern) {
  std::string out = "'";
  for (char c : pattern) {
    if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + "'";
}

void probe_visible() {
  const Devices devices = physical_devices();
  line("info.physical_devices", std::to_string(devices.uuids.size()));
  static const char* const kRows[] = {"<unset>",
                                      "",
                                      "0",
                                      "1",
                                      "-1",
                                      "0,0",
                                      "0,1",
                                      "1,0",
                                      "0,junk",
                                      "junk",
                                      " 0",
                                      "0 ",
                                      "\t0",
                                      "00",
                                      "+0",
                                      "-0",
                                      "0x0",
                                      "0gpu",
                                      "0,,1",
                                      "0,-1",
                                      ",0",
                                      "3000000000",
                                      "0,3000000000,4000000000",
                                      "4294967296",
                                      "99999999999999999999",
                                      "{u0}",
                                      "{p0}",
                                      "{h0}",
                                      "{P0}",
                                      "GPU-",
                                      "GPU-zzzz",
                                      "{p0},0",
                                      "0,{p0}",
                                      "{p0},{p0}",
                                      " {p0}",
                                      "{p0} ",
                                      "{p0}, 0",
                                      "0, {p0}",
                                      "GPU-{h0}junk",
                                      "{M0}",
                                      "MIG-",
                                      "MIG-{u0}",
                                      "{u0},1"};
  for (const char* pattern : kRows) {
    const std::string label = visible_label(pattern);
    in_child("visible[" + label + "]", [&] {
      if (std::strcmp(pattern, "<unset>") == 0) {
        unsetenv("CUDA_VISIBLE_DEVICES");
      } else {
        setenv("CUDA_VISIBLE_DEVICES", expand(pattern, devices).c_str(), 1);
      }
      const CUresult init_rc = cu.cuInit(0);
      int count = -1;
      const CUresult count_rc = cu.cuDeviceGetCount(&count);
      std::string value = "init=" + std::to_string(init_rc) +
                          " count_rc=" + std::to_string(count_rc) +
                          " count=" + std::to_string(count) + " devices=[";
      for (int i = 0; i < count; ++i) {
        CUuuid uuid{};
        std::string who = "?";
        if (cu.cuDeviceGetUuid_v2(&uuid, i) == CUDA_SUCCESS) {
          const std::string text = format_uuid(uuid);
          who = "other";
          for (std::size_t p = 0; p < devices.uuids.size(); ++p) {
            if (devices.uuids[p] == text) who = "phys" + std::to_string(p);
          }
        }
        value += (i > 0 ? "," : "") + who;
      }
      line("visible[" + label + "]", value + "]");
    });
  }
  if (have_nvml) {
    in_child("visible.nvml", [] {
      setenv("CUDA_VISIBLE_DEVICES", "", 1);
      unsigned count = 0;
      const int init_rc = nvml.nvmlInit_v2();
      const int count_rc = nvml.nvmlDeviceGetCount_v2(&count);
      line("visible.nvml_ignores_variable",
           "init=" + std::to_string(init_rc) + " count_rc=" + std::to_string(count_rc) +
               " count_is_physical=" + (count == 0 ? "no" : "yes"));
    });
  }
}

// ---- streams, events, capture, copies (recorded and compared by the twin) ---------

bool have_stream_symbols() {
  return cu.cuStreamCreate != nullptr && cu.cuEventCreate != nullptr &&
         cu.cuStreamBeginCapture_v2 != nullptr && cu.cuLaunchHostFunc != nullptr &&
         cu.cuMemcpyHtoDAsync_v2 != nullptr && cu.cuMemAllocHost_v2 != nullptr &&
         cu.cuEventElapsedTime_v2 != nullptr && cu.cuStreamIsCapturing != nullptr;
}

void probe_streams_setup_and_events(CUstream& s, CUstream& s2) {
  int least = 99, greatest = 99;
  rc_line("stream.priority_range", cu.cuCtxGetStreamPriorityRange(&least, &greatest));
  line("stream.priority_range.values", std::to_string(least) + "," + std::to_string(greatest));
  CUstream t = nullptr;
  rc_line("stream.create_flags_0x4", cu.cuStreamCreate(&t, 0x4));
  if (t != nullptr) cu.cuStreamDestroy_v2(t);
  t = nullptr;
  rc_line("stream.create_priority_-100", cu.cuStreamCreateWithPriority(&t, 0, -100));
  int priority = 99;
  if (t != nullptr) {
    cu.cuStreamGetPriority(t, &priority);
    cu.cuStreamDestroy_v2(t);
  }
  line("stream.create_priority_-100.value", std::to_string(priority));
  t = nullptr;
  rc_line("stream.create_priority_100", cu.cuStreamCreateWithPriority(&t, 0, 100));
  priority = 99;
  if (t != nullptr) {
    cu.cuStreamGetPriority(t, &priority);
    cu.cuStreamDestroy_v2(t);
  }
  line("stream.create_priority_100.value", std::to_string(priority));
  cu.cuStreamCreate(&s, 0);
  cu.cuStreamCreate(&s2, 1);

  CUevent e = nullptr;
  rc_line("event.create_interprocess_without_disable_timing", cu.cuEventCreate(&e, 0x4));
  if (e != nullptr) cu.cuEventDestroy_v2(e);
  e = nullptr;
  rc_line("event.create_interprocess_with_disable_timing", cu.cuEventCreate(&e, 0x6));
  if (e != nullptr) cu.cuEventDestroy_v2(e);
  e = nullptr;
  rc_line("event.create_flags_0x10", cu.cuEventCreate(&e, 0x10));
  if (e != nullptr) cu.cuEventDestroy_v2(e);

  CUevent never = nullptr, start = nullptr, stop = nullptr, untimed = nullptr;
  cu.cuEventCreate(&never, 0);
  cu.cuEventCreate(&start, 0);
  cu.cuEventCreate(&stop, 0);
  cu.cuEventCreate(&untimed, 0x2);
  float ms = -1;
  rc_line("event.query_never_recorded", cu.cuEventQuery(never));
  rc_line("event.synchronize_never_recorded", cu.cuEventSynchronize(never));
  rc_line("event.elapsed_both_never_recorded", cu.cuEventElapsedTime_v2(&ms, never, stop));
  cu.cuEventRecord(start, s);
  cu.cuStreamSynchronize(s);
  rc_line("event.elapsed_end_never_recorded", cu.cuEventElapsedTime_v2(&ms, start, never));
  cu.cuEventRecord(untimed, s);
  cu.cuStreamSynchronize(s);
  rc_line("event.elapsed_disable_timing", cu.cuEventElapsedTime_v2(&ms, start, untimed));
  block(s);
  cu.cuEventRecord(stop, s);
  rc_line("event.elapsed_end_pending", cu.cuEventElapsedTime_v2(&ms, start, stop));
  rc_line("event.query_pending", cu.cuEventQuery(stop));
  rc_line("stream.query_pending", cu.cuStreamQuery(s));
  cu.cuStreamSynchronize(s);
  rc_line("event.elapsed_done", cu.cuEventElapsedTime_v2(&ms, start, stop));
  line("event.elapsed_done.at_least_250ms", ms >= 250 ? "yes" : "no");
  rc_line("event.elapsed_reversed", cu.cuEventElapsedTime_v2(&ms, stop, start));
  line("event.elapsed_reversed.negative", ms < 0 ? "yes" : "no");
  rc_line("event.record_null_event", cu.cuEventRecord(nullptr, s));
  rc_line("stream.wait_event_null_event", cu.cuStreamWaitEvent(s, nullptr, 0));
  rc_line("stream.wait_event_never_recorded", cu.cuStreamWaitEvent(s, never, 0));
  cu.cuEventRecord(start, s);
  rc_line("stream.wait_event_own_recorded", cu.cuStreamWaitEvent(s, start, 0));
  rc_line("stream.wait_event_flags_0x10", cu.cuStreamWaitEvent(s, start, 0x10));
  // Destroying an event another stream waits on must not cancel the wait.
  CUevent doomed = nullptr;
  cu.cuEventCreate(&doomed, 0x2);
  block(s);
  cu.cuEventRecord(doomed, s);
  cu.cuStreamWaitEvent(s2, doomed, 0);
  rc_line("event.destroy_while_waited_on", cu.cuEventDestroy_v2(doomed));
  const auto t0 = std::chrono::steady_clock::now();
  cu.cuStreamSynchronize(s2);
  line("event.destroy_while_waited_on.waiter_still_waits", ms_since(t0) >= 200 ? "yes" : "no");
  cu.cuStreamSynchronize(s);
  for (CUevent ev : {never, start, stop, untimed}) cu.cuEventDestroy_v2(ev);
}

void probe_copies(CUstream s) {
  CUdeviceptr d = 0;
  cu.cuMemAlloc_v2(&d, 4096);
  int readback = 0;
  // Pageable source of an async HtoD copy: staged at the call, or read when it executes?
  int pageable = 1;
  block(s);
  auto t0 = std::chrono::steady_clock::now();
  rc_line("copy.htod_async_pageable", cu.cuMemcpyHtoDAsync_v2(d, &pageable, sizeof pageable, s));
  line("copy.htod_async_pageable.returned_before_stream_work", ms_since(t0) < 200 ? "yes" : "no");
  pageable = 2;
  cu.cuStreamSynchronize(s);
  cu.cuMemcpyDtoH_v2(&readback, d, sizeof readback);
  line("copy.htod_async_pageable.device_got",
       readback == 1 ? "value at call" : "value at execution");
  // Pageable destination of an async DtoH copy: does the call wait for completion?
  int dest = 0;
  block(s);
  t0 = std::chrono::steady_clock::now();
  rc_line("copy.dtoh_async_pageable", cu.cuMemcpyDtoHAsync_v2(&dest, d, sizeof dest, s));
  line("copy.dtoh_async_pageable.returned_after_completion",
       ms_since(t0) >= 200 && dest == 1 ? "yes" : "no");
  cu.cuStreamSynchronize(s);
  // Pinned memory: both directions happen when the operation executes.
  void* pinned_raw = nullptr;
  rc_line("copy.cuMemAllocHost", cu.cuMemAllocHost_v2(&pinned_raw, 4096));
  int* pinned = static_cast<int*>(pinned_raw);
  if (pinned != nullptr) {
    pinned[0] = 5;
    block(s);
    cu.cuMemcpyHtoDAsync_v2(d, pinned, sizeof(int), s);
    pinned[0] = 6;
    cu.cuStreamSynchronize(s);
    cu.cuMemcpyDtoH_v2(&readback, d, sizeof readback);
    line("copy.htod_async_pinned.device_got",
         readback == 5 ? "value at call" : "value at execution");
    pinned[1] = 0;
    block(s);
    t0 = std::chrono::steady_clock::now();
    cu.cuMemcpyDtoHAsync_v2(&pinned[1], d, sizeof(int), s);
    line("copy.dtoh_async_pinned.returned_before_completion",
         ms_since(t0) < 200 && pinned[1] == 0 ? "yes" : "no");
    cu.cuStreamSynchronize(s);
    line("copy.dtoh_async_pinned.written_after_sync", pinned[1] == 6 ? "yes" : "no");
    rc_line("copy.cuMemFreeHost", cu.cuMemFreeHost(pinned));
  }
  rc_line("copy.cuMemFreeHost_not_pinned", cu.cuMemFreeHost(&readback));
  cu.cuMemFree_v2(d);
}

void probe_capture(CUstream s, CUstream s2) {
  constexpr int kGlobal = 0, kThreadLocal = 1, kRelaxed = 2;
  rc_line("capture.begin_legacy_stream",
          cu.cuStreamBeginCapture_v2(nullptr, capture_mode(kGlobal)));
  rc_line("capture.begin_mode_7", cu.cuStreamBeginCapture_v2(s2, capture_mode(7)));
  end_capture("capture.mode_7_cleanup", s2);
  rc_line("capture.end_not_capturing", cu.cuStreamEndCapture(s2, nullptr));
  CUgraph graph = nullptr;
  rc_line("capture.end_not_capturing_with_graph", cu.cuStreamEndCapture(s2, &graph));

  rc_line("capture.begin", cu.cuStreamBeginCapture_v2(s2, capture_mode(kGlobal)));
  rc_line("capture.begin_twice", cu.cuStreamBeginCapture_v2(s2, capture_mode(kGlobal)));
  line("capture.status_active", capture_status(s2));
  end_capture("capture.empty", s2);

  struct Case {
    const char* name;
    int mode;
    CUstream* stream;
    std::function<CUresult()> action;
  };
  CUdeviceptr scratch = 0;
  cu.cuMemAlloc_v2(&scratch, 4096);
  int host = 0;
  CUevent outside = nullptr;
  cu.cuEventCreate(&outside, 0x2);
  cu.cuEventRecord(outside, s);
  cu.cuStreamSynchronize(s);
  CUdeviceptr allocated = 0;
  // cuMemAlloc from a second thread with this thread's context current there.
  const auto alloc_on_other_thread = [&] {
    CUresult rc = CUDA_SUCCESS;
    CUcontext ctx = nullptr;
    cu.cuCtxGetCurrent(&ctx);
    std::thread([&] {
      cu.cuCtxSetCurrent(ctx);
      rc = cu.cuMemAlloc_v2(&allocated, 1024);
    }).join();
    return rc;
  };
  const std::vector<Case> cases = {
      {"stream_synchronize", kGlobal, &s2, [&] { return cu.cuStreamSynchronize(s2); }},
      {"stream_query", kGlobal, &s2, [&] { return cu.cuStreamQuery(s2); }},
      {"ctx_synchronize", kGlobal, &s2, [&] { return cu.cuCtxSynchronize(); }},
      {"sync_memcpy_nonblocking_capture", kGlobal, &s2,
       [&] { return cu.cuMemcpyHtoD_v2(scratch, &host, sizeof host); }},
      {"sync_memcpy_blocking_capture", kGlobal, &s,
       [&] { return cu.cuMemcpyHtoD_v2(scratch, &host, sizeof host); }},
      {"mem_alloc_global", kGlobal, &s2, [&] { return cu.cuMemAlloc_v2(&allocated, 1024); }},
      {"mem_alloc_relaxed", kRelaxed, &s2, [&] { return cu.cuMemAlloc_v2(&allocated, 1024); }},
      {"mem_alloc_other_thread_thread_local", kThreadLocal, &s2, alloc_on_other_thread},
      {"mem_alloc_other_thread_global", kGlobal, &s2, alloc_on_other_thread},
      {"add_callback", kGlobal, &s2,
       [&] {
         return cu.cuStreamAddCallback(
             s2, [](CUstream, CUresult, void*) {}, nullptr, 0);
       }},
      {"launch_host_func", kGlobal, &s2, [&] { return block(s2); }},
      {"wait_outside_event", kGlobal, &s2, [&] { return cu.cuStreamWaitEvent(s2, outside, 0); }},
      {"async_copy_pageable", kGlobal, &s2,
       [&] { return cu.cuMemcpyHtoDAsync_v2(scratch, &host, sizeof host, s2); }},
  };
  for (const Case& c : cases) {
    const std::string rule = std::string("capture.") + c.name;
    allocated = 0;
    const CUresult begin_rc = cu.cuStreamBeginCapture_v2(*c.stream, capture_mode(c.mode));
    if (begin_rc != CUDA_SUCCESS) {
      rc_line(rule + ".begin", begin_rc);
      continue;
    }
    rc_line(rule, c.action());
    line(rule + ".status", capture_status(*c.stream));
    end_capture(rule, *c.stream);
    if (allocated != 0) cu.cuMemFree_v2(allocated);
  }

  // A stream that joined a capture through an event, then the origin ends without it.
  CUevent fork_ev = nullptr, captured = nullptr;
  cu.cuEventCreate(&fork_ev, 0x2);
  cu.cuEventCreate(&captured, 0x2);
  cu.cuStreamBeginCapture_v2(s2, capture_mode(kGlobal));
  cu.cuEventRecord(fork_ev, s2);
  rc_line("capture.join_by_wait", cu.cuStreamWaitEvent(s, fork_ev, 0));
  line("capture.join_by_wait.joined_status", capture_status(s));
  rc_line("capture.end_on_joined_stream", cu.cuStreamEndCapture(s, &graph));
  line("capture.end_on_joined_stream.status_after", capture_status(s));
  cu.cuEventRecord(captured, s2);
  rc_line("capture.query_captured_event", cu.cuEventQuery(captured));
  rc_line("capture.synchronize_captured_event", cu.cuEventSynchronize(captured));
  end_capture("capture.end_origin_unjoined", s2);
  line("capture.end_origin_unjoined.joined_status_after", capture_status(s));
  rc_line("capture.non_capturing_waits_invalidated_captured_event",
          cu.cuStreamWaitEvent(s, captured, 0));
  rc_line("capture.stream_synchronize_after_all", cu.cuStreamSynchronize(s));
  cu.cuEventDestroy_v2(fork_ev);
  cu.cuEventDestroy_v2(captured);
  cu.cuEventDestroy_v2(outside);
  cu.cuMemFree_v2(scratch);
}

void probe_streams() {
  if (!have_stream_symbols()) {
    line("stream.symbols", "absent");
    return;
  }
  cu.cuInit(0);
  CUcontext primary = nullptr;
  cu.cuDevicePrimaryCtxRetain(&primary, 0);
  cu.cuCtxSetCurrent(primary);
  CUstream s = nullptr, s2 = nullptr;
  probe_streams_setup_and_events(s, s2);
  probe_copies(s);
  probe_capture(s, s2);
  rc_line("stream.destroy", cu.cuStreamDestroy_v2(s));
  cu.cuStreamDestroy_v2(s2);
}

int run(int argc, char** argv) {
  const char* env_driver = std::getenv("ACCEL_CUDA_DRIVER");
  const char* env_nvml = std::getenv("ACCEL_NVML_LIBRARY");
  const std::string driver_file = argc > 1                ? argv[1]
                                  : env_driver != nullptr ? env_driver
                                                          : "libcuda.so.1";
  const std::string nvml_file = argc > 2              ? argv[2]
                                : env_nvml != nullptr ? env_nvml
                                                      : "libnvidia-ml.so.1";
  std::string error;
  if (!load_cuda_driver(driver_file, error)) {
    std::fprintf(stderr, "accel_cuda_rules_probe: cannot load the driver: %s\n", error.c_str());
    return 1;
  }
  have_nvml = load_nvml(nvml_file, error);
  if (!have_nvml) line("info.nvml", "not loaded: " + error);
  bool ok = true;
  ok &= in_child("init", probe_init_device_ctx_mem);
  probe_risky_calls();
  probe_fork();
  probe_visible();
  ok &= in_child("stream", probe_streams);
  probe_extended();
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace accel::hardware

int main(int argc, char** argv) { return accel::hardware::run(argc, argv); }
