// The `extended.` section of accel_cuda_rules_probe: the rules the driver conformance tests
// cannot ask through a passing test alone -- timing against a busy stream, memory
// accounting, what a short buffer receives, capture corner cases -- and the facts the
// simulation's defaults come from (every device attribute, every result text, the CUDA 13
// entry points). First recorded on an NVIDIA H100 (docs/HARDWARE.md, Recording 2); the
// twins of machines recorded with it compare this section too.
//
// Each subsection runs in a child of its own (in_child), so a crash or a hang costs one
// subsection; the calls a driver may answer by crashing run alone (risky).
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "cuda_probe.h"

namespace accel::hardware {
namespace {

using cuda_abi::CUcontext;
using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUdevice;
using cuda_abi::CUdeviceptr;
using cuda_abi::CUevent;
using cuda_abi::CUgraph;
using cuda_abi::CUgraphExec;
using cuda_abi::CUmemGenericAllocationHandle;
using cuda_abi::CUresult;
using cuda_abi::CUstream;

constexpr std::size_t kMiB = 1024 * 1024;

template <typename E>
E as(int value) {
  return static_cast<E>(value);
}

// Makes device 0's primary context current (the probe's children start with none).
CUcontext make_primary_current() {
  cu.cuInit(0);
  CUcontext primary = nullptr;
  cu.cuDevicePrimaryCtxRetain(&primary, 0);
  cu.cuCtxSetCurrent(primary);
  return primary;
}

std::string rc_value(CUresult rc, long long value) {
  return result_text(rc) + (rc == CUDA_SUCCESS ? " value " + std::to_string(value) : "");
}

void noop_callback(CUstream, CUresult, void*) {}

// Records an event on `s` and says whether it is still pending ("yes") or complete ("no"),
// then synchronises the context and destroys the event.
std::string still_pending(CUstream s) {
  CUevent mark = nullptr;
  cu.cuEventCreate(&mark, 0);
  cu.cuEventRecord(mark, s);
  const bool pending = cu.cuEventQuery(mark) != CUDA_SUCCESS;
  cu.cuCtxSynchronize();
  cu.cuEventDestroy_v2(mark);
  return pending ? "yes" : "no";
}

// ---- streams, events and copies ------------------------------------------------------

void streams_and_events() {
  make_primary_current();
  CUstream s = nullptr;
  cu.cuStreamCreate(&s, 0);
  CUevent e = nullptr;
  cu.cuEventCreate(&e, 0);
  rc_line("extended.event.record_with_flags_external_outside_capture",
          cu.cuEventRecordWithFlags(e, s, 0x1));
  cu.cuEventRecord(e, s);
  rc_line("extended.stream.wait_event_external_outside_capture", cu.cuStreamWaitEvent(s, e, 0x1));
  rc_line("extended.stream.add_callback_flags_1",
          cu.cuStreamAddCallback(s, noop_callback, nullptr, 1));
  cu.cuStreamSynchronize(s);
  // Events of two contexts of the same device.
  CUcontext created = nullptr;
  if (cu.cuCtxCreate_v4(&created, nullptr, 0, 0) == CUDA_SUCCESS) {
    CUstream t = nullptr;
    CUevent f = nullptr;
    cu.cuStreamCreate(&t, 0);
    cu.cuEventCreate(&f, 0);
    cu.cuEventRecord(f, t);
    cu.cuStreamSynchronize(t);
    float ms = 0;
    rc_line("extended.event.elapsed_two_contexts", cu.cuEventElapsedTime_v2(&ms, e, f));
    cu.cuEventDestroy_v2(f);
    cu.cuStreamDestroy_v2(t);
    cu.cuCtxDestroy_v2(created);
  }
  // A blocking stream created after a legacy-stream operation: does it wait for it?
  block(nullptr);
  CUstream late = nullptr;
  cu.cuStreamCreate(&late, 0);
  line("extended.stream.blocking_created_after_legacy_work_waits_for_it", still_pending(late));
  cu.cuStreamDestroy_v2(late);
  // A destroyed blocking stream with pending work: does the legacy stream still wait for it?
  CUstream doomed = nullptr;
  cu.cuStreamCreate(&doomed, 0);
  block(doomed);
  cu.cuStreamDestroy_v2(doomed);
  line("extended.stream.destroyed_blocking_stream_still_in_legacy_barrier",
       still_pending(nullptr));
  cu.cuEventDestroy_v2(e);
  cu.cuStreamDestroy_v2(s);
}

// How long a synchronous call takes while the legacy stream is busy for 300 ms.
void timed_against_busy_legacy(const std::string& rule, const std::function<CUresult()>& call) {
  block(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const CUresult rc = call();
  const double ms = ms_since(t0);
  line(rule, result_text(rc) + (ms >= 200 ? ", waited for the stream" : ", did not wait"));
  cu.cuCtxSynchronize();
}

void synchronous_copies() {
  make_primary_current();
  CUdeviceptr d = 0, d2 = 0;
  cu.cuMemAlloc_v2(&d, 4096);
  cu.cuMemAlloc_v2(&d2, 4096);
  std::vector<int> pageable(1024, 7);
  void* pinned = nullptr;
  cu.cuMemAllocHost_v2(&pinned, 4096);
  timed_against_busy_legacy("extended.copy.sync_htod_pageable",
                            [&] { return cu.cuMemcpyHtoD_v2(d, pageable.data(), 4096); });
  timed_against_busy_legacy("extended.copy.sync_htod_pinned",
                            [&] { return cu.cuMemcpyHtoD_v2(d, pinned, 4096); });
  timed_against_busy_legacy("extended.copy.sync_dtoh_pageable",
                            [&] { return cu.cuMemcpyDtoH_v2(pageable.data(), d, 4096); });
  timed_against_busy_legacy("extended.copy.sync_dtoh_pinned",
                            [&] { return cu.cuMemcpyDtoH_v2(pinned, d, 4096); });
  timed_against_busy_legacy("extended.copy.sync_dtod",
                            [&] { return cu.cuMemcpyDtoD_v2(d2, d, 4096); });
  timed_against_busy_legacy("extended.copy.sync_memset_d8",
                            [&] { return cu.cuMemsetD8_v2(d, 1, 4096); });
  timed_against_busy_legacy("extended.copy.sync_memset_d8_pinned", [&] {
    return cu.cuMemsetD8_v2(reinterpret_cast<CUdeviceptr>(pinned), 1, 64);
  });
  // A synchronous pageable HtoD: which value does the device get, the one at the call?
  int value = 1;
  block(nullptr);
  cu.cuMemcpyHtoD_v2(d, &value, sizeof value);
  value = 2;
  cu.cuCtxSynchronize();
  int readback = 0;
  cu.cuMemcpyDtoH_v2(&readback, d, sizeof readback);
  line("extended.copy.sync_htod_pageable.device_got",
       readback == 1 ? "value at call" : "value at execution");
  // cuMemcpy between two pageable host buffers (unified addressing).
  int src = 11, dst = 0;
  const CUresult hh = cu.cuMemcpy(reinterpret_cast<CUdeviceptr>(&dst),
                                  reinterpret_cast<CUdeviceptr>(&src), sizeof src);
  line("extended.copy.cuMemcpy_host_to_host",
       result_text(hh) + (dst == 11 ? ", copied at the call" : ", not copied at the call"));
  cu.cuCtxSynchronize();
  cu.cuMemFreeHost(pinned);
  cu.cuMemFree_v2(d);
  cu.cuMemFree_v2(d2);
}

void host_memory_errors() {
  risky("extended.host.cuMemFreeHost_null", true, [] { return cu.cuMemFreeHost(nullptr); });
  risky("extended.host.cuMemAllocHost_size_0", true, [] {
    void* p = nullptr;
    return cu.cuMemAllocHost_v2(&p, 0);
  });
  risky("extended.host.cuMemFreeHost_registered", true, [] {
    static std::vector<char> buffer(8192);
    cu.cuMemHostRegister_v2(buffer.data(), buffer.size(), 0);
    return cu.cuMemFreeHost(buffer.data());
  });
  risky("extended.host.cuMemHostUnregister_allocated", true, [] {
    void* p = nullptr;
    cu.cuMemAllocHost_v2(&p, 4096);
    return cu.cuMemHostUnregister(p);
  });
  risky("extended.stream.destroy_null", true, [] { return cu.cuStreamDestroy_v2(nullptr); });
  risky("extended.stream.destroy_legacy", true,
        [] { return cu.cuStreamDestroy_v2(reinterpret_cast<CUstream>(0x1)); });
  risky("extended.stream.destroy_per_thread", true,
        [] { return cu.cuStreamDestroy_v2(reinterpret_cast<CUstream>(0x2)); });
  // A size of 0 with addresses that are no allocation.
  constexpr CUdeviceptr kNowhere = 0xdead0000;
  risky("extended.copy.size_0_dtoh_bad_address", true, [] {
    int x = 0;
    return cu.cuMemcpyDtoH_v2(&x, kNowhere, 0);
  });
  risky("extended.copy.size_0_htod_bad_address", true, [] {
    int x = 0;
    return cu.cuMemcpyHtoD_v2(kNowhere, &x, 0);
  });
  risky("extended.copy.size_0_memset_bad_address", true,
        [] { return cu.cuMemsetD8_v2(kNowhere, 0, 0); });
}

// ---- device attributes and peers -----------------------------------------------------

void attributes_and_peers() {
  const CUcontext own = make_primary_current();
  int value = -7;
  for (int a = 1; a <= 150; ++a) {
    value = -7;
    const CUresult rc = cu.cuDeviceGetAttribute(&value, as<cuda_abi::CUdevice_attribute>(a), 0);
    line("extended.attribute." + std::to_string(a), rc_value(rc, value));
  }
  int count = 0;
  cu.cuDeviceGetCount(&count);
  rc_line("extended.attribute.bad_device_and_attribute",
          cu.cuDeviceGetAttribute(&value, as<cuda_abi::CUdevice_attribute>(0), count));
  value = -7;
  CUresult rc = cu.cuDeviceCanAccessPeer(&value, 0, 0);
  line("extended.peer.can_access_self", rc_value(rc, value));
  for (int p2p : {0, 1, 2, 3, 4, 5, 6}) {
    value = -7;
    rc = cu.cuDeviceGetP2PAttribute(&value, as<cuda_abi::CUdevice_P2PAttribute>(p2p), 0, 0);
    line("extended.peer.p2p_attribute_self." + std::to_string(p2p), rc_value(rc, value));
  }
  rc_line("extended.peer.enable_own_context", cu.cuCtxEnablePeerAccess(own, 0));
  rc_line("extended.peer.disable_own_context", cu.cuCtxDisablePeerAccess(own));
  cu.cuCtxSetCurrent(nullptr);
  rc_line("extended.peer.enable_flags_1_no_current_context", cu.cuCtxEnablePeerAccess(own, 1));
  // The PCI bus id's form and a short buffer.
  char bus[64] = {};
  rc = cu.cuDeviceGetPCIBusId(bus, sizeof bus, 0);
  line("extended.device.pci_bus_id", result_text(rc) + " '" + bus + "'");
  for (int len : {13, 12, 8}) {
    std::memset(bus, 'x', sizeof bus);
    bus[63] = 0;
    rc = cu.cuDeviceGetPCIBusId(bus, len, 0);
    line("extended.device.pci_bus_id_len_" + std::to_string(len),
         result_text(rc) + " '" + std::string(bus, std::strlen(bus) < 20 ? std::strlen(bus) : 20) +
             "'");
  }
}

// ---- device memory, virtual memory and pools -----------------------------------------

std::size_t free_now() {
  std::size_t free = 0, total = 0;
  cu.cuMemGetInfo_v2(&free, &total);
  return free;
}

cuda_abi::CUmemAllocationProp pinned_on_device0() {
  cuda_abi::CUmemAllocationProp prop{};
  prop.type = as<cuda_abi::CUmemAllocationType>(1);         // PINNED
  prop.location.type = as<cuda_abi::CUmemLocationType>(1);  // DEVICE
  prop.location.id = 0;
  return prop;
}

void memory_accounting() {
  make_primary_current();
  const std::size_t before = free_now();
  CUdeviceptr a = 0, b = 0, c = 0, d = 0;
  cu.cuMemAlloc_v2(&a, 4096);
  const std::size_t after_a = free_now();
  cu.cuMemAlloc_v2(&b, 4096);
  const std::size_t after_b = free_now();
  cu.cuMemAlloc_v2(&c, 3 * kMiB);
  const std::size_t after_c = free_now();
  cu.cuMemAlloc_v2(&d, 1000);
  line("extended.mem.free_drop_alloc_4096", std::to_string(before - after_a));
  line("extended.mem.free_drop_second_alloc_4096", std::to_string(after_a - after_b));
  line("extended.mem.free_drop_alloc_3MiB", std::to_string(after_b - after_c));
  line("extended.mem.second_4096_follows_first",
       b == a + 4096 ? "yes" : "no (" + std::to_string(static_cast<long long>(b - a)) + ")");
  CUdeviceptr base = 0;
  std::size_t size = 0;
  const CUresult rc = cu.cuMemGetAddressRange_v2(&base, &size, d + 10);
  line("extended.mem.address_range_of_1000_bytes", rc_value(rc, static_cast<long long>(size)));
  for (CUdeviceptr p : {a, b, c, d}) cu.cuMemFree_v2(p);
  // Managed memory: counted against the device at allocation? zero-filled?
  const std::size_t before_managed = free_now();
  CUdeviceptr m = 0;
  const CUresult mrc = cu.cuMemAllocManaged(&m, 4 * kMiB, 1);
  line("extended.managed.free_drop_at_alloc", std::to_string(before_managed - free_now()));
  if (mrc == CUDA_SUCCESS) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(m);
    bool zero = true;
    for (std::size_t i = 0; i < 4 * kMiB; i += 4096) zero = zero && bytes[i] == 0;
    line("extended.managed.zero_filled", zero ? "yes" : "no");
    unsigned int type = 0;
    cu.cuPointerGetAttribute(&type, as<cuda_abi::CUpointer_attribute>(2), m);
    line("extended.managed.memory_type", std::to_string(type));
    rc_line("extended.managed.prefetch_count_0", cu.cuMemPrefetchAsync(m, 0, 0, nullptr));
    cu.cuMemFree_v2(m);
  }
  CUdeviceptr dev = 0;
  cu.cuMemAlloc_v2(&dev, 2 * kMiB);
  rc_line("extended.managed.prefetch_device_memory", cu.cuMemPrefetchAsync(dev, 4096, 0, nullptr));
  long long handle_types = -7;
  CUresult arc =
      cu.cuPointerGetAttribute(&handle_types, as<cuda_abi::CUpointer_attribute>(14), dev);
  line("extended.pointer.allowed_handle_types_device", rc_value(arc, handle_types));
  long long flags = -7;
  arc = cu.cuPointerGetAttribute(&flags, as<cuda_abi::CUpointer_attribute>(16), dev);
  line("extended.pointer.access_flags_device", rc_value(arc, flags));
  char tokens[64];
  rc_line("extended.pointer.p2p_tokens_device",
          cu.cuPointerGetAttribute(tokens, as<cuda_abi::CUpointer_attribute>(5), dev));
  unsigned long long bools = ~0ULL;
  cu.cuPointerGetAttribute(&bools, as<cuda_abi::CUpointer_attribute>(8), dev);
  line("extended.pointer.is_managed_bytes_written", bools == ~0ULL                   ? "none"
                                                    : (bools >> 8) == (~0ULL >> 8)   ? "1"
                                                    : (bools >> 32) == 0xffffffffULL ? "4"
                                                                                     : "8");
  cu.cuMemFree_v2(dev);
  // Registered host memory: flags, device pointer with and without DEVICEMAP.
  static std::vector<char> plain(2 * 4096), mapped(2 * 4096);
  cu.cuMemHostRegister_v2(plain.data(), plain.size(), 0);
  cu.cuMemHostRegister_v2(mapped.data(), mapped.size(), 2);
  unsigned int host_flags = 99;
  CUresult hrc = cu.cuMemHostGetFlags(&host_flags, mapped.data());
  line("extended.host.get_flags_registered", rc_value(hrc, host_flags));
  CUdeviceptr mapped_dev = 0;
  hrc = cu.cuMemHostGetDevicePointer_v2(&mapped_dev, plain.data(), 0);
  rc_line("extended.host.device_pointer_registered_without_devicemap", hrc);
  hrc = cu.cuMemHostGetDevicePointer_v2(&mapped_dev, mapped.data(), 0);
  line("extended.host.device_pointer_registered_devicemap",
       result_text(hrc) + (mapped_dev == reinterpret_cast<CUdeviceptr>(mapped.data())
                               ? ", the host address"
                               : ", another address"));
  void* wc = nullptr;
  cu.cuMemHostAlloc(&wc, 4096, 0x4 | 0x2);
  hrc = cu.cuMemHostGetDevicePointer_v2(&mapped_dev, wc, 0);
  line("extended.host.device_pointer_write_combined",
       result_text(hrc) + (mapped_dev == reinterpret_cast<CUdeviceptr>(wc) ? ", the host address"
                                                                           : ", another address"));
  void* pinned = nullptr;
  cu.cuMemAllocHost_v2(&pinned, 4096);
  host_flags = 99;
  hrc = cu.cuMemHostGetFlags(&host_flags, pinned);
  line("extended.host.get_flags_alloc_host", rc_value(hrc, host_flags));
  size = 0;
  hrc = cu.cuMemGetAddressRange_v2(&base, &size, reinterpret_cast<CUdeviceptr>(pinned) + 8);
  line("extended.host.address_range_alloc_host", rc_value(hrc, static_cast<long long>(size)));
  cu.cuMemFreeHost(pinned);
  cu.cuMemFreeHost(wc);
  cu.cuMemHostUnregister(plain.data());
  cu.cuMemHostUnregister(mapped.data());
}

void virtual_memory() {
  make_primary_current();
  const cuda_abi::CUmemAllocationProp prop = pinned_on_device0();
  std::size_t minimum = 0, recommended = 0;
  cu.cuMemGetAllocationGranularity(&minimum, &prop,
                                   as<cuda_abi::CUmemAllocationGranularity_flags>(0));
  cu.cuMemGetAllocationGranularity(&recommended, &prop,
                                   as<cuda_abi::CUmemAllocationGranularity_flags>(1));
  line("extended.vmm.granularity_minimum", std::to_string(minimum));
  line("extended.vmm.granularity_recommended", std::to_string(recommended));
  CUdeviceptr small = 0;
  CUresult rc = cu.cuMemAddressReserve(&small, 4096, 0, 0, 0);
  rc_line("extended.vmm.reserve_4096", rc);
  if (rc == CUDA_SUCCESS) cu.cuMemAddressFree(small, 4096);
  CUdeviceptr range = 0;
  cu.cuMemAddressReserve(&range, 8 * kMiB, 0, 0, 0);
  CUmemGenericAllocationHandle h1 = 0, h2 = 0;
  cu.cuMemCreate(&h1, 2 * kMiB, &prop, 0);
  cu.cuMemCreate(&h2, 2 * kMiB, &prop, 0);
  cu.cuMemMap(range, 2 * kMiB, 0, h1, 0);
  cu.cuMemMap(range + 2 * kMiB, 2 * kMiB, 0, h2, 0);
  int value = 3;
  rc_line("extended.vmm.copy_without_access", cu.cuMemcpyHtoD_v2(range, &value, sizeof value));
  rc_line("extended.vmm.address_free_with_mappings", cu.cuMemAddressFree(range, 8 * kMiB));
  rc_line("extended.vmm.unmap_part_of_a_mapping", cu.cuMemUnmap(range, kMiB));
  rc_line("extended.vmm.unmap_two_mappings_at_once", cu.cuMemUnmap(range, 4 * kMiB));
  cu.cuMemUnmap(range, 2 * kMiB);
  cu.cuMemUnmap(range + 2 * kMiB, 2 * kMiB);
  cu.cuMemRelease(h1);
  cu.cuMemRelease(h2);
  cu.cuMemAddressFree(range, 8 * kMiB);
  // Without a current context.
  cu.cuCtxSetCurrent(nullptr);
  CUdeviceptr no_ctx = 0;
  rc = cu.cuMemAddressReserve(&no_ctx, 2 * kMiB, 0, 0, 0);
  rc_line("extended.vmm.reserve_without_context", rc);
  if (rc == CUDA_SUCCESS) cu.cuMemAddressFree(no_ctx, 2 * kMiB);
  CUmemGenericAllocationHandle h3 = 0;
  rc = cu.cuMemCreate(&h3, 2 * kMiB, &prop, 0);
  rc_line("extended.vmm.create_without_context", rc);
  if (rc == CUDA_SUCCESS) cu.cuMemRelease(h3);
}

void pools() {
  make_primary_current();
  CUstream s = nullptr;
  cu.cuStreamCreate(&s, 0);
  cuda_abi::CUmemoryPool pool = nullptr;
  cu.cuDeviceGetDefaultMemPool(&pool, 0);
  auto attr = [&](int a) {
    unsigned long long v = 0;
    cu.cuMemPoolGetAttribute(pool, as<cuda_abi::CUmemPool_attribute>(a), &v);
    return std::to_string(v);
  };
  CUdeviceptr p = 0, q = 0;
  cu.cuMemAllocAsync(&p, 1024, s);
  line("extended.pool.after_1KiB.reserved_used", attr(5) + " " + attr(7));
  cu.cuMemAllocAsync(&q, 1000, s);
  line("extended.pool.after_second_1000B.reserved_used", attr(5) + " " + attr(7));
  line("extended.pool.second_shares_reservation",
       q > p && q < p + 2 * kMiB ? "yes (offset " + std::to_string(q - p) + ")" : "no");
  cu.cuMemFreeAsync(p, s);
  cu.cuMemFreeAsync(q, s);
  cu.cuStreamSynchronize(s);
  line("extended.pool.after_free_and_sync.reserved_used", attr(5) + " " + attr(7));
  CUdeviceptr z = 0;
  rc_line("extended.pool.alloc_async_size_0", cu.cuMemAllocAsync(&z, 0, s));
  rc_line("extended.pool.destroy_default", cu.cuMemPoolDestroy(pool));
  cu.cuStreamDestroy_v2(s);
}

// ---- contexts and result texts -------------------------------------------------------

void contexts() {
  const CUcontext primary = make_primary_current();
  unsigned int version = 0;
  CUresult rc = cu.cuCtxGetApiVersion(primary, &version);
  line("extended.ctx.api_version", rc_value(rc, version));
  for (int limit = 0; limit <= 9; ++limit) {
    std::size_t v = 0;
    rc = cu.cuCtxGetLimit(&v, as<cuda_abi::CUlimit>(limit));
    line("extended.ctx.limit." + std::to_string(limit), rc_value(rc, static_cast<long long>(v)));
  }
  rc_line("extended.ctx.set_limit_stack_1000", cu.cuCtxSetLimit(as<cuda_abi::CUlimit>(0), 1000));
  std::size_t stack = 0;
  cu.cuCtxGetLimit(&stack, as<cuda_abi::CUlimit>(0));
  line("extended.ctx.limit_stack_after_set_1000", std::to_string(stack));
  auto shared = static_cast<cuda_abi::CUsharedconfig>(-1);
  rc = cu.cuCtxGetSharedMemConfig(&shared);
  line("extended.ctx.shared_mem_config", rc_value(rc, static_cast<int>(shared)));
  // The CUDA 13 context entry points: exported, and what the resolver hands out.
  for (const char* symbol : {"cuCtxGetDevice_v2", "cuCtxSynchronize_v2", "cuCtxCreate_v4"}) {
    line(std::string("extended.ctx.exports.") + symbol,
         dlsym(cu.handle, symbol) != nullptr ? "yes" : "no");
  }
  if (cu.cuGetProcAddress_v2 != nullptr) {
    for (const char* name : {"cuCtxGetDevice", "cuCtxSynchronize"}) {
      for (int version : {12000, 12080, 13000}) {
        void* fn = nullptr;
        cuda_abi::CUdriverProcAddressQueryResult status{};
        rc = cu.cuGetProcAddress_v2(name, &fn, version, 0, &status);
        const void* plain = dlsym(cu.handle, name);
        const void* v2 = dlsym(cu.handle, (std::string(name) + "_v2").c_str());
        line(std::string("extended.ctx.proc_address.") + name + "." + std::to_string(version),
             result_text(rc) + (fn == nullptr ? ", null"
                                : fn == plain ? ", the plain export"
                                : fn == v2    ? ", the _v2 export"
                                              : ", another function"));
      }
    }
  }
}

void result_texts() {
  cu.cuInit(0);
  for (int code = 0; code <= 1000; ++code) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (cu.cuGetErrorName(as<CUresult>(code), &name) != CUDA_SUCCESS) continue;
    cu.cuGetErrorString(as<CUresult>(code), &text);
    line("extended.text." + std::to_string(code), std::string(name != nullptr ? name : "(null)") +
                                                      ": " + (text != nullptr ? text : "(null)"));
  }
}

// ---- capture ------------------------------------------------------------------------

constexpr int kGlobal = 0, kRelaxed = 2;

void capture() {
  make_primary_current();
  CUstream s = nullptr, s2 = nullptr, s3 = nullptr;
  cu.cuStreamCreate(&s, 1);
  cu.cuStreamCreate(&s2, 1);
  cu.cuStreamCreate(&s3, 1);
  CUevent e = nullptr, never = nullptr;
  cu.cuEventCreate(&e, 0);
  cu.cuEventCreate(&never, 0);
  auto begin = [&](CUstream on, int mode) {
    return cu.cuStreamBeginCapture_v2(on, as<cuda_abi::CUstreamCaptureMode>(mode));
  };

  // A captured event queried: 900, and is the capture invalidated?
  begin(s, kRelaxed);
  cu.cuEventRecord(e, s);
  rc_line("extended.capture.query_captured_event", cu.cuEventQuery(e));
  line("extended.capture.query_captured_event.status", capture_status(s));
  float ms = 0;
  rc_line("extended.capture.elapsed_captured_event", cu.cuEventElapsedTime_v2(&ms, e, e));
  end_capture("extended.capture.query_captured_event", s);

  // End with a NULL graph pointer on an active origin.
  begin(s, kRelaxed);
  rc_line("extended.capture.end_null_graph", cu.cuStreamEndCapture(s, nullptr));
  line("extended.capture.end_null_graph.status", capture_status(s));
  end_capture("extended.capture.end_null_graph_cleanup", s);

  // A capturing stream waits on a never-recorded event.
  begin(s, kRelaxed);
  rc_line("extended.capture.wait_never_recorded", cu.cuStreamWaitEvent(s, never, 0));
  line("extended.capture.wait_never_recorded.status", capture_status(s));
  end_capture("extended.capture.wait_never_recorded", s);

  // Capture info of a member of an invalidated capture; a stream-ordered call on it.
  begin(s, kRelaxed);
  cu.cuEventRecord(e, s);
  cu.cuStreamWaitEvent(s2, e, 0);
  cu.cuStreamSynchronize(s);  // invalidates
  auto status = static_cast<cuda_abi::CUstreamCaptureStatus>(-1);
  cuda_abi::cuuint64_t id = 0;
  CUresult rc = cu.cuStreamGetCaptureInfo_v3(s2, &status, &id, nullptr, nullptr, nullptr, nullptr);
  line("extended.capture.info_of_invalidated_member",
       result_text(rc) + " status " + std::to_string(static_cast<int>(status)));
  rc_line("extended.capture.record_on_invalidated_member", cu.cuEventRecord(never, s2));
  end_capture("extended.capture.invalidated_member_s2", s2);
  end_capture("extended.capture.invalidated_member_s", s);
  cu.cuEventDestroy_v2(never);
  cu.cuEventCreate(&never, 0);

  // Destroying a member stream during a capture.
  CUstream member = nullptr;
  cu.cuStreamCreate(&member, 1);
  begin(s, kRelaxed);
  cu.cuEventRecord(e, s);
  cu.cuStreamWaitEvent(member, e, 0);
  CUevent back = nullptr;
  cu.cuEventCreate(&back, 0);
  rc_line("extended.capture.destroy_member_stream", cu.cuStreamDestroy_v2(member));
  line("extended.capture.destroy_member_stream.origin_status", capture_status(s));
  end_capture("extended.capture.destroy_member_stream", s);

  // The graph being captured into: instantiate it, launch a graph into the capture.
  begin(s, kRelaxed);
  CUgraph capturing = nullptr;
  cu.cuStreamGetCaptureInfo_v3(s, &status, &id, &capturing, nullptr, nullptr, nullptr);
  CUgraphExec exec = nullptr;
  rc_line("extended.capture.instantiate_graph_being_captured",
          cu.cuGraphInstantiateWithFlags(&exec, capturing, 0));
  if (exec != nullptr) cu.cuGraphExecDestroy(exec);
  line("extended.capture.instantiate_graph_being_captured.status", capture_status(s));
  end_capture("extended.capture.instantiate_graph_being_captured", s);
  // A real graph to launch into a capturing stream.
  begin(s3, kRelaxed);
  block(s3);
  CUgraph g = nullptr;
  cu.cuStreamEndCapture(s3, &g);
  CUgraphExec ge = nullptr;
  if (g != nullptr && cu.cuGraphInstantiateWithFlags(&ge, g, 0) == CUDA_SUCCESS) {
    begin(s, kRelaxed);
    rc_line("extended.capture.graph_launch_into_capture", cu.cuGraphLaunch(ge, s));
    line("extended.capture.graph_launch_into_capture.status", capture_status(s));
    end_capture("extended.capture.graph_launch_into_capture", s);
    cu.cuGraphExecDestroy(ge);
  }
  if (g != nullptr) cu.cuGraphDestroy(g);

  // Two captures merged by a wait.
  begin(s, kRelaxed);
  begin(s2, kRelaxed);
  cu.cuEventRecord(e, s);
  rc_line("extended.capture.merge_two_captures", cu.cuStreamWaitEvent(s2, e, 0));
  line("extended.capture.merge_two_captures.status", capture_status(s) + " " + capture_status(s2));
  end_capture("extended.capture.merge_s", s);
  end_capture("extended.capture.merge_s2", s2);

  // The legacy stream waits on a captured event while only non-blocking streams capture.
  begin(s, kRelaxed);
  cu.cuEventRecord(e, s);
  rc_line("extended.capture.legacy_waits_on_captured_event", cu.cuStreamWaitEvent(nullptr, e, 0));
  line("extended.capture.legacy_waits_on_captured_event.status", capture_status(s));
  end_capture("extended.capture.legacy_waits_on_captured_event", s);

  // End of a global capture from another thread; is it invalidated?
  begin(s, kGlobal);
  std::atomic<int> other_rc{-1};
  std::thread([&] {
    cu.cuCtxSetCurrent(nullptr);
    CUcontext primary = nullptr;
    cu.cuDevicePrimaryCtxRetain(&primary, 0);
    cu.cuCtxSetCurrent(primary);
    CUgraph graph = nullptr;
    other_rc = cu.cuStreamEndCapture(s, &graph);
    if (graph != nullptr) cu.cuGraphDestroy(graph);
  }).join();
  rc_line("extended.capture.end_global_from_other_thread", other_rc.load());
  line("extended.capture.end_global_from_other_thread.status", capture_status(s));
  end_capture("extended.capture.end_global_from_other_thread", s);

  // cuCtxSynchronize from a relaxed thread next to a capture on a blocking stream.
  CUstream blocking = nullptr;
  cu.cuStreamCreate(&blocking, 0);
  begin(blocking, kGlobal);
  std::atomic<int> sync_rc{-1};
  std::thread([&] {
    CUcontext primary = nullptr;
    cu.cuDevicePrimaryCtxRetain(&primary, 0);
    cu.cuCtxSetCurrent(primary);
    auto mode = as<cuda_abi::CUstreamCaptureMode>(kRelaxed);
    cu.cuThreadExchangeStreamCaptureMode(&mode);
    sync_rc = cu.cuCtxSynchronize();
  }).join();
  rc_line("extended.capture.ctx_synchronize_from_relaxed_thread", sync_rc.load());
  line("extended.capture.ctx_synchronize_from_relaxed_thread.status", capture_status(blocking));
  end_capture("extended.capture.ctx_synchronize_from_relaxed_thread", blocking);
  cu.cuStreamDestroy_v2(blocking);

  for (CUevent ev : {e, never, back}) cu.cuEventDestroy_v2(ev);
  for (CUstream st : {s, s2, s3}) cu.cuStreamDestroy_v2(st);
}

void graph_handles() {
  risky("extended.graph.destroy_null", true, [] { return cu.cuGraphDestroy(nullptr); });
  risky("extended.graph.exec_destroy_null", true, [] { return cu.cuGraphExecDestroy(nullptr); });
  risky("extended.graph.launch_null", true, [] { return cu.cuGraphLaunch(nullptr, nullptr); });
  risky("extended.graph.instantiate_null", true, [] {
    CUgraphExec exec = nullptr;
    return cu.cuGraphInstantiateWithFlags(&exec, nullptr, 0);
  });
  risky("extended.capture.destroy_graph_being_captured", true, [] {
    CUstream s = nullptr;
    cu.cuStreamCreate(&s, 1);
    cu.cuStreamBeginCapture_v2(s, as<cuda_abi::CUstreamCaptureMode>(kRelaxed));
    auto status = static_cast<cuda_abi::CUstreamCaptureStatus>(-1);
    CUgraph capturing = nullptr;
    cu.cuStreamGetCaptureInfo_v3(s, &status, nullptr, &capturing, nullptr, nullptr, nullptr);
    return cu.cuGraphDestroy(capturing);
  });
}

}  // namespace

void probe_extended() {
  const std::pair<const char*, void (*)()> subsections[] = {
      {"extended.streams", streams_and_events},
      {"extended.copies", synchronous_copies},
      {"extended.attributes", attributes_and_peers},
      {"extended.memory", memory_accounting},
      {"extended.vmm", virtual_memory},
      {"extended.pools", pools},
      {"extended.contexts", contexts},
      {"extended.texts", result_texts},
      {"extended.capture", capture},
  };
  for (const auto& [name, body] : subsections) in_child(name, body);
  host_memory_errors();
  graph_handles();
}

}  // namespace accel::hardware
