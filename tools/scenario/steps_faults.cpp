// Faults, counters and raw driver memory through the simulated hardware's control API
// (mockdev/control.h), plus `check` (a step that only carries expectations) and `sleep`.
//
// Driver memory: `driver_alloc` / `driver_free` call the driver file the runtime loaded
// (ACCEL_CUDA_DRIVER) directly, on the step's thread and its current context, bypassing the
// runtime's caching allocator: they are for driver-level scenarios (no step calls the
// caching allocator).
#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "accel/error.h"
#include "accel_abi/cuda_driver.h"
#include "mockdev/control.h"
#include "step_registry.h"

namespace accel::scenario {

namespace abi = accel::cuda_abi;

void* driver_symbol(const char* name) {
  const char* path = std::getenv("ACCEL_CUDA_DRIVER");
  void* handle = dlopen(path != nullptr ? path : "libcuda.so.1", RTLD_NOW | RTLD_NODELETE);
  if (handle == nullptr) throw UserError(std::string("cannot open the driver: ") + dlerror());
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) throw UserError(std::string("the driver has no ") + name);
  return symbol;
}

// A failed driver call as an accel::Error of kind kDriver (out_of_memory for an OOM),
// named as the runtime names driver errors.
[[noreturn]] void driver_error(const char* call, int code) {
  const char* name = abi::result_name(code);
  const std::string text = std::string(call) + ": CUDA error: " + (name ? name : "unknown") +
                           " (code " + std::to_string(code) + ")";
  ErrorDetail detail{std::nullopt, code, name ? name : ""};
  if (code == abi::CUDA_ERROR_OUT_OF_MEMORY) throw OutOfMemoryError(text, detail);
  throw Error(ErrorKind::kDriver, text, detail);
}

namespace {

using nlohmann::json;

const StepRegistrar registrar({
    {"fail_call",
     "{entry: NAME, nth: N (default 1; 0 = every call), code: CODE}: the nth call of the "
     "entry point from now fails with code (one of the entry point's API's: CUDA, NVML, ZE)",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{entry, nth, code}");
       a.reader.check_keys(a.node, a.path, {"entry", "nth", "code"});
       if (!a.node["entry"] || !a.node["code"]) {
         a.reader.fail(a.node, a.path, "entry and code (both required)", "{...}");
       }
       const std::string entry = a.reader.entry_point(a.node["entry"], Reader::join(a.path, "entry"));
       const std::uint64_t nth =
           a.node["nth"] ? static_cast<std::uint64_t>(
                               a.reader.integer(a.node["nth"], Reader::join(a.path, "nth"), 0, INT64_MAX))
                         : 1;
       // The code is read as the entry point's own API writes its codes (a zeMemAllocDevice
       // fault takes ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY), as a machine file's call fault.
       const int code = a.reader.result_code(a.node["code"], Reader::join(a.path, "code"),
                                             a.reader.entry_point_api(entry));
       return [entry, nth, code](StepEnv&) {
         mockdev::control::fail_call(entry, nth, code);
         return json(nullptr);
       };
     }},
    {"sticky_error",
     "{device: PHYSICAL_INDEX, code: CODE}: every later call touching the device fails", false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{device, code}");
       a.reader.check_keys(a.node, a.path, {"device", "code"});
       if (!a.node["device"] || !a.node["code"]) {
         a.reader.fail(a.node, a.path, "device and code (both required)", "{...}");
       }
       // Checked against the scenario's machine now: an index it does not have (or one of
       // a device CUDA does not serve) would be a fault that can never fire.
       const int device =
           a.reader.physical_device(a.node["device"], Reader::join(a.path, "device"), true);
       const int code = a.reader.cuda_code(a.node["code"], Reader::join(a.path, "code"));
       return [device, code](StepEnv&) {
         mockdev::control::set_sticky_error(device, code);
         return json(nullptr);
       };
     }},
    {"clear_faults", "no argument; removes every scripted and machine-file fault", false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         mockdev::control::clear_faults();
         return json(nullptr);
       };
     }},
    {"call_count", "an entry point; returns its calls since the run started", true,
     [](const StepArgs& a) -> Action {
       const std::string entry = a.reader.entry_point(a.node, a.path);
       return [entry](StepEnv&) { return json(mockdev::control::call_count(entry)); };
     }},
    {"check", "no argument; does nothing (a place for expectations)", false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(nullptr); };
     }},
    {"sleep", "milliseconds (0 to 3600000); blocks the thread", false,
     [](const StepArgs& a) -> Action {
       const auto ms = a.reader.integer(a.node, a.path, 0, 3600000);
       return [ms](StepEnv&) {
         std::this_thread::sleep_for(std::chrono::milliseconds(ms));
         return json(nullptr);
       };
     }},
    {"driver_alloc",
     "{name: NAME, size: SIZE}: cuMemAlloc on this thread's current context; the address is "
     "kept under NAME",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{name, size}");
       a.reader.check_keys(a.node, a.path, {"name", "size"});
       if (!a.node["name"] || !a.node["size"]) {
         a.reader.fail(a.node, a.path, "name and size (both required)", "{...}");
       }
       const std::string name =
           a.reader.name(a.node["name"], Reader::join(a.path, "name"), "a name");
       const std::uint64_t size = a.reader.size(a.node["size"], Reader::join(a.path, "size"));
       return [name, size](StepEnv& env) -> json {
         auto alloc = reinterpret_cast<abi::CUresult (*)(abi::CUdeviceptr*, std::size_t)>(
             driver_symbol("cuMemAlloc_v2"));
         abi::CUdeviceptr ptr = 0;
         const abi::CUresult r = alloc(&ptr, size);
         if (r != abi::CUDA_SUCCESS) driver_error("cuMemAlloc", r);
         env.allocations()[name] = ptr;
         return nullptr;
       };
     }},
    {"driver_free", "a NAME given to driver_alloc; cuMemFree on this thread", false,
     [](const StepArgs& a) -> Action {
       const std::string name = a.reader.name(a.node, a.path, "an allocation name");
       return [name](StepEnv& env) -> json {
         auto it = env.allocations().find(name);
         if (it == env.allocations().end()) throw UserError("driver_free: no allocation '" + name + "'");
         auto free = reinterpret_cast<abi::CUresult (*)(abi::CUdeviceptr)>(driver_symbol("cuMemFree_v2"));
         const abi::CUresult r = free(it->second);
         if (r != abi::CUDA_SUCCESS) driver_error("cuMemFree", r);
         env.allocations().erase(it);
         return nullptr;
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
