# The Level Zero backend's memory, streams, events and peers (included by backend.cmake).
target_sources(accel_runtime PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/pending_queues.cpp)
