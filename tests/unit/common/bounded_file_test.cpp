// Note [Bounded readers]: every kind of path a user can name, against the real file system.
#include "accel_common/bounded_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace accel::common {
namespace {

namespace fs = std::filesystem;

class BoundedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/accel_bounded_file_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  std::string fifo(const std::string& name) const {
    EXPECT_EQ(mkfifo(path(name).c_str(), 0600), 0);
    return path(name);
  }

  fs::path dir_;
};

TEST_F(BoundedFileTest, ReadsARegularFileWithinTheLimit) {
  const std::string file = write("machine.yaml", "devices: []\n");
  FileContents contents = read_file(file, 12, "MOCKDEV_MACHINE");
  ASSERT_TRUE(contents.ok()) << contents.error;
  EXPECT_EQ(contents.text, "devices: []\n");
}

TEST_F(BoundedFileTest, ReadsAnEmptyFile) {
  const std::string file = write("empty.yaml", "");
  FileContents contents = read_file(file, 10, "scenario file");
  ASSERT_TRUE(contents.ok()) << contents.error;
  EXPECT_EQ(contents.text, "");
}

TEST_F(BoundedFileTest, RefusesAFileOverTheLimitNamingBothSizes) {
  const std::string file = write("big.yaml", std::string(2048, 'x'));
  FileContents contents = read_file(file, 1024, "scenario file");
  EXPECT_FALSE(contents.ok());
  EXPECT_EQ(contents.error, "scenario file '" + file +
                                "': is 2 KiB, over the limit of 1 KiB");
  EXPECT_EQ(contents.text, "");
}

TEST_F(BoundedFileTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string pipe = fifo("trace.json");
  FileContents contents = read_file(pipe, 1024, "trace");
  EXPECT_EQ(contents.error, "trace '" + pipe + "': is a FIFO (named pipe), not a regular file");
}

TEST_F(BoundedFileTest, ACharacterDeviceIsRefused) {
  FileContents contents = read_file("/dev/zero", kMaxTraceFileBytes, "trace");
  EXPECT_EQ(contents.error, "trace '/dev/zero': is a character device, not a regular file");
}

TEST_F(BoundedFileTest, ADirectoryIsRefused) {
  FileContents contents = read_file(dir_.string(), 1024, "MOCKDEV_MACHINE");
  EXPECT_EQ(contents.error,
            "MOCKDEV_MACHINE '" + dir_.string() + "': is a directory, not a regular file");
}

TEST_F(BoundedFileTest, AMissingFileNamesTheSystemError) {
  const std::string missing = path("missing.yaml");
  FileContents contents = read_file(missing, 1024, "scenario file");
  EXPECT_EQ(contents.error,
            "scenario file '" + missing + "': cannot open: No such file or directory");
}

TEST_F(BoundedFileTest, ASocketIsNamed) {
  const std::string socket_path = path("s");
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  socket_path.copy(address.sun_path, sizeof(address.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  FileContents contents = read_file(socket_path, 1024, "trace");
  close(fd);
  EXPECT_EQ(contents.error, "trace '" + socket_path + "': is a socket, not a regular file");
}

TEST_F(BoundedFileTest, LibraryCheckSkipsBareNamesAndChecksPaths) {
  EXPECT_EQ(check_library_file("libcuda.so.1", kMaxLibraryBytes, "ACCEL_CUDA_DRIVER"), "");
  const std::string pipe = fifo("libcuda.so.1");
  EXPECT_EQ(check_library_file(pipe, kMaxLibraryBytes, "ACCEL_CUDA_DRIVER"),
            "ACCEL_CUDA_DRIVER '" + pipe + "': is a FIFO (named pipe), not a regular file");
  const std::string file = write("lib.so", "not elf");
  EXPECT_EQ(check_library_file(file, kMaxLibraryBytes, "ACCEL_CUDA_DRIVER"), "");
  EXPECT_EQ(check_library_file(file, 3, "ACCEL_CUDA_DRIVER"),
            "ACCEL_CUDA_DRIVER '" + file + "': is 7 bytes, over the limit of 3 bytes");
  // What cannot be opened at all is left to dlopen, which names the problem itself.
  EXPECT_EQ(check_library_file(path("missing.so"), kMaxLibraryBytes, "ACCEL_CUDA_DRIVER"), "");
  EXPECT_EQ(check_library_file(dir_.string(), kMaxLibraryBytes, "ACCEL_CUDA_DRIVER"),
            "ACCEL_CUDA_DRIVER '" + dir_.string() + "': is a directory, not a regular file");
}

TEST_F(BoundedFileTest, LibraryCheckFollowsSymbolicLinks) {
  const std::string target = fifo("real");
  fs::create_symlink(target, path("link.so"));
  EXPECT_EQ(check_library_file(path("link.so"), kMaxLibraryBytes, "ACCEL_NVML_LIBRARY"),
            "ACCEL_NVML_LIBRARY '" + path("link.so") +
                "': is a FIFO (named pipe), not a regular file");
}

TEST_F(BoundedFileTest, WritesCreateAndTruncateRegularFiles) {
  const std::string file = write("trace.json", "old contents");
  OpenedFile out = open_for_writing(file, "MOCKDEV_TRACE");
  ASSERT_TRUE(out.ok()) << out.error;
  ASSERT_EQ(::write(out.fd.get(), "new", 3), 3);
  out.fd = UniqueFd();
  EXPECT_EQ(read_file(file, 100, "trace").text, "new");

  OpenedFile fresh = open_for_writing(path("fresh.json"), "MOCKDEV_TRACE");
  ASSERT_TRUE(fresh.ok()) << fresh.error;
  EXPECT_TRUE(fs::is_regular_file(path("fresh.json")));
}

TEST_F(BoundedFileTest, AFifoWithoutAReaderIsAnErrorNotAHang) {
  const std::string pipe = fifo("trace.json");
  OpenedFile out = open_for_writing(pipe, "MOCKDEV_TRACE");
  EXPECT_EQ(out.error, "MOCKDEV_TRACE '" + pipe + "': is a FIFO (named pipe) that nobody reads");
}

TEST_F(BoundedFileTest, AFifoWithAReaderIsWritten) {
  const std::string pipe = fifo("trace.json");
  UniqueFd reader(::open(pipe.c_str(), O_RDONLY | O_NONBLOCK));
  ASSERT_TRUE(reader);
  OpenedFile out = open_for_writing(pipe, "MOCKDEV_TRACE");
  ASSERT_TRUE(out.ok()) << out.error;
  ASSERT_EQ(::write(out.fd.get(), "x", 1), 1);
  char byte = 0;
  EXPECT_EQ(::read(reader.get(), &byte, 1), 1);
  EXPECT_EQ(byte, 'x');
}

TEST_F(BoundedFileTest, DevNullIsWritable) {
  OpenedFile out = open_for_writing("/dev/null", "MOCKDEV_TRACE");
  EXPECT_TRUE(out.ok()) << out.error;
}

TEST_F(BoundedFileTest, ADirectoryIsNotWritable) {
  OpenedFile out = open_for_writing(dir_.string(), "--junit");
  EXPECT_EQ(out.error, "--junit '" + dir_.string() + "': is a directory, not a regular file");
}

TEST_F(BoundedFileTest, AnUnwritableLocationNamesTheSystemError) {
  const std::string inside = path("missing_dir/trace.json");
  OpenedFile out = open_for_writing(inside, "MOCKDEV_TRACE");
  EXPECT_EQ(out.error,
            "MOCKDEV_TRACE '" + inside + "': cannot open for writing: No such file or directory");
}

}  // namespace
}  // namespace accel::common
