// What a machine file says about Level Zero (sections.h): a device's `level_zero:` map
// (LevelZeroDeviceSpec) and the top-level `level_zero:` map (LevelZeroDriverSpec). Every
// value is checked against what Intel's driver could report for it, so a machine file can
// never describe a device the real driver could not be (docs/MACHINE_FILES.md, "Vendors,
// tiles and Level Zero").

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "machine/sections.h"

namespace mockdev::machine_file {
namespace {

// An unsigned integer written in decimal or as 0x-prefixed hex (PCI ids and driver
// versions are conventionally hex), from `min` to `max`.
std::uint64_t hex_or_decimal(const YamlReader& reader, const YAML::Node& node,
                             const std::string& path, std::uint64_t min, std::uint64_t max,
                             std::string_view what) {
  const std::string text = reader.scalar(node, path, what);
  std::string_view digits = text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
      value < min || value > max) {
    reader.fail(node, path, what, text);
  }
  return value;
}

bool read_bool(const YamlReader& reader, const YAML::Node& node, const std::string& path) {
  const std::string text = reader.scalar(node, path, "true or false");
  if (text == "true") return true;
  if (text == "false") return false;
  reader.fail(node, path, "true or false", text);
}

int valid_bits(const YamlReader& reader, const YAML::Node& node, const std::string& path) {
  // Intel reports 32, 36 (Gen12LP, Xe-HPC) or 64 (Xe2 and later).
  constexpr std::string_view kWhat = "32, 36 or 64 valid bits";
  const std::string text = reader.scalar(node, path, kWhat);
  if (text == "32") return 32;
  if (text == "36") return 36;
  if (text == "64") return 64;
  reader.fail(node, path, kWhat, text);
}

// A positive, finite tick period in nanoseconds, at most one second (need not be an
// integer; 52.083 is the Max 1550's).
double tick_period(const YamlReader& reader, const YAML::Node& node, const std::string& path) {
  constexpr std::string_view kWhat = "a tick period in ns above 0 and at most 1e9 (e.g. 52.083)";
  const std::string text = reader.scalar(node, path, kWhat);
  // strtod, not from_chars: libstdc++'s floating from_chars is not everywhere we build.
  char* end = nullptr;
  errno = 0;
  const double value = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  const bool whole = !text.empty() && end == text.c_str() + text.size();
  if (!whole || errno != 0 || !std::isfinite(value) || !(value > 0.0) || value > 1e9 ||
      std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    reader.fail(node, path, kWhat, text);
  }
  return value;
}

}  // namespace

