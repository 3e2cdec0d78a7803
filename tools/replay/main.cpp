// accel-replay: replays a PyTorch memory snapshot's or an RMM log's allocation events
// against the caching allocator on a simulated device (docs/REPLAY.md). Users reach it as
// `accel replay ...`: the `accel` tool execs this program, which links the allocator's
// private parts and the machine-file reader, so that `accel` itself does not.
//
//   accel-replay TRACE [--capacity SIZE | --machine PRESET|FILE] [--device I]
//                [--config CONF | --compare CONF...] [--find-min-capacity] [--json]
//                [--progress | --no-progress]
//   accel-replay --memory-summary SNAPSHOT [--device I] [--abbreviated]
//                (`accel memory-summary ...`: snapshot_summary.h)
//
// Exit status: 0 every replay ran without running out of memory, 1 one ran out of memory
// (or the allocator failed otherwise), 2 bad input: usage, a malformed trace, a bad
// allocator setting or machine file.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>

#include "accel/error.h"
#include "accel_common/numbers.h"
#include "mockdev/machine.h"
#include "replay.h"
#include "report.h"
#include "snapshot_summary.h"
#include "trace.h"

namespace {

using namespace accel::replay;

constexpr int kExitOk = 0;
constexpr int kExitOom = 1;
constexpr int kExitBadInput = 2;

struct BadInput {
  std::string message;
};

// A one-line bar on stderr, redrawn when the percentage changes.
class ProgressBar {
 public:
  explicit ProgressBar(std::string label) : label_(std::move(label)) {}
  void operator()(std::uint64_t done, std::uint64_t total) {
    const int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
    if (percent == last_) return;
    last_ = percent;
    const int filled = percent / 5;
    std::fprintf(stderr, "\r%s [%s%s] %3d%% %llu/%llu events", label_.c_str(),
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(20 - filled), ' ').c_str(), percent,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    if (done == total) std::fputc('\n', stderr);
    std::fflush(stderr);
  }

 private:
  std::string label_;
  int last_ = -1;
};

accel::detail::alloc::AllocatorConfig parse_config(const std::string& text,
                                                   std::string_view source) {
  auto parsed = accel::detail::alloc::parse_allocator_config(text, source);
  if (!parsed.ok()) throw BadInput{parsed.status().message()};
  return std::move(parsed).value();
}

std::uint64_t machine_capacity(const std::string& machine, int device) {
  try {
    const mockdev::MachineSpec spec = mockdev::load_machine(machine);
    if (spec.devices.empty()) throw BadInput{fmt::format("--machine {}: the machine has no devices", machine)};
    if (device < 0 || static_cast<std::size_t>(device) >= spec.devices.size()) {
      throw BadInput{fmt::format("--device {}: machine {} has {} device{}", device, machine,
                                 spec.devices.size(), spec.devices.size() == 1 ? "" : "s")};
    }
    return spec.devices[static_cast<std::size_t>(device)].memory_bytes;
  } catch (const mockdev::MachineFileError& e) {
    throw BadInput{fmt::format("--machine {}: {}", machine, e.what())};
  }
}

// --device's value, read strictly and said in the user's terms (CLI11's own range check
// prints floating-point bounds).
int parse_device(const std::string& text) {
  const auto value = accel::common::parse_unsigned_decimal(text);
  if (!value || *value > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw BadInput{fmt::format("--device expects a device index from 0 to {}, got '{}'",
                               std::numeric_limits<int>::max(), text)};
  }
  return static_cast<int>(*value);
}

// `accel memory-summary SNAPSHOT [--device I] [--abbreviated]`. Exit status: 0 printed, 2
// bad input (usage, a file that is not a readable snapshot).
int memory_summary_main(int argc, char** argv) {
  CLI::App app{"accel memory-summary: PyTorch's memory_summary() table for a dumped memory "
               "snapshot (JSON)",
               "accel memory-summary"};
  std::string path;
  std::string device_text = "0";
  bool abbreviated = false;
  app.add_option("snapshot", path, "the snapshot: accel::memory_snapshot_json, or a PyTorch "
                                   "snapshot converted to JSON")
      ->required();
  app.add_option("--device", device_text, "the device whose segments and trace to read "
                                          "(default 0)")
      ->type_name("I");
  app.add_flag("--abbreviated", abbreviated, "only the rows over both pools, as "
                                             "memory_summary(abbreviated=True)");
  app.footer("exit status: 0 printed, 2 bad input (usage, a malformed snapshot)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "accel memory-summary: " << e.what()
              << "\nRun 'accel memory-summary --help' for usage.\n";
    return kExitBadInput;
  }
  try {
    const int device = parse_device(device_text);
    const SnapshotSummary summary = summarize_snapshot_file(path, device);
    std::cout << render_snapshot_summary(summary, path, device, abbreviated);
    return kExitOk;
  } catch (const TraceError& e) {
    std::cerr << "accel memory-summary: " << e.what() << '\n';
  } catch (const BadInput& e) {
    std::cerr << "accel memory-summary: " << e.message << '\n';
  }
  return kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--memory-summary") {
    return memory_summary_main(argc - 1, argv + 1);
  }
  CLI::App app{"accel replay: replay a memory trace (PyTorch snapshot JSON or RMM log CSV) "
               "against the caching allocator on a simulated device",
               "accel replay"};
  std::string path;
  std::optional<std::string> capacity_text, machine, config_text;
  std::vector<std::string> compare;
  int device = 0;
  bool find_min = false, json = false, progress = false, no_progress = false;
  app.add_option("trace", path, "the trace: a PyTorch snapshot (JSON) or an RMM log (CSV)")
      ->required();
  auto* capacity_option =
      app.add_option("--capacity", capacity_text, "device memory, e.g. 16GiB, 512MiB, 1073741824")
          ->type_name("SIZE");
  app.add_option("--machine", machine,
                 "take the capacity from a simulated machine (preset or file; default " +
                     std::string(mockdev::kDefaultPreset) + ")")
      ->type_name("PRESET|FILE")
      ->excludes(capacity_option);
  std::optional<std::string> device_text;
  app.add_option("--device", device_text,
                 "the snapshot's device_traces entry, and the machine's device (default 0)")
      ->type_name("I");
  auto* config_option =
      app.add_option("--config", config_text, "allocator settings, ACCEL_ALLOC_CONF syntax")
          ->type_name("CONF");
  app.add_option("--compare", compare,
                 "replay once per setting and print one table (\"\" = the defaults)")
      ->type_name("CONF...")
      ->expected(1, -1)
      ->excludes(config_option);
  app.add_flag("--find-min-capacity", find_min,
               "find the smallest capacity (a multiple of 2 MiB) that runs without OOM (bisection, "
               "then the capacities below its answer in order: OOM is not monotone)");
  app.add_flag("--json", json, "print the report as JSON");
  auto* progress_flag = app.add_flag("--progress", progress, "draw the progress bar even when "
                                                             "stderr is not a terminal");
  app.add_flag("--no-progress", no_progress, "never draw the progress bar")->excludes(progress_flag);
  app.footer(
      "exit status: 0 no replay ran out of memory, 1 a replay ran out of memory, 2 bad input "
      "(usage, a malformed trace, a bad setting or machine file)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "accel replay: " << e.what() << "\nRun 'accel replay --help' for usage.\n";
    return kExitBadInput;
  }

