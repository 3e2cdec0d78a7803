// The exported entry points of libcudart.so.13, generated from ACCEL_CUDART_TABLE and
// ACCEL_CUDART_PER_THREAD_TABLE (accel_abi/cuda_runtime.h): one extern "C" wrapper per row
// and per per-thread variant. The export list (the linker version script) is generated from
// the same rows (export_map.cpp), so this file never changes when a row is added.
//
// Note [Entry call order]
// Every wrapper, in this order: (1) unless the row is kDriverFree, answers the error the
// runtime is stuck with (a failed initialisation, a forked child, a sticky error; errors.h);
// (2) a kNotImplemented row answers not_implemented(name); (3) calls impl::<name> (api.h),
// for a per-thread variant with PerThreadDefaultStream in force; (4) records a failing
// result as the thread's last error, unless the row is kKeepsLastError (Note [Last error]).
// Every exception is caught: none crosses the C ABI (std::bad_alloc answers
// cudaErrorMemoryAllocation, anything else cudaErrorUnknown).

#include <new>
#include <type_traits>

#include "api.h"
#include "errors.h"

using namespace accel::cudart_abi;  // NOLINT: the exports speak the vendor's names

namespace accel::cudart {
namespace {

thread_local bool t_per_thread_default_stream = false;

// What a row answers with `code` when its body did not run or did not finish: the code,
// recorded (unless kKeepsLastError), for a cudaError_t row; an empty value otherwise.
template <class R>
R answer(cudaError_t code, unsigned traits) noexcept {
  if constexpr (std::is_same_v<R, cudaError_t>) {
    if ((traits & kKeepsLastError) == 0) record(code);
    return code;
  } else if constexpr (!std::is_void_v<R>) {
    return R{};
  }
}

// Steps 1-4 of Note [Entry call order]. `body` is a generic lambda, so a kNotImplemented
// row's impl function is never instantiated, hence never needs a definition.
template <class R, unsigned Traits, class Body>
R enter(const char* name, Body&& body) noexcept {
  try {
    if constexpr ((Traits & kDriverFree) == 0) {
      if (const cudaError_t stuck = stuck_error(); stuck != cudaSuccess) {
        return answer<R>(stuck, Traits);
      }
    }
    if constexpr ((Traits & kNotImplemented) != 0) {
      return answer<R>(not_implemented(name), Traits);
    } else if constexpr (std::is_same_v<R, cudaError_t>) {
      return answer<R>(body(0), Traits);
    } else {
      return body(0);
    }
  } catch (const std::bad_alloc&) {
    return answer<R>(cudaErrorMemoryAllocation, Traits);
  } catch (...) {
    return answer<R>(cudaErrorUnknown, Traits);
  }
}

}  // namespace

PerThreadDefaultStream::PerThreadDefaultStream() noexcept : previous_(t_per_thread_default_stream) {
  t_per_thread_default_stream = true;
}
PerThreadDefaultStream::~PerThreadDefaultStream() { t_per_thread_default_stream = previous_; }

bool per_thread_default_stream() noexcept { return t_per_thread_default_stream; }

}  // namespace accel::cudart

#define ACCEL_CUDART_EXPORT __attribute__((visibility("default")))

extern "C" {

#define ACCEL_CUDART_WRAPPER(ret, name, params, args, traits)                \
  ACCEL_CUDART_EXPORT ret name params {                                      \
    return accel::cudart::enter<ret, (traits)>(                              \
        #name, [&](auto) -> ret { return accel::cudart::impl::name args; }); \
  }
ACCEL_CUDART_TABLE(ACCEL_CUDART_WRAPPER)
#undef ACCEL_CUDART_WRAPPER

#define ACCEL_CUDART_PT_WRAPPER(ret, name, variant, params, args, traits)   \
  ACCEL_CUDART_EXPORT ret variant params {                                  \
    return accel::cudart::enter<ret, (traits)>(#variant, [&](auto) -> ret { \
      accel::cudart::PerThreadDefaultStream per_thread;                     \
      return accel::cudart::impl::name args;                                \
    });                                                                     \
  }
ACCEL_CUDART_PER_THREAD_TABLE(ACCEL_CUDART_PT_WRAPPER)
#undef ACCEL_CUDART_PT_WRAPPER

}  // extern "C"
