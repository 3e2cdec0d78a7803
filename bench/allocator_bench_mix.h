#pragma once
// The published size mix of the allocator benchmarks (bench/README.md, "Allocator
// benchmarks"): one allocate+free pair per entry, in this order, over and over. 64 entries:
// 40 small (64 B - 16 KiB), 16 medium (16 KiB - 512 KiB), 8 large (1 - 8 MiB), with the
// odd sizes real programs ask for. The same table for the caching allocator and for
// glibc malloc, mimalloc and jemalloc.
#include <array>
#include <cstddef>

namespace accel::bench {

inline constexpr std::array<std::size_t, 64> kSizeMix = {
    // 40 small
    64, 128, 96, 256, 200, 512, 1000, 1024, 48, 2048, 3000, 4096, 80, 160, 320, 640,
    1280, 2560, 5120, 8192, 100, 12000, 16384, 72, 144, 288, 576, 1152, 2304, 4608,
    9216, 768, 1536, 3072, 6144, 7000, 11000, 15000, 500, 250,
    // 16 medium
    16384 + 4096, 24576, 32768, 40000, 49152, 65536, 80000, 98304, 131072, 150000, 196608,
    262144, 300000, 393216, 450000, 524288,
    // 8 large
    1u << 20, (1u << 20) + 300000, 2u << 20, 3u << 20, (4u << 20) + 12345, 5u << 20,
    6u << 20, 8u << 20};

}  // namespace accel::bench
