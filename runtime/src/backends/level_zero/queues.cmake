# The Level Zero backend's memory, streams, events and peers (included by backend.cmake).
#   ze_queues.h      streams and events state (Note [Level Zero streams], [Event slots])
#   ze_streams.cpp   immediate command lists as streams, the slot bookkeeping, synchronize
#   ze_events.cpp    events, records, cross-stream waits, elapsed time
#   ze_memory.cpp    device, virtual and pinned host memory, memory_info (Sysman)
#   ze_peer.cpp      can_access_peer
target_sources(accel_runtime PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ze_streams.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_peer.cpp)
