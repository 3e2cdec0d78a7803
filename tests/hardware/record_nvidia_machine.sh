#!/usr/bin/env bash
# Records how a real NVIDIA machine answers the rules the simulated driver encodes.
#
#   tests/hardware/record_nvidia_machine.sh BIN_DIR OUT_DIR
#
# BIN_DIR holds a built `accel` and `accel_cuda_rules_probe` (and, in lib/, any shared
# libraries they need that the machine lacks); OUT_DIR receives:
#   nvidia-smi.txt       nvidia-smi -L and a query of the fields `accel info` shows
#   probe.txt            accel_cuda_rules_probe against the real libcuda.so.1 / NVML
#   accel_info.txt/.json accel info (text, JSON) against the real driver
#   accel_visible.txt    accel info's count (before init, from NVML) and its device rows
#                        (after init, from the driver) for each CUDA_VISIBLE_DEVICES row
# docs/HARDWARE.md says how the recordings are read and compared with the simulation.
set -uo pipefail
bin="$(cd "$1" && pwd)"
out="$2"
mkdir -p "${out}"
export LD_LIBRARY_PATH="${bin}/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
unset ACCEL_CUDA_DRIVER ACCEL_NVML_LIBRARY MOCKDEV_MACHINE CUDA_VISIBLE_DEVICES ACCEL_BACKEND

{
  nvidia-smi -L
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,memory.total,compute_cap,mig.mode.current,driver_version --format=csv
} > "${out}/nvidia-smi.txt" 2>&1

timeout 300 "${bin}/accel_cuda_rules_probe" > "${out}/probe.txt" 2>&1
echo "exit $?" >> "${out}/probe.txt"

"${bin}/accel" info > "${out}/accel_info.txt" 2>&1
echo "exit $?" >> "${out}/accel_info.txt"
"${bin}/accel" info --json > "${out}/accel_info.json" 2>&1

uuid="$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -n 1 | tr -d ' ')"
prefix="${uuid:0:12}"
rows=("<unset>" "" "0" "1" "-1" "0,0" "0,1" "1,0" "0,junk" "junk" " 0" "00" "+0" "-0"
      "0x0" "0,3000000000,4000000000" "3000000000" "${uuid}" "${prefix}" "GPU-"
      "${prefix},0" "${prefix},${prefix}" " ${prefix}" "${prefix}, 0" "0, ${prefix}"
      "MIG-" "MIG-${uuid:4}")
for row in "${rows[@]}"; do
  label="${row//${uuid}/{u0\}}"
  label="${label//${prefix}/{p0\}}"
  if [[ "${row}" == "<unset>" ]]; then
    result="$(env -u CUDA_VISIBLE_DEVICES "${bin}/accel" info 2>&1)"
  else
    result="$(CUDA_VISIBLE_DEVICES="${row}" "${bin}/accel" info 2>&1)"
  fi
  status=$?
  count="$(grep -E '^device count:' <<<"${result}" | sed -E 's/ +/ /g')"
  rows_after="$(grep -cE '^  [0-9]+ ' <<<"${result}")"
  available="$(grep -E '^available:' <<<"${result}" | sed -E 's/ +/ /g')"
  printf "visible['%s'] = exit=%s %s | %s | device rows=%s\n" "${label}" "${status}" \
    "${count}" "${available}" "${rows_after}"
done > "${out}/accel_visible.txt"
echo "recorded into ${out}"
