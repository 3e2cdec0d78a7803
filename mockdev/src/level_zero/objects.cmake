# The mock Level Zero driver: contexts, memory, virtual memory, command lists, events.
# (Filled by the objects work: target_sources(mockdev PRIVATE ...).)
