#pragma once
// What every exported C entry point of a mockdev facade shares, whatever the vendor API.
//
// A facade function is the C ABI boundary: it must never let an exception escape into the
// caller (the runtime, or any program that loaded the "driver"). Each body runs inside
// guarded<code>(), which turns any exception into the vendor's catch-all error code.
// Visibility: facades are built with hidden visibility and a generated version script
// (facade/export_map.cpp); MOCKDEV_EXPORT marks the vendor symbols that must be exported.

#include <utility>

#define MOCKDEV_EXPORT extern "C" __attribute__((visibility("default")))

namespace mockdev::facade {

template <auto kOnException, typename F>
decltype(kOnException) guarded(F&& body) noexcept {
  try {
    return std::forward<F>(body)();
  } catch (...) {
    return kOnException;
  }
}

}  // namespace mockdev::facade
