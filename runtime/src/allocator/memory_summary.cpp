// torch.cuda.memory_summary()'s table (torch/cuda/memory.py), built from flat statistics:
// the same rows, columns, widths and unit steps, so a user who reads PyTorch's summary
// reads this one. Pure formatting: it reads nothing but the map it is given, so a dumped
// snapshot's statistics format the same way as live ones.
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "accel/error.h"
#include "accel/memory.h"

namespace accel {
namespace {

constexpr std::size_t kWidth = 75;  // every line between the outer bars

std::int64_t stat(const MemoryStats& stats, const std::string& key) {
  const auto it = stats.find(key);
  if (it == stats.end()) {
    throw Error(ErrorKind::kValue, "memory_summary: the statistics have no key '" + key +
                                       "' (expected the 122 keys of memory_stats())");
  }
  return it->second;
}

// Note [Summary units]
// PyTorch picks a column's unit from the pool-wide value (`pref`) of the same column, so the
// "from large pool" and "from small pool" rows share the "all" row's unit: the unit steps up
// while the reference is at least 768 (KiB..PiB, by 1024) or 750,000 (K, M, by 1000), and
// the value is divided with floor division at each step (Python's //, which rounds toward
// negative infinity; statistics are never negative, so C++'s division agrees).
std::string format_size(std::int64_t bytes, double reference) {
  static constexpr const char* kUnits[] = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && reference >= 768 * 1024) {
    ++unit;
    bytes /= 1024;
    reference /= 1024;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%6lld %s", static_cast<long long>(bytes), kUnits[unit]);
  return text;
}

std::string format_count(std::int64_t count, double reference) {
  static constexpr const char* kUnits[] = {" ", "K", "M"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && reference >= 750 * 1000) {
    ++unit;
    count /= 1000;
    reference /= 1000;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%7lld %s ", static_cast<long long>(count), kUnits[unit]);
  return text;
}

using Formatter = std::string (*)(std::int64_t, double);

// "text" padded with spaces on the right to `width` (Python's {:<width}); longer text is
// kept whole, as Python's format does.
std::string left(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string row(std::string_view name, const std::string (&cells)[4]) {
  return " " + left(std::string(name), 21) + " | " + cells[0] + " | " + cells[1] + " | " +
         cells[2] + " | " + cells[3] + " ";
}

}  // namespace

std::string format_memory_summary(const MemoryStats& stats, int device, bool abbreviated) {
  struct Metric {
    const char* key;
    const char* name;
    Formatter format;
  };
  static constexpr Metric kPooled[] = {
      {"allocated_bytes", "Allocated memory", format_size},
      {"active_bytes", "Active memory", format_size},
      {"requested_bytes", "Requested memory", format_size},
      {"reserved_bytes", "GPU reserved memory", format_size},
      {"inactive_split_bytes", "Non-releasable memory", format_size},
      {"allocation", "Allocations", format_count},
      {"active", "Active allocs", format_count},
      {"segment", "GPU reserved segments", format_count},
      {"inactive_split", "Non-releasable allocs", format_count},
  };
  static constexpr Metric kOversize[] = {
      {"oversize_allocations", "Oversize allocations", format_count},
      {"oversize_segments", "Oversize GPU segments", format_count},
  };
  static constexpr const char* kFields[] = {"current", "peak", "allocated", "freed"};

  std::vector<std::string> lines;
  const std::string heavy(kWidth, '=');
  const std::string light(kWidth, '-');
  lines.push_back(heavy);
  lines.push_back(std::string(17, ' ') + " PyTorch CUDA memory summary, device ID " +
                  left(std::to_string(device), 17) + " ");
  lines.push_back(light);
  // Read in the table's order, so a missing key is always the first one the table needs.
  const std::int64_t ooms = stat(stats, "num_ooms");
  const std::int64_t retries = stat(stats, "num_alloc_retries");
  lines.push_back("  " + std::string(9, ' ') + " CUDA OOMs: " + left(std::to_string(ooms), 12) +
                  " | " + std::string(6, ' ') +
                  " cudaMalloc retries: " + left(std::to_string(retries), 8) + "  ");
  lines.push_back(heavy);
  lines.push_back("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");

  for (const Metric& metric : kPooled) {
    lines.push_back(light);
    std::vector<std::pair<const char*, const char*>> pools = {{"all", metric.name}};
    if (!abbreviated) {
      pools.emplace_back("large_pool", "      from large pool");
      pools.emplace_back("small_pool", "      from small pool");
    }
    double reference[4] = {};  // the "all" row's values choose every row's units
    for (std::size_t p = 0; p < pools.size(); ++p) {
      const std::string prefix = std::string(metric.key) + "." + pools[p].first + ".";
      std::string cells[4];
      for (std::size_t f = 0; f < 4; ++f) {
        const std::int64_t value = stat(stats, prefix + kFields[f]);
        if (p == 0) reference[f] = static_cast<double>(value);
        cells[f] = metric.format(value, reference[f]);
      }
      lines.push_back(row(pools[p].second, cells));
    }
  }
  for (const Metric& metric : kOversize) {
    lines.push_back(light);
    const std::string prefix = std::string(metric.key) + ".";
    std::string cells[4];
    for (std::size_t f = 0; f < 4; ++f) {
      const std::int64_t value = stat(stats, prefix + kFields[f]);
      cells[f] = metric.format(value, static_cast<double>(value));
    }
    lines.push_back(row(metric.name, cells));
  }
  lines.push_back(heavy);

  std::string out;
  for (const std::string& line : lines) out += "|" + line + "|\n";
  return out;
}

}  // namespace accel
