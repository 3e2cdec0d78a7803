# The mock Level Zero driver: state, registry, zeInit, drivers, devices, Sysman; the facade.
# (Filled by the driver work: target_sources(mockdev PRIVATE ...) and the facade target
# mockdev_level_zero.)
