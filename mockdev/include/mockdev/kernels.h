#pragma once
// Kernels for the simulated GPU, for tests (control API).
//
// The mock cannot run GPU code, so a test gives it host code instead: it registers a named
// kernel (a body over device memory, the byte ranges one launch reads and writes, computed
// from the launch's arguments, and optionally a duration), and a client launches it through
// the ordinary driver calls: cuModuleLoadData, cuModuleGetFunction, cuLaunchKernel. The
// launch is an operation of its stream in virtual time, like a copy: the body runs when the
// operation completes, and the race detector sees its declared ranges. A kernel that a
// module declares but nobody registered runs as an opaque, timed operation with unknown
// accesses (the race detector reports it when it is unordered with other work on its
// device). Kernel names come from the module's image or a registration: docs/decisions/
// 061-kernels-are-registered-host-code.md, 063-064 and 204-module-images-are-read.md. A
// registration whose parameter sizes contradict the image's is refused at launch.
//
// Registrations belong to the process, not to the machine: they survive control::reset, as
// a program's kernels survive a GPU reset. Thread-safe (each call takes the engine lock);
// never call these, or any driver entry point, from inside a kernel body (the body runs
// with the engine lock held).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mockdev::kernels {

// A device byte range [begin, begin + bytes).
struct Range {
  std::uint64_t begin = 0;
  std::uint64_t bytes = 0;
};

// One launch as the body and the access function see it.
struct Launch {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared_bytes = 0;
  std::vector<std::vector<std::byte>> args;  // each parameter's bytes, copied at launch

  // Parameter `i` as a T (sizeof(T) must equal its declared size). Throws std::out_of_range.
  template <class T>
  T arg(std::size_t i) const {
    if (i >= args.size() || args[i].size() != sizeof(T)) {
      throw std::out_of_range("mockdev::kernels::Launch::arg: no parameter " + std::to_string(i) +
                              " of " + std::to_string(sizeof(T)) + " bytes");
    }
    T value;
    std::memcpy(&value, args[i].data(), sizeof(T));
    return value;
  }
};

// Device memory as a body sees it: reads and writes go to the simulated device's bytes. A
// range outside every live allocation is ignored with one line on stderr (a real GPU would
// fault).
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  virtual void read(std::uint64_t address, void* dst, std::uint64_t bytes) = 0;
  virtual void write(std::uint64_t address, const void* src, std::uint64_t bytes) = 0;
  template <class T>
  T load(std::uint64_t address) {
    T value{};
    read(address, &value, sizeof(T));
    return value;
  }
  template <class T>
  void store(std::uint64_t address, const T& value) {
    write(address, &value, sizeof(T));
  }
};

struct Accesses {
  std::vector<Range> reads;
  std::vector<Range> writes;
};

struct KernelSpec {
  std::string name;  // the entry name cuModuleGetFunction looks up
  // The size in bytes of each parameter, in order: how cuLaunchKernel reads kernelParams.
  std::vector<std::size_t> param_sizes;
  // Runs when the launch completes in virtual time; may be empty (no effect on memory).
  std::function<void(const Launch&, DeviceMemory&)> body;
  // The ranges one launch reads and writes; empty: none. Each must lie inside one live
  // allocation, or the launch fails with CUDA_ERROR_INVALID_VALUE.
  std::function<Accesses(const Launch&)> accesses;
  std::uint64_t duration_ns = 0;  // 0: the machine's streams.timing kernel duration
};

// Registers `spec`, replacing a kernel of the same name. Throws std::invalid_argument for an
// empty name or a parameter of size 0.
void register_kernel(KernelSpec spec);
// Removes a registration; false when there was none. Launches already enqueued keep it.
bool unregister_kernel(std::string_view name);
void clear_kernels();
std::vector<std::string> registered_kernels();  // sorted

}  // namespace mockdev::kernels
