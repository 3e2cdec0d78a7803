#pragma once
// accel::CallSite: where a public call was made, captured at the caller like
// std::source_location, which clang 14 cannot provide with libstdc++ 12; the compilers'
// builtins are used directly instead (g++ and clang both evaluate them at the outermost
// call site when they are default arguments). Used by lazy_call() (the origin of a queued
// call) and by the memory API (the host call sites of the memory history).

namespace accel {

struct CallSite {
  const char* file = "";
  int line = 0;
  const char* function = "";

  static constexpr CallSite current(const char* file = __builtin_FILE(),
                                    int line = __builtin_LINE(),
                                    const char* function = __builtin_FUNCTION()) noexcept {
    return CallSite{file, line, function};
  }
};

}  // namespace accel
