// accel::copy_async / fill_async and the blocking forms in the runtime core, on the GMock
// backend: what is refused before any backend call, and the SPI's default for a backend
// without the copies capability, with the call's values. (The drivers' answers and the
// bytes are the conformance suite's: Copies.*.)
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "accel/copy.h"
#include "accel/lazy_init.h"
#include "backend_fixture.h"
#include "error_check.h"

namespace accel::test {
namespace {

using CopyApiTest = BackendTest;

std::string hex(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(pointer)));
  return text;
}

TEST_F(CopyApiTest, ABackendWithoutCopiesSaysSoWithTheValues) {
  unsigned char host[16] = {};
  const CaughtError copied =
      catch_error([&] { copy_async(host + 8, host, 8, Stream::default_stream(0)); });
  EXPECT_TRUE(is_error_containing(copied, ErrorKind::kUnsupported, "copy_async: the "));
  EXPECT_TRUE(
      is_error_containing(copied, ErrorKind::kUnsupported,
                          " backend does not support copies and fills (dst=" + hex(host + 8) +
                              ", src=" + hex(host) + ", bytes=8, device=0, stream_id=0)"));
  const CaughtError filled = catch_error([&] { fill(host, 3, 16, Stream::default_stream(1)); });
  EXPECT_TRUE(is_error_containing(filled, ErrorKind::kUnsupported,
                                  " backend does not support copies and fills (ptr=" + hex(host) +
                                      ", value=3, bytes=16, device=1, stream_id=0)"));
}

TEST_F(CopyApiTest, ZeroBytesAndBadArgumentsNeverInitialise) {
  EXPECT_CALL(backend(), initialize()).Times(0);
  copy_async(nullptr, nullptr, 0, Stream::unchecked(7, 99));
  fill(nullptr, 0, 0);
  unsigned char host[4] = {};
  EXPECT_TRUE(is_error(catch_error([&] { fill_async(nullptr, 1, 4, Stream::unchecked(0, 0)); }),
                       ErrorKind::kValue,
                       "fill_async: ptr is a null pointer (ptr=0x0, value=1, bytes=4)"));
  EXPECT_TRUE(is_error(catch_error([&] { copy(host, host, 4); }), ErrorKind::kValue,
                       "copy: the source and destination ranges overlap (dst=" + hex(host) +
                           ", src=" + hex(host) + ", bytes=4)"));
  EXPECT_FALSE(is_initialized());
}

}  // namespace
}  // namespace accel::test
