#pragma once
// Umbrella header: the whole public API of the accel runtime.

#include "accel/accelerator.h"         // IWYU pragma: export
#include "accel/copy.h"                // IWYU pragma: export
#include "accel/device.h"              // IWYU pragma: export
#include "accel/device_index_guard.h"  // IWYU pragma: export
#include "accel/error.h"               // IWYU pragma: export
#include "accel/event.h"               // IWYU pragma: export
#include "accel/graph.h"               // IWYU pragma: export
#include "accel/lazy_init.h"           // IWYU pragma: export
#include "accel/memory.h"              // IWYU pragma: export
#include "accel/peer_link.h"           // IWYU pragma: export
#include "accel/random.h"              // IWYU pragma: export
#include "accel/scalar_type.h"         // IWYU pragma: export
#include "accel/stream.h"              // IWYU pragma: export
#include "accel/stream_guard.h"        // IWYU pragma: export
#include "accel/version.h"             // IWYU pragma: export
