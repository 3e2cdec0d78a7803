// A deviceQuery-style listing written only against the CUDA driver API of the toolkit's
// cuda.h and linked against the toolkit's libcuda stub, as a third-party tool is: it runs
// on whatever libcuda.so.1 the dynamic loader finds (ctest puts the simulated driver's
// folder first on LD_LIBRARY_PATH). It lists every device attribute of every device by
// name, then the peer matrix: cuDeviceCanAccessPeer, every cuDeviceGetP2PAttribute, and
// enabling then disabling peer access between each pair of primary contexts.
//
// Unlike a listing tool that stops at the first error, it prints every failure (the
// driver's code name in place of the value) and exits 1 if there was one, so a missing
// attribute shows as a line, not as a truncated listing. The attribute names come from
// the project's ABI list (accel_abi/cuda_driver.h); the values they name are cuda.h's, so
// a name cuda.h lacks fails to compile, and every number from 1 to cuda.h's
// CU_DEVICE_ATTRIBUTE_MAX - 1 is asked even if the list missed it.

#include <cuda.h>

#include <cstdio>
#include <map>
#include <string>

#include "accel_abi/cuda_driver.h"

namespace {

int g_failures = 0;

std::string code_name(CUresult rc) {
  const char* name = nullptr;
  if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || name == nullptr) {
    return "CUresult " + std::to_string(static_cast<int>(rc));
  }
  return name;
}

// Prints "<what> failed: <code>" and counts a failure unless `rc` is CUDA_SUCCESS.
bool ok(CUresult rc, const std::string& what) {
  if (rc == CUDA_SUCCESS) return true;
  std::printf("%s failed: %s\n", what.c_str(), code_name(rc).c_str());
  ++g_failures;
  return false;
}

std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

const std::map<int, std::string>& attribute_names() {
  static const std::map<int, std::string> names = [] {
    std::map<int, std::string> m;
#define DEVICE_QUERY_NAME(name, value) \
  m.emplace(static_cast<int>(::CU_DEVICE_ATTRIBUTE_##name), lower(#name));
    ACCEL_CUDA_DEVICE_ATTRIBUTES(DEVICE_QUERY_NAME)
#undef DEVICE_QUERY_NAME
    return m;
  }();
  return names;
}

void list_device(CUdevice dev) {
  char name[256] = {};
  size_t bytes = 0;
  int major = 0, minor = 0;
  if (!ok(cuDeviceGetName(name, sizeof(name), dev), "cuDeviceGetName")) return;
  ok(cuDeviceTotalMem(&bytes, dev), "cuDeviceTotalMem");
  ok(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "major");
  ok(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "minor");
  std::printf("Device %d: \"%s\", compute capability %d.%d, %zu bytes\n", dev, name, major, minor,
              bytes);
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    auto it = attribute_names().find(a);
    const std::string label =
        it != attribute_names().end() ? it->second : "attribute_" + std::to_string(a);
    int value = 0;
    const CUresult rc = cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(a), dev);
    if (rc == CUDA_SUCCESS) {
      std::printf("  %3d %-64s %d\n", a, label.c_str(), value);
    } else {
      std::printf("  %3d %-64s FAILED %s\n", a, label.c_str(), code_name(rc).c_str());
      ++g_failures;
    }
  }
  // One past the last attribute: the driver must refuse it.
  int value = 0;
  const CUresult rc = cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MAX, dev);
  std::printf("  %3d %-64s %s\n", static_cast<int>(CU_DEVICE_ATTRIBUTE_MAX), "(max)",
              code_name(rc).c_str());
  if (rc != CUDA_ERROR_INVALID_VALUE) ++g_failures;
}

void list_peers(int count) {
  std::printf("Peer matrix: access rank atomics arrays partial_atomics | enable disable\n");
  for (CUdevice a = 0; a < count; ++a) {
    for (CUdevice b = 0; b < count; ++b) {
      int can = -1;
      if (!ok(cuDeviceCanAccessPeer(&can, a, b), "cuDeviceCanAccessPeer")) continue;
      if (a == b) {
        std::printf("  %d -> %d: can_access %d\n", a, b, can);
        continue;
      }
      int values[5] = {-1, -1, -1, -1, -1};
      const CUdevice_P2PAttribute attributes[5] = {
          CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
          CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
          CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED,
          CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED};
      for (int i = 0; i < 5; ++i) {
        ok(cuDeviceGetP2PAttribute(&values[i], attributes[i], a, b), "cuDeviceGetP2PAttribute");
      }
      // Peer access between the two primary contexts: the codes say what the driver did.
      CUcontext ctx_a = nullptr, ctx_b = nullptr;
      std::string enable = "-", disable = "-";
      if (ok(cuDevicePrimaryCtxRetain(&ctx_a, a), "cuDevicePrimaryCtxRetain") &&
          ok(cuDevicePrimaryCtxRetain(&ctx_b, b), "cuDevicePrimaryCtxRetain") &&
          ok(cuCtxSetCurrent(ctx_a), "cuCtxSetCurrent")) {
        enable = code_name(cuCtxEnablePeerAccess(ctx_b, 0));
        disable = code_name(cuCtxDisablePeerAccess(ctx_b));
      }
      if (ctx_b != nullptr) ok(cuDevicePrimaryCtxRelease(b), "cuDevicePrimaryCtxRelease");
      if (ctx_a != nullptr) ok(cuDevicePrimaryCtxRelease(a), "cuDevicePrimaryCtxRelease");
      std::printf("  %d -> %d: can_access %d | %d %d %d %d %d | %s %s\n", a, b, can, values[0],
                  values[1], values[2], values[3], values[4], enable.c_str(), disable.c_str());
      if (values[0] != can) {
        std::printf("  %d -> %d: ACCESS_SUPPORTED disagrees with cuDeviceCanAccessPeer\n", a, b);
        ++g_failures;
      }
    }
  }
}

}  // namespace

int main() {
  if (!ok(cuInit(0), "cuInit")) return 1;
  int version = 0;
  ok(cuDriverGetVersion(&version), "cuDriverGetVersion");
  int count = 0;
  if (!ok(cuDeviceGetCount(&count), "cuDeviceGetCount")) return 1;
  std::printf("Driver version %d.%d, %d device(s)\n", version / 1000, (version % 1000) / 10, count);
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    if (ok(cuDeviceGet(&dev, i), "cuDeviceGet")) list_device(dev);
  }
  list_peers(count);
  std::printf("%s: %d failure(s)\n", g_failures == 0 ? "PASS" : "FAIL", g_failures);
  return g_failures == 0 ? 0 : 1;
}
