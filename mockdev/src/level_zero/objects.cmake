# The mock Level Zero driver: contexts, memory, virtual memory, command lists, events
# (ze_objects.h; submission of commands to the engine in ze_submit.cpp).
target_sources(mockdev PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ze_context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_virtual_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_command_lists.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_submit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_events.cpp)

# The driver work's placeholder (empty fills, ze_objects_pending.cpp) defines the same
# functions as the files above: take it out of the target while it is still listed.
get_target_property(_ze_sources mockdev SOURCES)
list(REMOVE_ITEM _ze_sources ${CMAKE_CURRENT_LIST_DIR}/ze_objects_pending.cpp)
set_property(TARGET mockdev PROPERTY SOURCES ${_ze_sources})
unset(_ze_sources)
