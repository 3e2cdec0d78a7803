# The mock Level Zero driver: contexts, memory, virtual memory, command lists, fences, events,
# interprocess handles (ze_ipc.h), modules and kernels (ze_objects.h, ze_kernels.h; submission
# of commands to the engine in ze_submit.cpp, of launches in ze_launch.cpp).
target_sources(mockdev PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ze_call_site.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_virtual_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_command_lists.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_submit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_fences.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_ipc.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_spirv.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_modules.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_launch.cpp)
