#pragma once
// The backend SPI moved to core/spi/backend.h (grouped by capability); this header keeps
// old includes working.
#include "core/spi/backend.h"
