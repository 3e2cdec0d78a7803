#pragma once
// The sections of a machine file, one reader each (docs/MACHINE_FILES.md): `devices`
// (devices_section.cpp) and `faults` (faults_section.cpp); machine_file.cpp reads the
// document's top level and calls them in order. Each throws MachineFileError.

#include <yaml-cpp/yaml.h>

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

}  // namespace mockdev::machine_file
