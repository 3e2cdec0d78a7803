// The smallest program using the installed accel package.
#include <accel/accel.h>

#include <iostream>

int main() {
  std::cout << "accel " << accel::kVersionString << '\n'
            << "device_count=" << accel::device_count() << '\n'
            << "is_available=" << (accel::is_available() ? "true" : "false") << '\n';
  return 0;
}
