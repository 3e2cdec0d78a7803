#include "scenario_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "accel_common/bounded_file.h"
#include "accel_common/bounded_yaml.h"
#include "accel_common/printable.h"
#include "core/backend_registry.h"
#include "core/device_requirement.h"
#include "memory_steps.h"
#include "reader.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMaxTimeoutSeconds = 3600;

// The variables a scenario may set: the ones the runtime and the simulated driver read.
const std::vector<std::string>& environment_names() {
  static const std::vector<std::string> names = {
      "CUDA_VISIBLE_DEVICES",  "ACCEL_BACKEND",
      "ACCEL_REQUIRE_DEVICES", "ACCEL_CUDA_DRIVER",
      "ACCEL_NVML_LIBRARY",    "MOCKDEV_SCHEDULE",
      "MOCKDEV_SEED",          "MOCKDEV_RACES",
      "ZE_AFFINITY_MASK",      "ZE_FLAT_DEVICE_HIERARCHY"};
  return names;
}

// Note [Environment values are checked when read]
// The runtime and the simulated driver read these variables only once a run has started,
// and a malformed value then becomes a configuration error in the middle of a scenario
// that meant to test something else. So each value is checked here with the rule its
// reader applies, through that reader's own parser where one is reachable:
// ACCEL_REQUIRE_DEVICES with the runtime's parse_required_devices (its message),
// ACCEL_BACKEND against the runtime's compiled backends (or none; empty is unset, as for
// the runtime), MOCKDEV_SCHEDULE / MOCKDEV_SEED / MOCKDEV_RACES with mockdev's
// parse_schedule / parse_seed / parse_race_policy (an empty value means unset, as for the
// engine). CUDA_VISIBLE_DEVICES is passed as written: the driver accepts any text
// (its rules, Note [Driver visible-device rules], are what scenarios test), and so are
// ZE_AFFINITY_MASK and ZE_FLAT_DEVICE_HIERARCHY, Level Zero's twins of it, and the driver
// file variables are checked by the runtime when it loads them, which scenarios test too.
// No value may hold a NUL (Reader::environment_value, for `set_environment` steps too:
// setenv would cut the value there). Otherwise `set_environment` steps are deliberately not
// checked: they are how a scenario scripts a misconfiguration at run time.
void check_environment_value(const Reader& reader, const YAML::Node& node, const std::string& name,
                             const std::string& value) {
  const std::string path = Reader::join("environment", name);
  if (name == "MOCKDEV_SCHEDULE" && !value.empty() && !mockdev::parse_schedule(value)) {
    reader.fail(node, path, "eager, random or adversarial", value);
  }
  if (name == "MOCKDEV_RACES" && !value.empty() && !mockdev::parse_race_policy(value)) {
    reader.fail(node, path, "report, fail, abort or off", value);
  }
  if (name == "MOCKDEV_SEED" && !value.empty() && !mockdev::parse_seed(value)) {
    reader.fail(node, path, "an unsigned decimal integer from 0 to 18446744073709551615 (2^64 - 1)",
                value);
  }
  if (name == "ACCEL_REQUIRE_DEVICES") {
    const detail::Result<int> required = detail::parse_required_devices(value);
    if (!required.ok())
      reader.fail_at(Reader::line_of(node), path + ": " + required.status().message());
  }
  if (name == "ACCEL_BACKEND" && !value.empty() && value != "none") {
    const std::vector<std::string> backends = detail::compiled_backend_names();
    if (std::find(backends.begin(), backends.end(), value) == backends.end()) {
      std::string list;
      for (const std::string& b : backends) list += b + ", ";
      reader.fail(node, path, "a compiled backend (" + list + "or none)", value);
    }
  }
}

