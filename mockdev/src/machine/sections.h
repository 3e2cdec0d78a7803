#pragma once
// The sections of a machine file, one reader each (docs/MACHINE_FILES.md): `devices`
// (devices_section.cpp) and `faults` (faults_section.cpp); machine_file.cpp reads the
// document's top level and calls them in order. Each throws MachineFileError.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "machine/yaml_reader.h"
#include "mockdev/machine.h"

namespace mockdev::machine_file {

// Appends the devices of the `devices` list to spec.devices (spec.name already set: it
// seeds the generated UUIDs).
void read_devices(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec);

// Reads the `faults` mapping into spec.faults (spec.devices already read: sticky errors
// name a device).
void read_faults(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec);

// Reads the `streams` mapping into spec.streams (streams_section.cpp).
void read_streams(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec);

// Reads the `topology` mapping into spec.topology (topology_section.cpp; spec.devices
// already read: links name devices).
void read_topology(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec);

// A device's `level_zero:` map into `z` (level_zero_section.cpp); `memory_per_tile` bounds
// max_mem_alloc (the device's memory divided by its tiles, or all of it when untiled).
void read_level_zero_device(const YamlReader& reader, const YAML::Node& node,
                            const std::string& path, std::uint64_t memory_per_tile,
                            LevelZeroDeviceSpec& z);

// The top-level `level_zero:` map into spec.level_zero (level_zero_section.cpp).
void read_level_zero_driver(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec);

}  // namespace mockdev::machine_file
