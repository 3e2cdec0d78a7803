#pragma once
// Bounded file access: the one way the project opens a file whose path a user chose
// (a machine file, a scenario, a replay trace, a trace or report to write, a driver library
// to dlopen).
//
// Note [Bounded readers]
// A path from the command line or the environment can name anything: a FIFO (opening it for
// reading blocks until a writer appears, so a program "hangs" on a typo'd path), a
// character device (/dev/zero reads forever, /dev/random likewise), a directory (reads fail
// oddly, "empty file"), or a regular file far larger than anything the reader expects. Every
// reader therefore goes through this helper, which
//   1. opens the path with O_NONBLOCK (opening never waits for a FIFO's other end),
//   2. fstat()s the descriptor it opened (so the check and the read see the same file),
//   3. accepts only a regular file no larger than the caller's limit, naming what the path
//      is otherwise ("is a FIFO (named pipe), not a regular file"),
//   4. and reads at most the limit plus one byte (a file that grows while being read is
//      still refused rather than read without end).
// A file to be dlopen()ed is checked the same way first (dlopen itself would block on a
// FIFO); a bare library name without '/' is the dynamic linker's search and is not checked.
// Writers open with O_NONBLOCK too: a regular file is created or truncated; a FIFO is
// accepted only when a reader is already there (`MOCKDEV_TRACE=/dev/stdout ... | jq` works, a
// FIFO nobody reads is an error instead of a hang); a character device (/dev/null, a
// terminal) is used as it is; anything else (a directory, a socket) is refused.
//
// Messages: "<what> '<path>': <problem>", where <what> is the caller's label (a variable
// name such as "MOCKDEV_MACHINE", or "scenario file", "trace").
// Thread safety: every function is reentrant. Nothing here throws: errors are values, and a
// function that cannot even build its message returns "out of memory".

#include <cstdint>
#include <string>
#include <string_view>

namespace accel::common {

// The limits, in one place so that docs and tests cite the same numbers.
inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxMachineFileBytes = 1 * kMiB;   // a machine file (YAML)
inline constexpr std::uint64_t kMaxScenarioFileBytes = 4 * kMiB;  // a scenario file (YAML)
inline constexpr std::uint64_t kMaxLibraryBytes = 4 * kGiB;       // a driver library to dlopen
inline constexpr std::uint64_t kMaxTraceFileBytes = 64 * kGiB;    // a replay trace (streamed)

// An owned file descriptor (-1: none). Move-only; closes on destruction.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// What a path names, as fstat/stat sees it.
enum class FileType {
  kMissing,
  kRegular,
  kDirectory,
  kFifo,
  kCharacterDevice,
  kBlockDevice,
  kSocket,
  kOther,
};

// "a regular file", "a directory", "a FIFO (named pipe)", "a character device", ...
const char* describe(FileType type) noexcept;

struct OpenedFile {
  UniqueFd fd;                 // open, blocking mode restored; empty on error
  std::uint64_t size_bytes = 0;  // the regular file's size when opened (readers only)
  std::string error;           // empty on success
  bool ok() const noexcept { return error.empty(); }
};

struct FileContents {
  std::string text;   // the whole file; empty on error
  std::string error;  // empty on success
  bool ok() const noexcept { return error.empty(); }
};

// Opens `path` for reading (Note [Bounded readers]): a regular file of at most `max_bytes`.
OpenedFile open_for_reading(const std::string& path, std::uint64_t max_bytes,
                            std::string_view what) noexcept;

// Reads the whole of `path`, a regular file of at most `max_bytes`.
FileContents read_file(const std::string& path, std::uint64_t max_bytes,
                       std::string_view what) noexcept;

// For a library about to be dlopen()ed: the reason when `path` names what dlopen must not be
// given (a FIFO, a device, a directory, a socket, a regular file over `max_bytes`); "" for a
// bare name (no '/': the dynamic linker searches for it), a regular file within the limit,
// or a path that cannot be opened at all (dlopen's own error then says why). Follows
// symbolic links, as dlopen does.
std::string check_library_file(const std::string& path, std::uint64_t max_bytes,
                               std::string_view what) noexcept;

// Opens `path` for writing without blocking (Note [Bounded readers]): creates or truncates a
// regular file (mode 0644 before the umask), or opens a FIFO that has a reader, or a
// character device.
OpenedFile open_for_writing(const std::string& path, std::string_view what) noexcept;

}  // namespace accel::common
