// The `topology` section of a machine file (sections.h): which device pairs are peers, and
// over what. Also the names and defaults of link kinds (mockdev/machine.h).

#include <set>
#include <string>
#include <utility>

#include "machine/sections.h"

namespace mockdev {

std::string_view peer_link_name(PeerLink link) {
  switch (link) {
    case PeerLink::kNone:
      return "none";
    case PeerLink::kPcie:
      return "pcie";
    case PeerLink::kNvlink:
      return "nvlink";
  }
  return "none";
}

// [inferred] NVLink is the faster link (rank 0) and carries native atomics; PCIe ranks
// below it and has none (docs/HARDWARE.md, "Device attributes and peers").
PeerLinkSpec default_link_spec(PeerLink link) {
  switch (link) {
    case PeerLink::kNvlink:
      return {PeerLink::kNvlink, 0, true};
    case PeerLink::kPcie:
      return {PeerLink::kPcie, 1, false};
    case PeerLink::kNone:
      break;
  }
  return {};
}

namespace machine_file {
namespace {

constexpr std::string_view kLinkWhat = "a link kind (none, pcie, nvlink)";

PeerLink read_link(const YamlReader& reader, const YAML::Node& node, const std::string& path) {
  const std::string text = reader.scalar(node, path, kLinkWhat);
  for (PeerLink link : {PeerLink::kNone, PeerLink::kPcie, PeerLink::kNvlink}) {
    if (peer_link_name(link) == text) return link;
  }
  reader.fail(node, path, kLinkWhat, text);
}

bool read_bool(const YamlReader& reader, const YAML::Node& node, const std::string& path) {
  const std::string text = reader.scalar(node, path, "true or false");
  if (text == "true") return true;
  if (text == "false") return false;
  reader.fail(node, path, "true or false", text);
}

PeerLinkEntry read_link_entry(const YamlReader& reader, const YAML::Node& node,
                              const std::string& path, const MachineSpec& spec) {
  if (!node.IsMap()) {
    reader.fail(node, path, "a mapping with keys devices, link, performance_rank, native_atomics",
                YamlReader::shown(node));
  }
  reader.check_keys(node, path, {"devices", "link", "performance_rank", "native_atomics"});
  const std::string devices_path = YamlReader::join(path, "devices");
  const YAML::Node devices = reader.require(node, path, "devices", "a pair of device indices");
  if (!devices.IsSequence() || devices.size() != 2)
    reader.fail(devices, devices_path, "a pair of device indices such as [0, 1]",
                YamlReader::shown(devices));
  if (spec.devices.empty())
    reader.fail(devices, devices_path, "a pair of devices of a machine that has devices", "[...]");
  const std::uint64_t last = spec.devices.size() - 1;
  const int a = static_cast<int>(reader.integer(devices[0], devices_path + "[0]", 0, last));
  const int b = static_cast<int>(reader.integer(devices[1], devices_path + "[1]", 0, last));
  if (a == b)
    reader.fail(devices[1], devices_path + "[1]", "a device other than devices[0]",
                std::to_string(b));
  // An NVIDIA and an Intel device are never peers: no API serves both (CUDA sees only the
  // NVIDIA devices, Level Zero only the Intel ones), so such a link could never be used.
  const Vendor va = spec.devices[static_cast<std::size_t>(a)].vendor;
  const Vendor vb = spec.devices[static_cast<std::size_t>(b)].vendor;
  if (va != vb) {
    reader.fail(devices, devices_path,
                "a pair of devices of one vendor (device " + std::to_string(a) + " is " +
                    std::string(vendor_name(va)) + ", device " + std::to_string(b) + " is " +
                    std::string(vendor_name(vb)) + ")",
                "[" + std::to_string(a) + ", " + std::to_string(b) + "]");
  }
  PeerLinkEntry entry;
  entry.first = std::min(a, b);
  entry.second = std::max(a, b);
  entry.spec = default_link_spec(read_link(reader, reader.require(node, path, "link", kLinkWhat),
                                           YamlReader::join(path, "link")));
  if (YAML::Node rank = node["performance_rank"]) {
    entry.spec.performance_rank =
        static_cast<int>(reader.integer(rank, YamlReader::join(path, "performance_rank"), 0, 1000));
  }
  if (YAML::Node atomics = node["native_atomics"]) {
    entry.spec.native_atomics =
        read_bool(reader, atomics, YamlReader::join(path, "native_atomics"));
  }
  if (entry.spec.link == PeerLink::kNone && (node["performance_rank"] || node["native_atomics"])) {
    const YAML::Node extra =
        node["performance_rank"] ? node["performance_rank"] : node["native_atomics"];
    reader.fail(extra, path, "no performance_rank or native_atomics on a link of kind none",
                YamlReader::shown(extra));
  }
  return entry;
}

}  // namespace

void read_topology(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec) {
  if (!node.IsMap())
    reader.fail(node, "topology", "a mapping with keys default, links", YamlReader::shown(node));
  reader.check_keys(node, "topology", {"default", "links"});
  if (YAML::Node d = node["default"])
    spec.topology.default_link = read_link(reader, d, "topology.default");
  const YAML::Node links = node["links"];
  if (!links) return;
  if (!links.IsSequence())
    reader.fail(links, "topology.links", "a list of links", YamlReader::shown(links));
  std::set<std::pair<int, int>> seen;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string path = "topology.links[" + std::to_string(i) + "]";
    PeerLinkEntry entry = read_link_entry(reader, links[i], path, spec);
    if (!seen.insert({entry.first, entry.second}).second) {
      reader.fail(links[i]["devices"], YamlReader::join(path, "devices"),
                  "a pair no earlier link names",
                  "[" + std::to_string(entry.first) + ", " + std::to_string(entry.second) + "]");
    }
    spec.topology.links.push_back(entry);
  }
}

}  // namespace machine_file
}  // namespace mockdev
