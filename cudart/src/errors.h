#pragma once
// The runtime's error state (spec cuda_runtime.md §2): one last-error slot per host thread,
// the sticky errors of the process, the names and texts of every cudaError_t, and the answer
// of an entry point that is declared but not implemented.
//
// Note [Last error]
// Every failing call stores its code in the calling thread's slot (entry.cpp does it for
// every row without kKeepsLastError), except cudaErrorNotReady (600), a status rather than a
// failure (spec §2.1 recommendation, [inferred]). cudaGetLastError returns the slot and
// resets it to cudaSuccess; cudaPeekAtLastError returns it unchanged. A sticky error (spec
// §2.2: 226, 700, 702, 710, 714-719, 721, 810, 911) and a failed initialisation stick to the
// process instead: every later driver-needing call returns it, and cudaGetLastError returns
// it without clearing it. Thread-safe; never throws.

#include "accel_abi/cuda_runtime.h"

namespace accel::cudart {

using namespace accel::cudart_abi;  // NOLINT: the runtime speaks the vendor's names

// True for the codes that leave the context (in practice the process) unusable.
[[nodiscard]] bool is_sticky(cudaError_t code) noexcept;

// Stores `code` as the calling thread's last error when it is an error (Note [Last error]);
// a sticky code also sticks to the process. Returns `code`.
cudaError_t record(cudaError_t code) noexcept;

// The error every driver-needing call answers before doing anything: a failed
// initialisation, a forked child's, or a sticky error; cudaSuccess when none.
[[nodiscard]] cudaError_t stuck_error() noexcept;

// The answer of a row marked kNotImplemented: prints "accel cudart: <name> is not
// implemented (cudaErrorNotSupported)" on stderr once per entry point and process, and
// returns cudaErrorNotSupported.
cudaError_t not_implemented(const char* name) noexcept;

// cudaGetErrorName / cudaGetErrorString texts; "unrecognized error code" outside the enum.
[[nodiscard]] const char* error_name(int code) noexcept;
[[nodiscard]] const char* error_string(int code) noexcept;

}  // namespace accel::cudart
