// The process-lifetime list of handed-out driver objects (core/keep_forever.h).

#include "core/keep_forever.h"

#include <vector>

namespace mockdev::core {

void keep_forever(const void* object) {
  static auto* const kept = new std::vector<const void*>();  // Note [Leaky state]
  kept->push_back(object);
}

}  // namespace mockdev::core