// An inline machine is machine-file text inside the scenario. It is cut out of the file
// as written (not re-emitted), so the machine reader's line numbers map back to the
// scenario's lines by one offset.
mockdev::MachineSpec inline_machine(const std::string& text, const YAML::Node& node,
                                    const Reader& reader) {
  const int first = node.Mark().line;  // 0-based
  const int column = node.Mark().column;
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string body;
  for (std::size_t i = static_cast<std::size_t>(first); i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (i == static_cast<std::size_t>(first)) {
      body += line.substr(std::min(line.size(), static_cast<std::size_t>(column))) + "\n";
      continue;
    }
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) {
      body += "\n";
      continue;
    }
    if (indent < static_cast<std::size_t>(column) && line[indent] != '#') break;  // next key
    body += (indent >= static_cast<std::size_t>(column) ? line.substr(column) : "") + "\n";
  }
  try {
    return mockdev::parse_machine(body, reader.file() + " (inline machine)");
  } catch (const mockdev::MachineFileError& e) {
    std::string message = e.what();
    const std::string prefix = e.file() + ":" + std::to_string(e.line()) + ": ";
    if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
    const int line = e.line() > 0 ? first + e.line() : first + 1;
    reader.fail_at(line, "machine." + message);
  }
}

mockdev::MachineSpec named_machine(const YAML::Node& node, const Reader& reader,
                                   std::string& machine_env) {
  const std::string value =
      reader.text(node, "machine", "a preset name, a machine file or an inline machine");
  std::string target = value;
  const bool is_path = value.find('/') != std::string::npos ||
                       (value.size() > 5 && value.substr(value.size() - 5) == ".yaml");
  if (is_path && fs::path(value).is_relative()) {
    target = (fs::path(reader.directory()) / value).lexically_normal().string();
  }
  try {
    mockdev::MachineSpec spec = mockdev::load_machine(target);
    machine_env = target;
    return spec;
  } catch (const mockdev::MachineFileError& e) {
    // A missing name lists the presets itself (mockdev's message).
    reader.fail_at(Reader::line_of(node),
                   "machine: cannot load '" + value + "': " + std::string(e.what()));
  }
}

Expectation parse_expectation(const Reader& reader, const YAML::Node& node, const std::string& path,
                              const StepKind& kind) {
  reader.require_map(node, path, "a map of value, error, message, calls, live, used_bytes, races");
  reader.check_keys(node, path,
                    {"value", "error", "message", "calls", "live", "used_bytes", "races"});
  Expectation e;
  if (node["value"]) {
    if (!kind.returns_value) {
      reader.fail(node["value"], Reader::join(path, "value"),
                  "no value: '" + kind.name + "' returns nothing (" + kind.usage + ")",
                  Reader::shown(node["value"]));
    }
    e.value = Reader::to_json(node["value"]);
    // Statistics and snapshots: keys checked now, sizes with units read as bytes.
    if (const ExpectedValueCheck* check = expected_value_check(kind.name)) {
      e.value = (*check)(reader, node["value"], Reader::join(path, "value"));
    }
  }
  if (node["error"]) {
    const std::string p = Reader::join(path, "error");
    const std::string k = reader.text(node["error"], p, "an error kind");
    const auto& names = error_kind_names();
    if (std::find(names.begin(), names.end(), k) == names.end()) {
      reader.fail(node["error"], p, "an error kind (closest: " + closest_names(k, names) + ")", k);
    }
    if (e.value) {
      reader.fail(node["error"], p,
                  "either a value or an error, never both (a step that fails "
                  "has no value)",
                  k);
    }
    e.error_kind = k;
  }
  if (node["message"]) {
    const std::string p = Reader::join(path, "message");
    if (!e.error_kind) {
      reader.fail(node["message"], p, "expect.error beside it (a message belongs to an error)",
                  Reader::shown(node["message"]));
    }
    e.message = reader.text(node["message"], p, "a message fragment");
  }
  if (const YAML::Node calls = node["calls"]) {
    const std::string p = Reader::join(path, "calls");
    reader.require_map(calls, p, "a map of entry point: count");
    for (const auto& entry : calls) {
      const std::string name = reader.entry_point(entry.first, p);
      e.calls[name] = static_cast<std::uint64_t>(
          reader.integer(entry.second, Reader::join(p, name), 0, INT64_MAX));
    }
  }
  if (const YAML::Node live = node["live"]) {
    const std::string p = Reader::join(path, "live");
    reader.require_map(live, p,
                       "a map of primary_contexts, allocations, allocated_bytes, "
                       "pending_operations, captures, graphs, graph_execs");
    reader.check_keys(live, p,
                      {"primary_contexts", "allocations", "allocated_bytes", "pending_operations",
                       "captures", "graphs", "graph_execs"});
    for (const auto& entry : live) {
      const std::string name = entry.first.Scalar();
      e.live[name] = name == "allocated_bytes"
                         ? (entry.second.IsScalar() && entry.second.Scalar() == "0"
                                ? 0
                                : reader.size(entry.second, Reader::join(p, name)))
                         : static_cast<std::uint64_t>(
                               reader.integer(entry.second, Reader::join(p, name), 0, INT64_MAX));
    }
  }
  if (node["races"]) {
    e.races = static_cast<std::uint64_t>(
        reader.integer(node["races"], Reader::join(path, "races"), 0, INT64_MAX));
  }
  if (const YAML::Node used = node["used_bytes"]) {
    const std::string p = Reader::join(path, "used_bytes");
    reader.require_map(used, p, "a map of physical device index: bytes in use");
    for (const auto& entry : used) {
      const int device = reader.physical_device(entry.first, p, false);
      const std::string q = p + "[" + std::to_string(device) + "]";
      e.used_bytes[device] = entry.second.IsScalar() && entry.second.Scalar() == "0"
                                 ? 0
                                 : reader.size(entry.second, q);
    }
  }
  return e;
}

