#!/usr/bin/env bash
# Packs what a recording on a GPU machine needs into one folder, so the machine needs no
# compiler, no CMake and no development packages (a GPU machine lent for minutes often has
# none of them):
#
#   tests/hardware/pack_recording.sh BUILD_DIR PACK_DIR
#
# BUILD_DIR is a configured build of this repository (e.g. build/gcc); the script builds the
# targets it needs there, then writes into PACK_DIR:
#   bin/   accel, accel_cuda_rules_probe, accel_conformance_tests, accel_driver_conformance,
#          device_query and the driver-API clients, stripped
#   lib/   libmockdev.so and the libyaml-cpp the conformance tests link
#   kernel_images/  the images nvcc built from tests/kernel_images/kernels.cu, which the
#          driver suite's module tests load (ACCEL_KERNEL_IMAGES points them there)
#   run.sh runs tests/hardware/run_recording.sh with this folder (copied beside it)
# Copy PACK_DIR and the repository's tests/hardware/ folder to the GPU machine and run
# `PACK_DIR/run.sh OUT_DIR` there. docs/HARDWARE.md says how a recording is read.
set -euo pipefail
build="$1"
pack="$2"
targets=(accel accel_cuda_rules_probe accel_conformance_tests accel_driver_conformance
         device_query accel_cuda_contexts_client accel_cuda_copies_client
         accel_cuda_pools_client accel_driver_api_client accel_cuda_modules_client)
cmake --build "${build}" -j "$(nproc)" --target "${targets[@]}" accel_kernel_images
rm -rf "${pack}"
mkdir -p "${pack}/bin" "${pack}/lib"
for target in "${targets[@]}"; do
  file="$(find "${build}" -type f -name "${target}" -perm -u+x | head -n 1)"
  if [[ -z "${file}" ]]; then
    echo "pack_recording: ${target} was not built in ${build}" >&2
    exit 1
  fi
  strip -o "${pack}/bin/${target}" "${file}"
done
strip -o "${pack}/lib/libmockdev.so" "${build}/mockdev/libmockdev.so"
yaml="$(ldd "${pack}/bin/accel_conformance_tests" | awk '/libyaml-cpp/ {print $3}')"
if [[ -n "${yaml}" ]]; then cp -L "${yaml}" "${pack}/lib/"; fi
mkdir -p "${pack}/kernel_images"
cp "${build}"/tests/kernel_images/*.{ptx,cubin,fatbin} "${pack}/kernel_images/"
cp "$(dirname "${BASH_SOURCE[0]}")/run_recording.sh" "${pack}/run.sh"
chmod +x "${pack}/run.sh"
du -sh "${pack}"
