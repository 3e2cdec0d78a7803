#pragma once
// The type map the runtime ABI checks share (cudart_abi_check.cpp,
// cudart_host_runtime_check.cpp, cudart_nvcc_abi_check.cu): to_toolkit_t<T> spells a type
// of the project's declarations with the toolkit's types, through pointers, const, arrays
// and function pointers, so a row's function type can be compared with the toolkit's
// declaration. A check maps each of its leaf types with ACCEL_ABI_MAP_TYPE(ours, theirs)
// after including this header (and the toolkit's). Header-only; nothing here runs.

#include <cstddef>

namespace accel::abi_check {

template <class T>
struct ToToolkit {
  using type = T;
};
template <class T>
using to_toolkit_t = typename ToToolkit<T>::type;
template <class T>
struct ToToolkit<T*> {
  using type = to_toolkit_t<T>*;
};
template <class T>
struct ToToolkit<const T> {
  using type = const to_toolkit_t<T>;
};
template <class T, std::size_t N>
struct ToToolkit<T[N]> {
  using type = to_toolkit_t<T>[N];
};
template <class R, class... A>
struct ToToolkit<R (*)(A...)> {
  using type = to_toolkit_t<R> (*)(to_toolkit_t<A>...);
};

}  // namespace accel::abi_check

// Maps the project's type `ours` to the toolkit's `theirs`; use at namespace scope.
#define ACCEL_ABI_MAP_TYPE(ours, theirs)     \
  template <>                                \
  struct accel::abi_check::ToToolkit<ours> { \
    using type = theirs;                     \
  };
