#!/usr/bin/env bash
# Runs one recording of a real NVIDIA machine from a folder pack_recording.sh made:
#
#   PACK_DIR/run.sh OUT_DIR        (run from the repository root: it needs tests/hardware/)
#
# Writes into OUT_DIR/r: machine.txt (nvidia-smi, the OS), record/ (record_nvidia_machine.sh:
# the probe with its extended section, accel info, the CUDA_VISIBLE_DEVICES table),
# driver_conformance.txt and conformance.txt (both suites on the real driver, gtest output),
# client_*.txt; then OUT_DIR/results.tgz with all of it. Every step has its own time limit,
# so one hang costs that step only. Exit status 0 when every step ran.
set -u
pack="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: run.sh OUT_DIR}"
r="${out}/r"
mkdir -p "${r}"
export LD_LIBRARY_PATH="${pack}/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
unset ACCEL_CUDA_DRIVER ACCEL_NVML_LIBRARY MOCKDEV_MACHINE MOCKDEV_SCHEDULE CUDA_VISIBLE_DEVICES \
      ACCEL_BACKEND
status=0
t0=$(date +%s)
step() { echo "== $1 at $(( $(date +%s) - t0 )) s"; }
step machine
{ nvidia-smi; nvidia-smi -q | head -n 60; cat /etc/os-release; uname -a; } > "${r}/machine.txt" 2>&1
step record
timeout 150 bash tests/hardware/record_nvidia_machine.sh "${pack}/bin" "${r}/record" \
  > "${r}/record.log" 2>&1 || status=1
step "driver conformance"
ACCEL_KERNEL_IMAGES="${pack}/kernel_images" ACCEL_DRIVER_PROFILE=cuda_real timeout 150 "${pack}/bin/accel_driver_conformance" \
  --gtest_color=no > "${r}/driver_conformance.txt" 2>&1
tail -n 3 "${r}/driver_conformance.txt"
step "runtime conformance"
ACCEL_CONFORMANCE_PROFILE=cuda_real timeout 150 "${pack}/bin/accel_conformance_tests" \
  --gtest_color=no > "${r}/conformance.txt" 2>&1
tail -n 3 "${r}/conformance.txt"
step clients
for c in device_query accel_cuda_contexts_client accel_cuda_copies_client \
         accel_cuda_pools_client accel_driver_api_client accel_cuda_modules_client; do
  ACCEL_KERNEL_IMAGES="${pack}/kernel_images" timeout 40 "${pack}/bin/${c}" > "${r}/client_${c}.txt" 2>&1
  echo "${c} exit $?" | tee -a "${r}/clients.txt"
done
step done
tar czf "${out}/results.tgz" -C "${out}" r
exit "${status}"
