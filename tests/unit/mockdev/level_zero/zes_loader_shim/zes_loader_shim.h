#pragma once
// TEST STAND-IN, NOT A LOADER. libaccel_test_zes_loader.so lets tests exercise the Sysman
// route of a Level Zero loader >= 1.9 (zesInit, zesDriverGet, zesDeviceGet,
// Sysman API 1.5) on a machine whose real loader is Debian's 1.8.12, which lacks them.
//
// It links the real loader (DT_NEEDED libze_loader.so.1), so dlsym(handle, "zeInit") on it
// finds the loader's own core entry points, and exports only the Sysman entry points below.
// Each of them goes straight to the Level Zero driver named by ZE_ENABLE_ALT_DRIVERS (the
// first entry), whose zes tables it requests at ZE_API_VERSION_1_5, as a >= 1.9 loader
// does: zesGetGlobalProcAddrTable for zesInit, pfnGet of the zes Driver and Device tables.
// It has none of a loader's logic (no multi-driver handling, no layers, no intercept): one
// driver, direct dispatch. Point the runtime's ACCEL_LEVEL_ZERO_LOADER at it to test the
// backend's zesInit branch.
//
// Exported (C ABI, the signatures of spec 1.5):
//   zesInit, zesDriverGet, zesDeviceGet, zesDeviceGetProperties,
//   zesDeviceEnumMemoryModules, zesMemoryGetProperties, zesMemoryGetState
// zesInit returns ZE_RESULT_ERROR_UNINITIALIZED when no driver is named, it cannot be
// opened, or it lacks the 1.5 Sysman tables.
