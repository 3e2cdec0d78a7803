#pragma once
// What the driver-API clients share: one line per step, and a count of unexpected results.
// Written against the toolkit's cuda.h only, like the clients themselves (which build as
// C++14: no inline variables). Each client is one translation unit, so the count is a
// static of that unit.

#include <cuda.h>

#include <cstdio>

namespace client {

static int g_failures = 0;

// Prints "<what>: <code name>" and remembers a code other than `expected`.
inline CUresult check(const char* what, CUresult rc, CUresult expected = CUDA_SUCCESS) {
  const char* name = nullptr;
  if (cuGetErrorName(rc, &name) != CUDA_SUCCESS) name = "(unknown code)";
  std::printf("%s: %s\n", what, name);
  if (rc != expected) ++g_failures;
  return rc;
}

}  // namespace client
