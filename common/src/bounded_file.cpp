// Bounded file access (Note [Bounded readers] in accel_common/bounded_file.h).
#include "accel_common/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace accel::common {
namespace {

FileType type_of(mode_t mode) noexcept {
  if (S_ISREG(mode)) return FileType::kRegular;
  if (S_ISDIR(mode)) return FileType::kDirectory;
  if (S_ISFIFO(mode)) return FileType::kFifo;
  if (S_ISCHR(mode)) return FileType::kCharacterDevice;
  if (S_ISBLK(mode)) return FileType::kBlockDevice;
  if (S_ISSOCK(mode)) return FileType::kSocket;
  return FileType::kOther;
}

// "1.5 GiB" / "12 KiB" / "300 bytes": sizes in the user's terms.
std::string format_size(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, value == static_cast<std::uint64_t>(value) ? "%.0f %s" : "%.1f %s",
                value, kUnits[unit]);
  return buffer;
}

std::string prefix(std::string_view what, const std::string& path) {
  return std::string(what) + " '" + path + "': ";
}

std::string not_regular(std::string_view what, const std::string& path, FileType type) {
  return prefix(what, path) + "is " + describe(type) + ", not a regular file";
}

std::string too_large(std::string_view what, const std::string& path, std::uint64_t size,
                      std::uint64_t max_bytes) {
  return prefix(what, path) + "is " + format_size(size) + ", over the limit of " +
         format_size(max_bytes);
}

std::string errno_text(std::string_view what, const std::string& path, const char* verb,
                       int error) {
  return prefix(what, path) + verb + ": " + std::strerror(error);
}

// Puts the descriptor back into blocking mode (it was opened O_NONBLOCK only so that
// opening could not wait).
bool clear_nonblock(int fd) noexcept {
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0;
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

const char* describe(FileType type) noexcept {
  switch (type) {
    case FileType::kMissing:
      return "missing";
    case FileType::kRegular:
      return "a regular file";
    case FileType::kDirectory:
      return "a directory";
    case FileType::kFifo:
      return "a FIFO (named pipe)";
    case FileType::kCharacterDevice:
      return "a character device";
    case FileType::kBlockDevice:
      return "a block device";
    case FileType::kSocket:
      return "a socket";
    case FileType::kOther:
      break;
  }
  return "not a file this program can read";
}

OpenedFile open_for_reading(const std::string& path, std::uint64_t max_bytes,
                            std::string_view what) noexcept {
  OpenedFile result;
  try {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!fd) {
      const int error = errno;
      // A socket cannot be open()ed (ENXIO): name it rather than "No such device".
      struct stat st {};
      if (error == ENXIO && ::stat(path.c_str(), &st) == 0) {
        result.error = not_regular(what, path, type_of(st.st_mode));
      } else {
        result.error = errno_text(what, path, "cannot open", error);
      }
      return result;
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
      result.error = errno_text(what, path, "cannot stat", errno);
      return result;
    }
    const FileType type = type_of(st.st_mode);
    if (type != FileType::kRegular) {
      result.error = not_regular(what, path, type);
      return result;
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_bytes) {
      result.error = too_large(what, path, size, max_bytes);
      return result;
    }
    if (!clear_nonblock(fd.get())) {
      result.error = errno_text(what, path, "cannot read", errno);
      return result;
    }
    result.fd = std::move(fd);
    result.size_bytes = size;
  } catch (...) {
    result.fd = UniqueFd();
    result.error = "out of memory";
  }
  return result;
}

FileContents read_file(const std::string& path, std::uint64_t max_bytes,
                       std::string_view what) noexcept {
  FileContents result;
  try {
    OpenedFile file = open_for_reading(path, max_bytes, what);
    if (!file.ok()) {
      result.error = std::move(file.error);
      return result;
    }
    result.text.reserve(static_cast<std::size_t>(file.size_bytes));
    char buffer[1 << 16];
    std::uint64_t total = 0;
    while (true) {
      const ssize_t n = ::read(file.fd.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        result.text.clear();
        result.error = errno_text(what, path, "cannot read", errno);
        return result;
      }
      if (n == 0) break;
      total += static_cast<std::uint64_t>(n);
      if (total > max_bytes) {  // it grew while being read
        result.text.clear();
        result.error = too_large(what, path, total, max_bytes);
        return result;
      }
      result.text.append(buffer, static_cast<std::size_t>(n));
    }
  } catch (...) {
    result.text.clear();
    result.error = "out of memory";
  }
  return result;
}

std::string check_library_file(const std::string& path, std::uint64_t max_bytes,
                               std::string_view what) noexcept {
  try {
    if (path.find('/') == std::string::npos) return "";
    // Only what dlopen must not be given is refused here; a path that cannot be opened at
    // all is left to dlopen, whose own words ("cannot open shared object file: ...") say why.
    if (UniqueFd probe(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)); !probe) {
      struct stat st {};
      if (errno != ENXIO || ::stat(path.c_str(), &st) != 0) return "";
    }
    OpenedFile file = open_for_reading(path, max_bytes, what);
    return std::move(file.error);
  } catch (...) {
    return "out of memory";
  }
}

OpenedFile open_for_writing(const std::string& path, std::string_view what) noexcept {
  OpenedFile result;
  try {
    // No O_TRUNC yet: a FIFO or device must not be truncated, and a regular file is
    // truncated only once it is known to be one.
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644));
    if (!fd) {
      const int error = errno;
      struct stat st {};
      if (error == ENXIO && ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
        result.error = prefix(what, path) + "is a FIFO (named pipe) that nobody reads";
      } else if (error == ENXIO && ::stat(path.c_str(), &st) == 0) {
        result.error = prefix(what, path) + "is " + describe(type_of(st.st_mode)) +
                       ", not a file this program can write";
      } else if (error == EISDIR) {
        result.error = prefix(what, path) + "is a directory, not a regular file";
      } else {
        result.error = errno_text(what, path, "cannot open for writing", error);
      }
      return result;
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
      result.error = errno_text(what, path, "cannot stat", errno);
      return result;
    }
    const FileType type = type_of(st.st_mode);
    if (type == FileType::kRegular) {
      if (::ftruncate(fd.get(), 0) != 0) {
        result.error = errno_text(what, path, "cannot truncate", errno);
        return result;
      }
    } else if (type != FileType::kFifo && type != FileType::kCharacterDevice) {
      result.error = prefix(what, path) + "is " + describe(type) +
                     ", not a file this program can write";
      return result;
    }
    if (!clear_nonblock(fd.get())) {
      result.error = errno_text(what, path, "cannot write", errno);
      return result;
    }
    result.fd = std::move(fd);
  } catch (...) {
    result.fd = UniqueFd();
    result.error = "out of memory";
  }
  return result;
}

}  // namespace accel::common