std::string one_line(const std::string& kind, const YAML::Node& arg) {
  if (!arg.IsDefined() || arg.IsNull()) return kind;
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << arg;
  std::string text = out.c_str();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return kind + ": " + text;
}

}  // namespace

const std::vector<std::string>& error_kind_names() {
  static const std::vector<std::string> names = {
      "runtime",       "value", "type",          "index",       "driver", "unavailable", "config",
      "out_of_memory", "fork",  "deferred_call", "unsupported", "user",   "exception",   "child"};
  return names;
}

std::vector<Step> Reader::steps(const YAML::Node& node, const std::string& path,
                                const std::vector<std::string>& threads) const {
  if (!node.IsSequence()) fail(node, path, "a list of steps", shown(node));
  std::vector<Step> out;
  std::size_t index = 0;
  for (const auto& item : node) {
    const std::string p = path + "[" + std::to_string(index++) + "]";
    if (!item.IsMap() || item.size() == 0) {
      fail(item, p, "a step: a map with one step name (e.g. `- set_device_index: 1`)", shown(item));
    }
    const StepKind* kind = nullptr;
    YAML::Node arg, expect, thread;
    bool has_expect = false, has_thread = false;
    for (const auto& entry : item) {
      const YAML::Node key = entry.first;
      const std::string name = key.IsScalar() ? key.Scalar() : shown(key);
      if (name == "expect") {
        if (has_expect) fail(key, p, "each key once", name);
        expect = entry.second;
        has_expect = true;
      } else if (name == "thread") {
        if (has_thread) fail(key, p, "each key once", name);
        thread = entry.second;
        has_thread = true;
      } else if (const StepKind* k = registry_.find(name)) {
        if (kind) {
          fail(key, p, "one step per list entry (this one already has '" + kind->name + "')", name);
        }
        kind = k;
        arg = entry.second;
      } else {
        std::vector<std::string> known = registry_.names();
        known.push_back("expect");
        known.push_back("thread");
        fail(key, p, "a step name or thread/expect (closest: " + closest_names(name, known) + ")",
             name);
      }
    }
    if (!kind) {
      fail(item, p, "a step name beside thread/expect", "{...}");
    }
    Step step;
    step.kind = kind->name;
    step.file = file_;
    step.line = line_of(item);
    step.shown = one_line(kind->name, arg);
    if (has_thread) {
      const std::string tp = join(p, "thread");
      const std::string name = text(thread, tp, "a thread name");
      if (threads.empty()) {
        if (name != "main") {
          fail(thread, tp, "no thread here: nested steps run on their parent's thread", name);
        }
      } else if (std::find(threads.begin(), threads.end(), name) == threads.end()) {
        fail(thread, tp,
             "a thread named in `threads:` (closest: " + closest_names(name, threads) + ")", name);
      }
      step.thread = name;
    }
    StepArgs args{*this, arg, join(p, kind->name), threads};
    step.action = kind->parse(args);
    if (has_expect) {
      step.expect = parse_expectation(*this, expect, join(p, "expect"), *kind);
      step.has_expectation = true;
    }
    out.push_back(std::move(step));
  }
  return out;
}

