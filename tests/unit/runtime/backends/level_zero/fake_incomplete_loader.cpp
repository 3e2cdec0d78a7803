// A library that looks like the start of a Level Zero loader but exports only zeInit: the
// backend must refuse it, naming the first entry point it lacks (zeDriverGet).
// Never called: the backend checks every entry point before using any.
extern "C" __attribute__((visibility("default"))) int zeInit(unsigned /*flags*/) {
  return 0x78000001;  // ZE_RESULT_ERROR_UNINITIALIZED
}
