#pragma once
// The Level Zero adapter's own state (the mock Level Zero *driver* the real loader loads
// through ZE_ENABLE_ALT_DRIVERS): zeInit and its pid, the one driver object, the device
// objects after ZE_FLAT_DEVICE_HIERARCHY and ZE_AFFINITY_MASK, the Sysman route
// in use and the registry of live handles every entry point checks before it touches an
// object (an unknown pointer is never dereferenced). Devices, memory, queues, the clock
// and faults are the engine core's (core/engine.h, core/memory.h, core/timeline.h).
//
// Which physical devices: the machine's Intel devices (DeviceSpec::vendor), in machine-file
// order; NVIDIA devices never appear here. A tile is a sub-device; its memory is the card's
// divided by the tile count (capacity per tile and per card). What each tile holds is
// tile_used (Note [Memory per tile]).
//
// Ownership: one ZeState, never destroyed (Note [Leaky state] in core/engine.h). Handle
// objects (devices, contexts, lists, pools, events, ...) are never freed either: a
// destroyed handle leaves the registry and is then rejected, never dereferenced. It starts
// afresh whenever the core installs a machine (core::Engine::generation).
// Thread safety: reachable only with the engine lock held (Note [Engine lock]).
//
// Files: ze_state.cpp (state, registry, call wrapper, pid gate), ze_driver.cpp (zeInit,
// drivers, extension properties, API version), ze_devices.cpp (hierarchy, affinity mask,
// device/sub-device/root queries, properties, global timestamps), ze_sysman.cpp (both Sysman
// routes, memory modules), ze_context.cpp, ze_memory.cpp, ze_virtual_memory.cpp,
// ze_command_lists.cpp, ze_events.cpp (objects over the engine), ze_facade.cpp (the
// exported *GetProcAddrTable getters, built into libze_mock.so).

#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "accel_abi/level_zero_entry_points.h"
#include "core/engine_lock.h"

// The opaque handle types, defined by the mock (the headers only declare them).
struct _ze_driver_handle_t {
  int magic_free = 0;  // never read: handles are checked through the registry only
};

struct _ze_device_handle_t {
  int card = 0;          // index into MachineSpec::devices (an Intel device)
  int card_ordinal = 0;  // its position among the Intel devices (Sysman order)
  int tile = -1;         // tile index, or -1 for a card (root device)
  // How zeDeviceGet / zeDeviceGetSubDevices reach it (per hierarchy).
  bool reported_as_subdevice = false;            // ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE on this handle
  std::vector<_ze_device_handle_t*> subdevices;  // what zeDeviceGetSubDevices returns
  _ze_device_handle_t* root = nullptr;           // what zeDeviceGetRootDevice returns
  // How many of the card's tiles this handle spans: 1 for a tile, the visible tiles for a
  // card (all of them unless ZE_AFFINITY_MASK named some: `1.1,1.0`), 0 for an untiled
  // card. Memory and slices scale with it (totalSize, numSlices).
  int tile_span = 0;
  bool sysman_card = false;  // a card handed out by zesDeviceGet (the zesInit route)
};

// A Sysman memory module (zesDeviceEnumMemoryModules): one per tile, or one
// for an untiled card.
struct _zes_mem_handle_t {
  int card = 0;   // index into MachineSpec::devices
  int tile = -1;  // tile index, or -1 for the module of an untiled card
};

