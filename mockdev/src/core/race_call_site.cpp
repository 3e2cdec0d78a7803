// Call sites of operations: Note [Call sites of operations] in core/race_call_site.h.

#include "core/race_call_site.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <unordered_map>

extern char** environ;

namespace mockdev::core {
namespace {

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Runs `addr2line -f -C -e object 0xaddress`; its two lines (function, file:line), or
// false when it cannot run or knows nothing (no debug info: "??").
bool addr2line(const std::string& object, std::uintptr_t address, std::string& function,
               std::string& location) {
  int fds[2];
  if (::pipe(fds) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", 0, 0);
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%zx", static_cast<std::size_t>(address));
  std::string object_arg = object;
  char tool[] = "addr2line", f[] = "-f", c[] = "-C", e[] = "-e";
  char* argv[] = {tool, f, c, e, object_arg.data(), hex, nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  std::string out;
  if (spawned == 0) {
    char buffer[1024];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      out.append(buffer, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(fds[0]);
  const std::size_t newline = out.find('\n');
  if (spawned != 0 || newline == std::string::npos) return false;
  function = out.substr(0, newline);
  location = out.substr(newline + 1, out.find('\n', newline + 1) - newline - 1);
  // "file.cpp:42 (discriminator 3)": the discriminator means nothing to a reader.
  if (const std::size_t d = location.find(" (discriminator"); d != std::string::npos) {
    location.resize(d);
  }
  return !location.empty() && location.rfind("??", 0) != 0 &&
         location.find(":?") == std::string::npos &&
         location.substr(location.size() >= 2 ? location.size() - 2 : 0) != ":0";
}

std::string describe_uncached(const void* address, bool use_addr2line) {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr) {
    return "";
  }
  // The program itself has an empty name in the link map: its file is what /proc/self/exe
  // links to (addr2line, another process, needs the path itself).
  const bool program = map->l_name == nullptr || map->l_name[0] == '\0';
  std::string path = program ? "" : map->l_name;
  if (program) {
    char target[4096];
    const ssize_t n = ::readlink("/proc/self/exe", target, sizeof target - 1);
    if (n > 0) path.assign(target, static_cast<std::size_t>(n));
  }
  const std::string object(path.empty() ? std::string_view("program") : base_name(path));
  // The call instruction is just before the return address: its line is the call's.
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  const std::uintptr_t link_address = at - static_cast<std::uintptr_t>(map->l_addr);
  std::string function, location;
  if (use_addr2line && !path.empty() && addr2line(path, link_address - 1, function, location)) {
    return location + " " + (function == "??" ? object : function);
  }
  char text[512];
  if (info.dli_sname != nullptr && info.dli_saddr != nullptr) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    std::snprintf(text, sizeof text, "%s+0x%zx (%s)",
                  status == 0 && demangled != nullptr ? demangled : info.dli_sname,
                  static_cast<std::size_t>(at - reinterpret_cast<std::uintptr_t>(info.dli_saddr)),
                  object.c_str());
    std::free(demangled);
  } else {
    std::snprintf(text, sizeof text, "%s+0x%zx", object.c_str(),
                  static_cast<std::size_t>(link_address));
  }
  return text;
}

}  // namespace

constinit thread_local const void* detail::t_caller = nullptr;
constinit thread_local const void* detail::t_api_caller = nullptr;

std::string describe_call_site(const void* return_address, bool use_addr2line) {
  if (return_address == nullptr) return "";
  // Its own lock: callers hold the engine lock, tests call it without.
  static std::mutex* mutex = new std::mutex();  // never destroyed: Note [Leaky state]
  static auto* cache = new std::unordered_map<const void*, std::string>[2];
  std::lock_guard<std::mutex> lock(*mutex);
  auto& known = cache[use_addr2line ? 1 : 0];
  if (auto it = known.find(return_address); it != known.end()) return it->second;
  std::string text = describe_uncached(return_address, use_addr2line);
  known.emplace(return_address, text);
  return text;
}

}  // namespace mockdev::core