void read_level_zero_device(const YamlReader& reader, const YAML::Node& node,
                            const std::string& path, std::uint64_t memory_per_tile,
                            LevelZeroDeviceSpec& z) {
  if (!node.IsMap())
    reader.fail(node, path, "a mapping of Level Zero device properties", YamlReader::shown(node));
  reader.check_keys(node, path,
                    {"device_id",
                     "timer_resolution_ns",
                     "timestamp_valid_bits",
                     "kernel_timestamp_valid_bits",
                     "timestamp_start_ticks",
                     "core_clock_mhz",
                     "num_slices",
                     "subslices_per_slice",
                     "eus_per_subslice",
                     "threads_per_eu",
                     "simd_width",
                     "max_mem_alloc",
                     "compute_queues",
                     "copy_queues",
                     "copy_fill_pattern_limit",
                     "fp64",
                     "images",
                     "external_memory",
                     "small_page",
                     "large_page"});
  auto field = [&](std::string_view key) { return YamlReader::join(path, key); };
  auto small = [&](std::string_view key, int min, int max, int& out) {
    if (YAML::Node v = node[std::string(key)])
      out = static_cast<int>(reader.integer(v, field(key), static_cast<std::uint64_t>(min),
                                            static_cast<std::uint64_t>(max)));
  };
  if (YAML::Node v = node["device_id"]) {
    z.device_id = static_cast<std::uint32_t>(hex_or_decimal(
        reader, v, field("device_id"), 1, 0xffff,
        "a PCI device id from 1 to 0xffff, hex (0x0bd5) or decimal"));
  }
  if (YAML::Node v = node["timer_resolution_ns"])
    z.timer_resolution_ns = tick_period(reader, v, field("timer_resolution_ns"));
  if (YAML::Node v = node["timestamp_valid_bits"])
    z.timestamp_valid_bits = valid_bits(reader, v, field("timestamp_valid_bits"));
  if (YAML::Node v = node["kernel_timestamp_valid_bits"])
    z.kernel_timestamp_valid_bits = valid_bits(reader, v, field("kernel_timestamp_valid_bits"));
  if (YAML::Node v = node["timestamp_start_ticks"]) {
    // The device's tick at virtual time 0, to start near the wrap point. Both
    // timestamp kinds count from it, so it must fit the narrower of the two.
    const int bits = std::min(z.timestamp_valid_bits, z.kernel_timestamp_valid_bits);
    const std::uint64_t most = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
    z.timestamp_start_ticks = hex_or_decimal(
        reader, v, field("timestamp_start_ticks"), 0, most,
        "a tick count below 2^" + std::to_string(bits) +
            " (the narrower of timestamp_valid_bits and kernel_timestamp_valid_bits)");
  }
  if (YAML::Node v = node["core_clock_mhz"])
    z.core_clock_mhz = static_cast<std::uint32_t>(reader.integer(v, field("core_clock_mhz"), 1, 100000));
  small("num_slices", 1, 64, z.num_slices);
  small("subslices_per_slice", 1, 1024, z.subslices_per_slice);
  small("eus_per_subslice", 1, 1024, z.eus_per_subslice);
  small("threads_per_eu", 1, 64, z.threads_per_eu);
  if (YAML::Node v = node["simd_width"]) {
    const std::uint64_t w = reader.integer(v, field("simd_width"), 1, 64);
    if ((w & (w - 1)) != 0)
      reader.fail(v, field("simd_width"), "a power of two from 1 to 64", v.Scalar());
    z.simd_width = static_cast<int>(w);
  }
  if (YAML::Node v = node["max_mem_alloc"]) {
    // Intel caps maxMemAllocSize at the memory of one tile (compute-runtime): more is a device
    // no driver reports.
    const std::uint64_t bytes = reader.size(v, field("max_mem_alloc"));
    if (bytes > memory_per_tile) {
      reader.fail(v, field("max_mem_alloc"),
                  "a size of at most the memory of one tile, or of the device when untiled (" +
                      std::to_string(memory_per_tile) + " bytes)",
                  v.Scalar());
    }
    z.max_mem_alloc_bytes = bytes;
  }
  small("compute_queues", 1, 64, z.compute_queues);  // group 0 has at least one
  small("copy_queues", 0, 64, z.copy_queues);        // 0: no copy-only group
  if (YAML::Node v = node["copy_fill_pattern_limit"]) {
    // maxMemoryFillPatternSize; Intel's copy engines take 1 or 16 bytes.
    constexpr std::string_view kWhat = "a power of two from 1 to 65536 (bytes)";
    const std::string text = reader.scalar(v, field("copy_fill_pattern_limit"), kWhat);
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value == 0 ||
        value > 65536 || (value & (value - 1)) != 0) {
      reader.fail(v, field("copy_fill_pattern_limit"), kWhat, text);
    }
    z.copy_fill_pattern_limit = value;
  }
  if (YAML::Node v = node["fp64"]) z.fp64 = read_bool(reader, v, field("fp64"));
  if (YAML::Node v = node["images"]) z.images = read_bool(reader, v, field("images"));
  if (YAML::Node v = node["external_memory"]) {
    // The external memory types of allocations, each once: [opaque_fd, dma_buf].
    constexpr std::string_view kWhat = "a list of external memory types: opaque_fd, dma_buf";
    const std::string list_path = field("external_memory");
    if (!v.IsSequence()) reader.fail(v, list_path, kWhat, YamlReader::shown(v));
    std::uint32_t types = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string item_path = list_path + "[" + std::to_string(i) + "]";
      const std::string text = reader.scalar(v[i], item_path, kWhat);
      std::uint32_t bit = 0;
      if (text == "opaque_fd") bit = 0x1;
      if (text == "dma_buf") bit = 0x2;
      if (bit == 0 || (types & bit) != 0) {
        reader.fail(v[i], item_path, "opaque_fd or dma_buf, each at most once", text);
      }
      types |= bit;
    }
    z.external_memory_types = types;
  }
  // Virtual memory pages: powers of two, 4 KiB <= small_page <= large_page <= 1 GiB.
  auto page = [&](std::string_view key, std::uint64_t least, std::uint64_t& out) {
    YAML::Node v = node[std::string(key)];
    if (!v) return;
    const std::uint64_t bytes = reader.size(v, field(key));
    if (bytes < least || bytes > (std::uint64_t{1} << 30) || (bytes & (bytes - 1)) != 0) {
      reader.fail(v, field(key), "a power of two from " + std::to_string(least) + " bytes to 1GiB",
                  v.Scalar());
    }
    out = bytes;
  };
  page("small_page", 4096, z.small_page_bytes);
  page("large_page", z.small_page_bytes, z.large_page_bytes);
  if (z.small_page_bytes > z.large_page_bytes) {
    reader.fail(node["small_page"], field("small_page"),
                "at most large_page (" + std::to_string(z.large_page_bytes) + " bytes)",
                node["small_page"].Scalar());
  }
}

void read_level_zero_driver(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec) {
  if (!node.IsMap()) {
    reader.fail(node, "level_zero", "a mapping with keys default_hierarchy, driver_version, "
                                    "child_policy",
                YamlReader::shown(node));
  }
  reader.check_keys(node, "level_zero", {"default_hierarchy", "driver_version", "child_policy"});
  LevelZeroDriverSpec& z = spec.level_zero;
  if (YAML::Node v = node["default_hierarchy"]) {
    // The exact upper-case spellings ZE_FLAT_DEVICE_HIERARCHY takes.
    constexpr std::string_view kWhat = "COMPOSITE, FLAT or COMBINED (upper case)";
    const std::string text = reader.scalar(v, "level_zero.default_hierarchy", kWhat);
    if (text != "COMPOSITE" && text != "FLAT" && text != "COMBINED")
      reader.fail(v, "level_zero.default_hierarchy", kWhat, text);
    z.default_hierarchy = text;
  }
  if (YAML::Node v = node["driver_version"]) {
    z.driver_version = static_cast<std::uint32_t>(
        hex_or_decimal(reader, v, "level_zero.driver_version", 1, UINT32_MAX,
                       "a driver version from 1 to 0xffffffff, hex or decimal"));
  }
  if (YAML::Node v = node["child_policy"]) {
    // What a forked child's zeInit meets.
    constexpr std::string_view kWhat = "refuse or reinit";
    const std::string text = reader.scalar(v, "level_zero.child_policy", kWhat);
    if (text == "refuse") {
      z.child_policy = LevelZeroDriverSpec::ChildPolicy::kRefuse;
    } else if (text == "reinit") {
      z.child_policy = LevelZeroDriverSpec::ChildPolicy::kReinit;
    } else {
      reader.fail(v, "level_zero.child_policy", kWhat, text);
    }
  }
}

}  // namespace mockdev::machine_file