  try {
    if (device_text) device = parse_device(*device_text);
    const bool show_progress = !no_progress && (progress || isatty(STDERR_FILENO) != 0);
    std::vector<std::string> configs = compare.empty()
                                           ? std::vector<std::string>{config_text.value_or("")}
                                           : compare;
    std::vector<accel::detail::alloc::AllocatorConfig> parsed;
    for (const std::string& c : configs) {
      parsed.push_back(parse_config(c, compare.empty() ? "--config" : "--compare"));
    }
    std::optional<std::uint64_t> capacity;
    if (capacity_text) {
      capacity = parse_size(*capacity_text);
      if (!capacity || *capacity == 0) {
        throw BadInput{fmt::format("--capacity: expected a size in bytes above 0 (e.g. 16GiB, "
                                   "512MiB, 1073741824), got '{}'",
                                   *capacity_text)};
      }
    } else if (machine || !find_min) {
      capacity = machine_capacity(machine.value_or(std::string(mockdev::kDefaultPreset)),
                                  machine ? device : 0);
    }

    const Trace trace = read_trace(path, device);
    std::vector<RunReport> runs;
    bool any_oom = false;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      RunReport run;
      run.config = configs[i];
      ReplayOptions options;
      options.config = parsed[i];
      if (find_min) run.min_capacity = find_min_capacity(trace, options);
      run.capacity = capacity ? *capacity : run.min_capacity ? run.min_capacity->capacity : 0;
      options.capacity = run.capacity;
      ProgressBar bar(configs.size() == 1 ? "accel replay"
                                          : fmt::format("accel replay ({})", run.config));
      if (show_progress) options.progress = std::ref(bar);
      run.result = run_replay(trace, options);
      any_oom = any_oom || run.result.oom.has_value();
      runs.push_back(std::move(run));
    }
    if (json) {
      render_json(trace, kDefaultGranularity, runs, !compare.empty(), std::cout);
    } else if (compare.empty()) {
      render_text(trace, kDefaultGranularity, runs.front(), std::cout);
    } else {
      render_compare(trace, kDefaultGranularity, runs, std::cout);
    }
    return any_oom ? kExitOom : kExitOk;
  } catch (const TraceError& e) {
    std::cerr << "accel replay: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const BadInput& e) {
    std::cerr << "accel replay: " << e.message << '\n';
    return kExitBadInput;
  } catch (const accel::Error& e) {
    std::cerr << "accel replay: the allocator failed: " << e.what() << '\n';
    return e.kind() == accel::ErrorKind::kConfig ? kExitBadInput : kExitOom;
  } catch (const std::exception& e) {
    std::cerr << "accel replay: " << e.what() << '\n';
    return kExitOom;
  }
}