namespace mockdev::level_zero {

using ZeDevice = _ze_device_handle_t;

enum class SysmanRoute { kNone, kLegacy, kZesInit };  // mutually exclusive, as Intel's

struct ZeState {
  std::uint64_t generation = 0;                 // the core machine generation this state belongs to
  bool initialized = false;                     // zeInit succeeded in init_pid
  ze_result_t init_result = ZE_RESULT_SUCCESS;  // the first zeInit's status (call_once)
  bool init_attempted = false;
  pid_t init_pid = 0;
  std::string hierarchy;  // "COMPOSITE", "FLAT" or "COMBINED": what applied at zeInit
  _ze_driver_handle_t* driver = nullptr;  // the one driver (nullptr: no visible device)
  std::vector<ZeDevice*> devices;         // what zeDeviceGet returns, in order
  std::vector<ZeDevice*> cards;           // every Intel card (Sysman), unfiltered
  std::vector<ZeDevice*> handles;         // every core device object of this init (any level)
  std::unordered_set<const void*> live;   // every live handle of any kind
  SysmanRoute sysman = SysmanRoute::kNone;
  bool sysman_initialized = false;  // zesInit succeeded
  bool sysman_attempted = false;    // zesInit ran (its result is cached)
  ze_result_t sysman_result = ZE_RESULT_SUCCESS;
  _ze_driver_handle_t* sysman_driver = nullptr;  // what zesDriverGet returns (zesInit route)
  // Why the last zeInit failed, in words (mask or hierarchy text, fault, no device), for
  // tests and `accel info` through the control API; empty after a success.
  std::string init_failure;
  // Memory modules handed out, by (device handle) so repeated enumerations return the
  // same handles.
  std::vector<std::pair<const ZeDevice*, std::vector<_zes_mem_handle_t*>>> memory_modules;
  // (card, tile) -> the bytes of the device allocations made on that tile (Note [Memory per
  // tile]); kept by ze_memory.cpp, read by Sysman.
  std::map<std::pair<int, int>, std::uint64_t> tile_used;
};

// Note [Memory per tile]
// The engine core accounts device memory per card. A device allocation made on a tile handle
// (FLAT devices, COMPOSITE sub-devices) is also charged to that tile: zeMemAllocDevice refuses
// it when the tile is full, and Sysman's module of that tile counts it. What the card holds
// beyond its tiles' charges (allocations on the root device, anything else the core accounts)
// is spread evenly over the tiles [inferred: a root-device allocation under implicit scaling
// is split across the tiles (Intel's compute-runtime, MULTIPLE_IPC_HANDLES.md)]. So a tile's
// module reports size = card capacity / tiles and free = size - (its charge + its share).
std::uint64_t tile_used_bytes(int card, int tile) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The state for the installed machine (rebuilt when the generation changed).
ZeState& ze_state() MOCKDEV_REQUIRES(core::g_engine_mutex);

// True in a child forked after its parent initialised the driver (the pid gate).
bool in_forked_child() MOCKDEV_REQUIRES(core::g_engine_mutex);
// True when zeInit has succeeded in this very process (the row's `initialized` hook,
// registration.cpp; control::driver_initialized(Api::kLevelZero)).
bool driver_ready() MOCKDEV_REQUIRES(core::g_engine_mutex);

// Registry: whether `handle` is a live handle this machine handed out (never dereferences).
bool is_live(const void* handle) MOCKDEV_REQUIRES(core::g_engine_mutex);
void register_handle(const void* handle) MOCKDEV_REQUIRES(core::g_engine_mutex);
void unregister_handle(const void* handle) MOCKDEV_REQUIRES(core::g_engine_mutex);
// A live device handle, or nullptr.
ZeDevice* find_device(ze_device_handle_t handle) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Memory of a device handle: a tile has the card's memory / tiles, a card all of it.
std::uint64_t device_memory_bytes(const ZeDevice& device) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Device timestamp ticks at virtual time `virtual_ns`: the machine's
// start tick plus elapsed ns / timer_resolution_ns, masked to `valid_bits` (32, 36 or 64)
// so wrap-around happens where the machine file puts it. Events use the same conversion.
std::uint64_t device_timestamp_ticks(const ZeDevice& device, std::uint64_t virtual_ns,
                                     int valid_bits) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Note [Level Zero call order]
// Every entry point runs its body through call(): take the engine lock, rebuild the state if
// the machine changed, count the call (core::count_call with the entry point's name, an
// EntryPoint of the served list, which fires scheduled call faults with their ze code), apply
// the pid gate (in a forked child every core call, zeInit included, returns
// ZE_RESULT_ERROR_UNINITIALIZED unless the machine's child policy is reinit; Sysman calls stay
// allowed), and, unless the entry point is one that works before init (`needs_init` false:
// zeInit, the zes init route), require a successful zeInit (UNINITIALIZED otherwise). Then the
// body runs with the lock held; no exception crosses the ABI (anything thrown becomes
// ZE_RESULT_ERROR_UNKNOWN, std::bad_alloc ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY).
// A body's lambda runs with the engine lock held: `call(name, kind, [&]() MOCKDEV_ZE_LOCKED
// { ... })` lets clang's -Wthread-safety check it.
#define MOCKDEV_ZE_LOCKED MOCKDEV_REQUIRES(::mockdev::core::g_engine_mutex)
enum class CallKind { kCore, kCoreBeforeInit, kSysman, kSysmanBeforeInit };

// The name an entry point counts its calls under. Only a name of ACCEL_ZE_SERVED_TABLE
// compiles (the constructor is consteval), so the one list of Level Zero entry points
// (accel_abi/level_zero_entry_points.h) is also the only source of the names the driver
// counts, and a fault the reader accepts always has a call to fire on.
class EntryPoint {
 public:
  // Implicit, so a body's call reads call("zeInit", ...).
  consteval EntryPoint(const char* name) : name_(name) {  // NOLINT(google-explicit-constructor)
    if (!served(name_)) throw "not an entry point of ACCEL_ZE_SERVED_TABLE";
  }
  constexpr const char* c_str() const { return name_; }
  constexpr std::string_view view() const { return name_; }

 private:
  static constexpr bool served(std::string_view name) {
#define MOCKDEV_ZE_IS(entry) \
  if (name == #entry) return true;
    ACCEL_ZE_SERVED_TABLE(MOCKDEV_ZE_IS)
#undef MOCKDEV_ZE_IS
    return false;
  }
  const char* name_;
};

ze_result_t call(EntryPoint entry_point, CallKind kind, const std::function<ze_result_t()>& body);

// Note [Last error description]
// zeDriverGetLastErrorDescription (spec 1.6) answers the calling thread's last error: call()
// records "<entry point> returned <code name> (0x<code>)" whenever a call answers anything but
// SUCCESS or NOT_READY, and keeps it until the thread's next such call; "" before the first.
// [inferred: the specification says only "a string describing the last error code returned by the
// driver in the current thread"; Intel's driver keeps its own wording.]
// The string stays valid until the thread's next failing call.
const char* last_error_description();

}  // namespace mockdev::level_zero
