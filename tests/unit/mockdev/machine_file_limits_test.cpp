// Reading a machine file from disk: only a regular file of at most kMaxMachineFileBytes is
// read, so a device (/dev/zero), a FIFO without a writer or a huge file gives an error
// naming the path instead of exhausting memory or blocking the process.

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
            "/dev/zero: machine: expected a regular file, got '/dev/zero' (a character device)");
}

TEST_F(MockMachineFileLimits, AFifoWithoutAWriterIsRejectedWithoutBlocking) {
  std::string path = (dir_ / "fifo.yaml").string();
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(error_of(path),
            path + ": machine: expected a regular file, got '" + path + "' (a FIFO)");
}

TEST_F(MockMachineFileLimits, ADirectoryIsRejected) {
  EXPECT_EQ(error_of(dir_.string()), dir_.string() + ": machine: expected a regular file, got '" +
                                         dir_.string() + "' (a directory)");
}

TEST_F(MockMachineFileLimits, AFileAtTheLimitIsReadAndOneByteMoreIsNot) {
  std::string text(kMachine);
  std::string padded = text + std::string(kMaxMachineFileBytes - text.size() - 1, '#') + "\n";
  ASSERT_EQ(padded.size(), kMaxMachineFileBytes);
  EXPECT_EQ(load_machine(write("limit.yaml", padded)).devices.size(), 1u);
  std::string big = write("big.yaml", padded + "\n");
  EXPECT_EQ(error_of(big), big +
                               ": machine: expected a file of at most 1048576 bytes (1 MiB), "
                               "got '" +
                               big + "' (1048577 bytes)");
}

// A missing file says so, with its path, and names no line (a file-level error has none).
TEST_F(MockMachineFileLimits, AMissingFileSaysNoSuchFile) {
  std::string path = (dir_ / "missing.yaml").string();
  EXPECT_EQ(error_of(path), path +
                                ": machine: expected a machine file or a preset (4xh100, 8xh100, "
                                "2xa100, 1xa100, mixed, none, 2xmax1550, laptop_igpu, mixed_vendors), got '" +
                                path + "' (no such file)");
  // A path through something that is not a directory is missing too (ENOTDIR).
  std::string through_file = write("plain.yaml", "x") + "/machine.yaml";
  EXPECT_EQ(error_of(through_file), through_file +
                                        ": machine: expected a machine file or a preset (4xh100, "
                                        "8xh100, 2xa100, 1xa100, mixed, none, 2xmax1550, laptop_igpu, mixed_vendors), got '" +
                                        through_file + "' (no such file)");
}

TEST_F(MockMachineFileLimits, FileLevelErrorsHaveLineZeroAndNoLineInTheMessage) {
  try {
    load_machine("no/such.yaml");
    FAIL() << "no error";
  } catch (const MachineFileError& e) {
    EXPECT_EQ(e.file(), "no/such.yaml");
    EXPECT_EQ(e.line(), 0);
    EXPECT_STREQ(e.what(),
                 "no/such.yaml: machine: expected a machine file or a preset (4xh100, 8xh100, "
                 "2xa100, 1xa100, mixed, none, 2xmax1550, laptop_igpu, mixed_vendors), got 'no/such.yaml' (no such file)");
  }
}

}  // namespace
}  // namespace mockdev
