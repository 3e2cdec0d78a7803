// The mock Level Zero driver file, libze_mock.so: what the real loader dlopens through
// ZE_ENABLE_ALT_DRIVERS and asks for dispatch tables. It exports exactly the
// ze*/zet*/zes* *ProcAddrTable getters (ze_mock.map), never an API name such as zeInit
// (the loader exports those into the global scope: calls inside the mock could bind to
// the loader and recurse), and is linked with -z nodelete so a failed
// zeInit (after which loader 1.8.12 dlcloses the driver but keeps its pointers) never
// leaves dangling code. It does not link the loader.
//
// Getter rules (as Intel's driver's): null table -> ZE_RESULT_ERROR_INVALID_ARGUMENT; a major
// version other than 1 -> ZE_RESULT_ERROR_UNSUPPORTED_VERSION; any 1.x request is accepted
// and only entries that exist at the requested version are written (the fill functions).
// Tables the mock does not serve stay as the loader zero-filled them.

#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#include "accel_abi/level_zero_sysman_1_5.h"
#include "facade/facade_export.h"
#include "level_zero/ze_tables.h"

namespace {

namespace lz = mockdev::level_zero;

template <typename Table, typename Fill>
ze_result_t serve(ze_api_version_t version, Table* table, Fill fill) noexcept {
  if (table == nullptr) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (ZE_MAJOR_VERSION(version) != 1) return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
  return mockdev::facade::guarded<ZE_RESULT_ERROR_UNKNOWN>([&] {
    fill(version, table);
    return ZE_RESULT_SUCCESS;
  });
}

template <typename Table>
void nothing(ze_api_version_t, Table*) {}

}  // namespace

// A getter filled by `fill` (a function of ze_tables.h).
#define MOCKDEV_ZE_GETTER(symbol, table_type, fill)                       \
  MOCKDEV_EXPORT ze_result_t symbol(ze_api_version_t version, table_type* table) { \
    return serve(version, table, fill);                                   \
  }
// A table the mock does not implement: every entry stays null (the loader then answers
// UNSUPPORTED_FEATURE, or UNINITIALIZED in intercept mode).
#define MOCKDEV_ZE_EMPTY_GETTER(symbol, table_type) \
  MOCKDEV_ZE_GETTER(symbol, table_type, nothing<table_type>)

// Core: 17 mandatory.
MOCKDEV_ZE_GETTER(zeGetGlobalProcAddrTable, ze_global_dditable_t, lz::fill_global_table)
MOCKDEV_ZE_GETTER(zeGetDriverProcAddrTable, ze_driver_dditable_t, lz::fill_driver_table)
MOCKDEV_ZE_GETTER(zeGetDeviceProcAddrTable, ze_device_dditable_t, lz::fill_device_table)
MOCKDEV_ZE_GETTER(zeGetContextProcAddrTable, ze_context_dditable_t, lz::fill_context_table)
MOCKDEV_ZE_GETTER(zeGetCommandQueueProcAddrTable, ze_command_queue_dditable_t,
                  lz::fill_command_queue_table)
MOCKDEV_ZE_GETTER(zeGetCommandListProcAddrTable, ze_command_list_dditable_t,
                  lz::fill_command_list_table)
MOCKDEV_ZE_GETTER(zeGetEventProcAddrTable, ze_event_dditable_t, lz::fill_event_table)
MOCKDEV_ZE_GETTER(zeGetEventPoolProcAddrTable, ze_event_pool_dditable_t, lz::fill_event_pool_table)
MOCKDEV_ZE_GETTER(zeGetFenceProcAddrTable, ze_fence_dditable_t, lz::fill_fence_table)
MOCKDEV_ZE_GETTER(zeGetMemProcAddrTable, ze_mem_dditable_t, lz::fill_mem_table)
MOCKDEV_ZE_GETTER(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t,
                  lz::fill_physical_mem_table)
MOCKDEV_ZE_GETTER(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t,
                  lz::fill_virtual_mem_table)
MOCKDEV_ZE_EMPTY_GETTER(zeGetImageProcAddrTable, ze_image_dditable_t)
MOCKDEV_ZE_GETTER(zeGetKernelProcAddrTable, ze_kernel_dditable_t, lz::fill_kernel_table)
MOCKDEV_ZE_GETTER(zeGetModuleProcAddrTable, ze_module_dditable_t, lz::fill_module_table)
MOCKDEV_ZE_GETTER(zeGetModuleBuildLogProcAddrTable, ze_module_build_log_dditable_t,
                  lz::fill_module_build_log_table)
MOCKDEV_ZE_EMPTY_GETTER(zeGetSamplerProcAddrTable, ze_sampler_dditable_t)
// Core: optional Exp tables.
MOCKDEV_ZE_EMPTY_GETTER(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t)

// Tools: 12 mandatory (TracerExp included despite its name) + the optional MetricGroupExp.
MOCKDEV_ZE_EMPTY_GETTER(zetGetDeviceProcAddrTable, zet_device_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetContextProcAddrTable, zet_context_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetCommandListProcAddrTable, zet_command_list_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetKernelProcAddrTable, zet_kernel_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetModuleProcAddrTable, zet_module_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetDebugProcAddrTable, zet_debug_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetMetricProcAddrTable, zet_metric_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t)

// Sysman: 17 mandatory, plus zesGetGlobalProcAddrTable (1.5).
MOCKDEV_ZE_GETTER(zesGetDeviceProcAddrTable, zes_device_dditable_t, lz::fill_sysman_device_table)
MOCKDEV_ZE_GETTER(zesGetDriverProcAddrTable, zes_driver_dditable_t, lz::fill_sysman_driver_table)
MOCKDEV_ZE_GETTER(zesGetMemoryProcAddrTable, zes_memory_dditable_t, lz::fill_sysman_memory_table)
MOCKDEV_ZE_GETTER(zesGetGlobalProcAddrTable, accel::abi::level_zero::zes_global_dditable_1_5_t,
                  lz::fill_sysman_global_table)
MOCKDEV_ZE_EMPTY_GETTER(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetEngineProcAddrTable, zes_engine_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetFanProcAddrTable, zes_fan_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetLedProcAddrTable, zes_led_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetPowerProcAddrTable, zes_power_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetPsuProcAddrTable, zes_psu_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetRasProcAddrTable, zes_ras_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetStandbyProcAddrTable, zes_standby_dditable_t)
MOCKDEV_ZE_EMPTY_GETTER(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t)
