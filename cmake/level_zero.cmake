# The Level Zero headers (Debian: libze-dev). The level_zero backend and the mock Level Zero
# driver are built only where they are found; the loader itself (libze1) is opened at run
# time, never linked, so a runtime built here still starts where libze1 is absent.
#   ACCEL_HAVE_LEVEL_ZERO       TRUE when <level_zero/ze_api.h> was found
#   accel_level_zero_headers    INTERFACE target adding its include directory
#   ACCEL_ZE_LOADER_LIBRARY     the installed loader (libze1), which tests and clients that
#                               call Level Zero directly link; false when it is not installed
find_path(ACCEL_LEVEL_ZERO_INCLUDE_DIR level_zero/ze_api.h)
if(ACCEL_LEVEL_ZERO_INCLUDE_DIR)
  set(ACCEL_HAVE_LEVEL_ZERO TRUE)
  add_library(accel_level_zero_headers INTERFACE)
  target_include_directories(accel_level_zero_headers SYSTEM INTERFACE ${ACCEL_LEVEL_ZERO_INCLUDE_DIR})
  find_library(ACCEL_ZE_LOADER_LIBRARY NAMES ze_loader libze_loader.so.1)
else()
  set(ACCEL_HAVE_LEVEL_ZERO FALSE)
  message(WARNING "Level Zero headers (level_zero/ze_api.h, Debian package libze-dev) not found: "
                  "the level_zero (xpu) backend and the mock Level Zero driver are not built")
endif()