void Reader::check_object_names() const {
  std::map<std::string, std::vector<std::string>> made;  // kind -> names so far
  for (const ObjectRef& ref : object_refs_) {
    std::vector<std::string>& names = made[ref.kind];
    if (ref.defines) {
      if (std::find(names.begin(), names.end(), ref.name) == names.end()) names.push_back(ref.name);
      continue;
    }
    if (std::find(names.begin(), names.end(), ref.name) != names.end()) continue;
    fail_at(ref.line, ref.path + ": expected a " + ref.kind + " made by an earlier step" +
                          (names.empty() ? std::string(" (none is made before this step)")
                                         : " (closest: " + closest_names(ref.name, names) + ")") +
                          ", got '" + ref.name + "'");
  }
}

Scenario parse_scenario(const std::string& text, const std::string& file,
                        const std::string& directory, const StepRegistry& registry,
                        const MachineChoice* choice) {
  Reader reader(file, directory, registry);
  YAML::Node root;
  try {
    root = accel::common::load_yaml(text);
  } catch (const accel::common::YamlError& e) {
    reader.fail_at(e.line(), e.what());
  }
  if (!root.IsMap()) reader.fail(root, "(document)", "a map with steps:", Reader::shown(root));
  reader.check_keys(root, "",
                    {"name", "description", "tags", "machine", "environment", "threads", "timeout",
                     "skip", "xfail", "invariants", "steps"});
  Scenario s;
  s.file = file;
  s.name = root["name"] ? reader.name(root["name"], "name", "a name")
                        : accel::common::printable(fs::path(file).stem().string());
  s.base_name = s.name;
  // pytest's markers: a reason is required, so a report says why (and a grep finds them).
  if (root["skip"]) s.skip = reader.name(root["skip"], "skip", "a reason (why it is skipped)");
  if (root["xfail"]) {
    if (s.skip) {
      reader.fail(root["xfail"], "xfail",
                  "either skip or xfail, never both (a skipped scenario "
                  "never runs, so it cannot fail)",
                  "xfail");
    }
    s.xfail = reader.name(root["xfail"], "xfail", "a reason (why it is expected to fail)");
  }
  if (root["description"]) {
    s.description = reader.scalar(root["description"], "description", "a text");
  }
  if (const YAML::Node tags = root["tags"]) {
    if (!tags.IsSequence())
      reader.fail(tags, "tags", "a list of tags (e.g. [sweep])", Reader::shown(tags));
    for (const auto& t : tags) s.tags.push_back(reader.name(t, "tags", "a tag"));
  }
  const YAML::Node machine = root["machine"];
  if (!machine) {
    reader.fail_at(Reader::line_of(root),
                   "machine: expected a preset name, a machine file or an "
                   "inline machine (required), got ''");
  }
  if (machine.IsMap()) {
    s.machine = inline_machine(text, machine, reader);
  } else {
    s.machine = named_machine(machine, reader, s.machine_env);
  }
  if (choice != nullptr) {
    s.machine = choice->spec;
    s.machine_env = choice->env;
    s.machine_id = choice->id;
    s.name += "[" + choice->id + "]";
  }
  reader.set_machine(&s.machine);
  if (const YAML::Node env = root["environment"]) {
    reader.require_map(env, "environment", "a map of variable: value (null unsets it)");
    reader.check_keys(env, "environment", environment_names());
    for (const auto& entry : env) {
      const std::string name = entry.first.Scalar();
      if (entry.second.IsNull()) {
        s.environment[name] = std::nullopt;
      } else {
        s.environment[name] =
            reader.environment_value(entry.second, Reader::join("environment", name));
        check_environment_value(reader, entry.second, name, *s.environment[name]);
      }
    }
  }
  s.threads.push_back("main");
  if (const YAML::Node threads = root["threads"]) {
    if (!threads.IsSequence()) {
      reader.fail(threads, "threads", "a list of thread names", Reader::shown(threads));
    }
    for (const auto& t : threads) {
      const std::string name = reader.name(t, "threads", "a thread name");
      if (std::find(s.threads.begin(), s.threads.end(), name) != s.threads.end()) {
        reader.fail(t, "threads", "each name once (main always exists)", name);
      }
      s.threads.push_back(name);
    }
  }
  if (root["timeout"]) {
    s.timeout_seconds =
        static_cast<int>(reader.integer(root["timeout"], "timeout", 1, kMaxTimeoutSeconds));
  }
  if (const YAML::Node invariants = root["invariants"]) {
    // One name or a list of them.
    std::vector<YAML::Node> names;
    if (invariants.IsSequence()) {
      for (const auto& item : invariants) names.push_back(item);
    } else {
      names.push_back(invariants);
    }
    for (const YAML::Node& item : names) {
      const std::string name = reader.text(item, "invariants", "an invariant set");
      const auto& known = invariant_names();
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        reader.fail(item, "invariants",
                    "memory_stats (the allocator's invariants, checked after every step)", name);
      }
      s.invariants.push_back(name);
    }
  }
  const YAML::Node steps = root["steps"];
  if (!steps)
    reader.fail_at(Reader::line_of(root), "steps: expected a list of steps (required), got ''");
  s.steps = reader.steps(steps, "steps", s.threads);
  if (s.steps.empty()) reader.fail(steps, "steps", "at least one step", "[]");
  reader.check_object_names();
  return s;
}

