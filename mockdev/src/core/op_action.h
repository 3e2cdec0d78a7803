#pragma once
// What an operation does when it completes in virtual time: a small closed set of actions
// (no std::function: the op path stays allocation-light, Note [Op path cost] in
// timeline.h). Byte moves run with the engine lock held; a host call runs with it released
// (Note [Host functions] in timeline.h).

#include <cstdint>
#include <memory>

namespace mockdev::core {

enum class ActionKind : std::uint8_t {
  kNone,            // ordering only (event record/wait, barriers, opaque kernels)
  kFill,            // device [dst, dst + bytes) = repeated `pattern` of `pattern_size` bytes
  kCopyDevice,      // device src -> device dst
  kHostToDevice,    // host pointer src (read at completion: pinned memory) -> device dst
  kStagedToDevice,  // `staged` (the source as it was at the call) -> device dst
  kDeviceToHost,    // device src -> host pointer dst (written at completion)
  kHostCall,        // call(args...) with the engine lock released
  kLockedCall,      // call(args...) with the engine lock held (e.g. a registered kernel body)
};

using HostCallFn = void (*)(std::uintptr_t, std::uintptr_t, std::uintptr_t);

struct OpAction {
  ActionKind kind = ActionKind::kNone;
  std::uint8_t pattern_size = 1;
  std::uint32_t pattern = 0;
  std::uint64_t dst = 0;  // device address or host pointer value
  std::uint64_t src = 0;
  std::uint64_t bytes = 0;
  std::unique_ptr<std::byte[]> staged;
  HostCallFn call = nullptr;
  std::uintptr_t args[3] = {0, 0, 0};
  std::shared_ptr<void> keep;  // keeps what `args` point at alive until the op ran
};

}  // namespace mockdev::core
