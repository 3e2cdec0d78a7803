#!/usr/bin/env bash
# Runs the driver-level tests of a Python CUDA driver binding (Numba's own
# numba.cuda.tests.cudadrv suites, from the Debian package python3-numba) against the
# simulated libcuda.so.1, unchanged: Numba binds the driver with ctypes (NUMBA_CUDA_DRIVER
# names the file), so every entry point it resolves at init and every call of its tests
# goes to the simulation. The tests to run are listed in tests.txt, one unittest id per
# line ('#' starts a comment); the run passes when every listed test passes.
#   run_numba_tests.sh <simulated libcuda.so.1> <tests.txt> [<sanitizer runtime to preload>]
# The third argument, given by sanitizer builds, is preloaded into Python alone (not into
# this script's bash, which a preloaded ThreadSanitizer runtime kills at start).
# Exit status 77 (ctest: skipped) when Numba is not installed, so the test never passes
# silently where it could not run.
set -uo pipefail
driver="$1"
list="$2"
preload="${3:-}"
python=/usr/bin/python3
if ! "${python}" -c 'import numba.cuda' >/dev/null 2>&1; then
  echo "clients.numba_cudadrv: NOT RUN: Numba is not installed (Debian: python3-numba)"
  exit 77
fi
mapfile -t tests < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${list}")
if (( ${#tests[@]} == 0 )); then
  echo "clients.numba_cudadrv: ${list} lists no test" >&2
  exit 1
fi
export NUMBA_CUDA_DRIVER="${driver}"
if [[ -n "${preload}" ]]; then
  exec env LD_PRELOAD="${preload}" "${python}" -m numba.runtests -v "${tests[@]}"
fi
exec "${python}" -m numba.runtests -v "${tests[@]}"