Scenario load_scenario(const std::string& path, const StepRegistry& registry,
                       const MachineChoice* machine) {
  // Note [Bounded readers]: a FIFO, a device or a huge file is refused before any parse.
  accel::common::FileContents contents =
      accel::common::read_file(path, accel::common::kMaxScenarioFileBytes, "scenario file");
  if (!contents.ok()) throw ScenarioError(path, 0, contents.error);
  const std::string directory = fs::path(path).parent_path().string();
  return parse_scenario(contents.text, path, directory.empty() ? "." : directory, registry,
                        machine);
}

std::vector<std::string> collect_scenario_files(const std::vector<std::string>& paths) {
  std::set<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::size_t found = 0;
      for (auto it = fs::recursive_directory_iterator(p, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_directory() && it->path().filename() == "machines") {
          it.disable_recursion_pending();
          continue;
        }
        // Every *.yaml that is not a directory, whatever it is: load_scenario refuses a
        // FIFO or a device with a message instead of skipping it quietly.
        if (!it->is_directory() && it->path().extension() == ".yaml") {
          files.insert(it->path().lexically_normal().string());
          ++found;
        }
      }
      if (found == 0) {
        throw ScenarioError(p, 0, "scenario directory '" + p + "': has no scenario files (*.yaml)");
      }
      continue;
    }
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
      throw ScenarioError(p, 0, "scenario file '" + p + "': no such file or directory");
    }
    // Anything else that exists is read (and refused, if it is not a regular file, by
    // load_scenario).
    files.insert(fs::path(p).lexically_normal().string());
  }
  return {files.begin(), files.end()};
}

}  // namespace accel::scenario
