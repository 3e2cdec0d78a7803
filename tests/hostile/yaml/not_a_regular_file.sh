#!/bin/sh
# hostile.yaml.not_a_regular_file: a FIFO nobody writes and /dev/zero, given as a scenario
# file and as a machine (by --machine and by MOCKDEV_MACHINE with the mock driver files
# in the environment), are each refused by name at once (Note [Bounded readers]).
#   not_a_regular_file.sh <accel> <scratch dir>
# Prints "not a regular file: <n> of 6 refused by name" (ctest checks the line; a reader
# that blocks on the FIFO is stopped by the test's TIMEOUT).
accel="$1"
dir="$2"
rm -rf "$dir" && mkdir -p "$dir" && mkfifo "$dir/fifo.yaml" || exit 1
refused=0
expect() {  # expect <status> <output> <wanted status> <message>
  if [ "$1" = "$3" ] && printf '%s\n' "$2" | grep -qF -- "$4"; then
    refused=$((refused + 1))
  else
    printf 'exit %s, expected %s with: %s\n---- output\n%s\n' "$1" "$3" "$4" "$2"
  fi
}
for target in "$dir/fifo.yaml" /dev/zero; do
  case "$target" in
    /dev/zero) what="is a character device, not a regular file" ;;
    *) what="is a FIFO (named pipe), not a regular file" ;;
  esac
  out=$("$accel" scenario check "$target" 2>&1); status=$?
  expect "$status" "$out" 2 "accel scenario: scenario file '$target': $what"
  out=$("$accel" info --machine "$target" 2>&1); status=$?
  expect "$status" "$out" 2 "mockdev: cannot load the simulated machine: MOCKDEV_MACHINE: machine file '$target': $what"
  out=$(MOCKDEV_MACHINE="$target" "$accel" info 2>&1); status=$?
  expect "$status" "$out" 2 "mockdev: cannot load the simulated machine: MOCKDEV_MACHINE: machine file '$target': $what"
done
rm -rf "$dir"
echo "not a regular file: $refused of 6 refused by name"
