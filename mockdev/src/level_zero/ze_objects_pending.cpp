// PLACEHOLDER until the objects work (contexts, memory, command lists, events) lands: its
// fill functions and drop_all_objects, empty, so the facade links and serves empty tables.
// The integrator deletes this file (and its line in driver.cmake) when objects.cmake lists
// the real ones.

#include "level_zero/ze_state.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {

void fill_context_table(ze_api_version_t, ze_context_dditable_t*) {}
void fill_mem_table(ze_api_version_t, ze_mem_dditable_t*) {}
void fill_virtual_mem_table(ze_api_version_t, ze_virtual_mem_dditable_t*) {}
void fill_physical_mem_table(ze_api_version_t, ze_physical_mem_dditable_t*) {}
void fill_command_list_table(ze_api_version_t, ze_command_list_dditable_t*) {}
void fill_command_queue_table(ze_api_version_t, ze_command_queue_dditable_t*) {}
void fill_event_pool_table(ze_api_version_t, ze_event_pool_dditable_t*) {}
void fill_event_table(ze_api_version_t, ze_event_dditable_t*) {}
void fill_fence_table(ze_api_version_t, ze_fence_dditable_t*) {}
void drop_all_objects() {}

}  // namespace mockdev::level_zero
