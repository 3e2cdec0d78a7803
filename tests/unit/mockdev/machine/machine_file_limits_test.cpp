// Reading a machine file from disk (through accel::common::read_file, Note [Bounded
// readers]): only a regular file of at most kMaxMachineFileBytes is read, so a device
// (/dev/zero), a FIFO without a writer or a huge file gives an error naming the path and
// what it is instead of exhausting memory or blocking the process.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "mockdev/machine.h"

namespace mockdev {
namespace {

constexpr std::string_view kMachine =
    "name: x\ndevices:\n  - {name: a, memory: 1, compute_capability: '9.0', multiprocessors: 1}\n";

class MockMachineFileLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "mockdev_limits_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  static std::string error_of(const std::string& path) {
    try {
      load_machine(path);
    } catch (const MachineFileError& e) {
      return e.what();
    }
    return "(no error)";
  }

  std::filesystem::path dir_;
};

TEST_F(MockMachineFileLimits, ACharacterDeviceIsRejected) {
  EXPECT_EQ(error_of("/dev/zero"),
            "machine file '/dev/zero': is a character device, not a regular file");
}

TEST_F(MockMachineFileLimits, AFifoWithoutAWriterIsRejectedWithoutBlocking) {
  std::string path = (dir_ / "fifo.yaml").string();
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(error_of(path),
            "machine file '" + path + "': is a FIFO (named pipe), not a regular file");
}

TEST_F(MockMachineFileLimits, ADirectoryIsRejected) {
  EXPECT_EQ(error_of(dir_.string()),
            "machine file '" + dir_.string() + "': is a directory, not a regular file");
}

TEST_F(MockMachineFileLimits, AFileAtTheLimitIsReadAndOneByteMoreIsNot) {
  // Padded with comment lines (the YAML loader's lookahead does not count them, Note
  // [Bounded YAML]), so the file is a valid machine of exactly the limit.
  std::string text(kMachine);
  const std::size_t lines = (kMaxMachineFileBytes - text.size()) / 64;
  for (std::size_t i = 0; i < lines; ++i) text += "#" + std::string(62, '-') + "\n";
  text += "#" + std::string(kMaxMachineFileBytes - text.size() - 2, '-') + "\n";
  ASSERT_EQ(text.size(), kMaxMachineFileBytes);
  EXPECT_EQ(load_machine(write("limit.yaml", text)).devices.size(), 1u);
  std::string big = write("big.yaml", text + "\n");
  EXPECT_EQ(error_of(big),
            "machine file '" + big + "': is 1.0 MiB, over the limit of 1 MiB");
}

// A missing file says so, with its path and the presets (a name without '/' may have been
// meant as one), and names no line (a file-level error has none).
TEST_F(MockMachineFileLimits, AMissingFileSaysNoSuchFile) {
  const std::string presets =
      "4xh100, 8xh100, 2xa100, 1xa100, mixed, none, 2xmax1550, laptop_igpu, mixed_vendors";
  std::string path = (dir_ / "missing.yaml").string();
  EXPECT_EQ(error_of(path), "machine file '" + path + "': no such file (presets: " + presets + ")");
  // A path through something that is not a directory is missing too (ENOTDIR).
  std::string through_file = write("plain.yaml", "x") + "/machine.yaml";
  EXPECT_EQ(error_of(through_file),
            "machine file '" + through_file + "': no such file (presets: " + presets + ")");
  EXPECT_EQ(error_of("4xh10"),
            "machine '4xh10': no such preset or file (presets: " + presets + ")");
}

TEST_F(MockMachineFileLimits, FileLevelErrorsHaveLineZeroAndNameTheFileOnce) {
  try {
    load_machine("no/such.yaml");
    FAIL() << "no error";
  } catch (const MachineFileError& e) {
    EXPECT_EQ(e.file(), "no/such.yaml");
    EXPECT_EQ(e.line(), 0);
    EXPECT_STREQ(e.what(),
                 "machine file 'no/such.yaml': no such file (presets: 4xh100, 8xh100, 2xa100, "
                 "1xa100, mixed, none, 2xmax1550, laptop_igpu, mixed_vendors)");
  }
}

}  // namespace
}  // namespace mockdev
