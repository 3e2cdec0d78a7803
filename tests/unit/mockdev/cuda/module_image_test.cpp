// Reading module images (mockdev/src/cuda/module_image.h, Note [Module images]) as nvcc 13
// writes them: tests/kernel_images/kernels.cu compiled to PTX, cubins and fatbinaries at
// build time. Every expected number comes from that source file (parameter offsets and
// sizes by the C ABI, launch bounds, shared arrays, variables and their initialisers) or
// from ptxas -v (registers, shared bytes).

#include "cuda/module_image.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mockdev::cuda::image {
namespace {

std::vector<std::byte> read_fixture(const std::string& name) {
  const std::string dir = ACCEL_KERNEL_IMAGES_DIR;
  if (dir.empty()) {
    ADD_FAILURE() << "no nvcc at configure time: the images of tests/kernel_images are not built, "
                     "so this test cannot run (install the CUDA toolkit)";
    return {};
  }
  std::ifstream in(dir + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing " << dir << "/" << name;
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  std::vector<std::byte> out(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> layout(const Kernel& k) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (const Param& p : k.params) out.emplace_back(p.offset, p.size);
  return out;
}

using Layout = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// What every form of kernels.cu declares, whichever reader read it.
void expect_kernels_cu(const Code& code) {
  ASSERT_EQ(code.kernels.size(), 4u);
  const Kernel* add = find_kernel(code, "add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(layout(*add), (Layout{{0, 8}, {8, 4}, {12, 4}}));
  EXPECT_EQ(add->max_threads, 0);
  const Kernel* reverse = find_kernel(code, "_Z7reverseIfEvPT_");
  ASSERT_NE(reverse, nullptr);
  EXPECT_EQ(layout(*reverse), (Layout{{0, 8}}));
  EXPECT_EQ(reverse->static_shared_bytes, 256);  // __shared__ float s[64]
  const Kernel* bounded = find_kernel(code, "bounded");
  ASSERT_NE(bounded, nullptr);
  EXPECT_EQ(layout(*bounded), (Layout{{0, 48}, {48, 1}, {50, 2}, {56, 8}}));
  EXPECT_EQ(bounded->max_threads, 256);  // __launch_bounds__(256)
  const Kernel* copy = find_kernel(code, "copy_bytes");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(layout(*copy), (Layout{{0, 8}, {8, 8}, {16, 8}}));

  const Global* counter = find_global(code, "counter");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->size, 4u);
  ASSERT_EQ(counter->init.size(), 4u);
  int value = 0;
  std::memcpy(&value, counter->init.data(), 4);
  EXPECT_EQ(value, 7);
  EXPECT_FALSE(counter->constant);
  EXPECT_FALSE(counter->managed);
  const Global* table = find_global(code, "table");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->size, 64u);
  const Global* coefficients = find_global(code, "coefficients");
  ASSERT_NE(coefficients, nullptr);
  EXPECT_TRUE(coefficients->constant);
  ASSERT_EQ(coefficients->init.size(), 16u);
  float floats[4] = {};
  std::memcpy(floats, coefficients->init.data(), 16);
  EXPECT_EQ(floats[0], 1.0F);
  EXPECT_EQ(floats[3], 4.0F);
  EXPECT_EQ(code.const_bytes, 16u);
  const Global* flag = find_global(code, "shared_flag");
  ASSERT_NE(flag, nullptr);
  EXPECT_TRUE(flag->managed);
  ASSERT_EQ(flag->init.size(), 4u);
  std::memcpy(&value, flag->init.data(), 4);
  EXPECT_EQ(value, 3);
}

TEST(ModuleImage, PtxTextDeclaresKernelsParametersAndVariables) {
  std::vector<std::byte> ptx = read_fixture("kernels.ptx");
  ASSERT_FALSE(ptx.empty());
  ptx.push_back(std::byte{0});
  const ReadResult read = read_image(ptx.data(), 0);
  ASSERT_TRUE(read.ok) << read.error;
  EXPECT_EQ(read.image.format, "PTX");
  ASSERT_EQ(read.image.codes.size(), 1u);
  const Code& code = read.image.codes[0];
  EXPECT_EQ(code.kind, CodeKind::kPtx);
  EXPECT_EQ(code.arch, 90);
  EXPECT_EQ(code.ptx_version, 90);  // nvcc 13 writes .version 9.0
  expect_kernels_cu(code);
}

TEST(ModuleImage, CubinDeclaresKernelsWithTheirRegistersAndVariables) {
  const std::vector<std::byte> cubin = read_fixture("kernels_sm90.cubin");
  ASSERT_FALSE(cubin.empty());
  const ReadResult read = read_image(cubin.data(), 0);  // the size from the ELF header
  ASSERT_TRUE(read.ok) << read.error;
  EXPECT_EQ(read.image.format, "cubin");
  EXPECT_EQ(cubin_extent(cubin.data()), cubin.size());
  ASSERT_EQ(read.image.codes.size(), 1u);
  const Code& code = read.image.codes[0];
  EXPECT_EQ(code.kind, CodeKind::kCubin);
  EXPECT_EQ(code.arch, 90);
  expect_kernels_cu(code);
  // ptxas -v: "Used 10 registers" for add; 0 bytes stack frame.
  EXPECT_EQ(find_kernel(code, "add")->registers, 10);
  EXPECT_EQ(find_kernel(code, "add")->local_bytes, 0);
}

TEST(ModuleImage, AFatbinaryHoldsEachArchitectureAndTheDeviceGetsTheBestFit) {
  const std::vector<std::byte> fatbin = read_fixture("kernels.fatbin");
  ASSERT_FALSE(fatbin.empty());
  const ReadResult read = read_image(fatbin.data(), fatbin.size());
  ASSERT_TRUE(read.ok) << read.error;
  EXPECT_EQ(read.image.format, "fatbinary");
  // cubin sm_80, cubin sm_90, PTX compute_90 (compressed by nvcc's default).
  ASSERT_EQ(read.image.codes.size(), 3u);
  std::string why;
  const Code* on_h100 = select_code(read.image, 9, 0, &why);
  ASSERT_NE(on_h100, nullptr) << why;
  EXPECT_EQ(on_h100->kind, CodeKind::kCubin);
  EXPECT_EQ(on_h100->arch, 90);
  expect_kernels_cu(*on_h100);
  const Code* on_a100 = select_code(read.image, 8, 6, &why);  // sm_80 runs on 8.6
  ASSERT_NE(on_a100, nullptr);
  EXPECT_EQ(on_a100->arch, 80);
  // A 7.5 device has neither a cubin nor PTX it can compile.
  EXPECT_EQ(select_code(read.image, 7, 5, &why), nullptr);
  EXPECT_EQ(why,
            "no code for sm_75 in an image holding cubin sm_80, cubin sm_90, PTX compute_90 "
            "(compressed)");
  // A 10.0 device could only compile the PTX, which is compressed.
  EXPECT_EQ(select_code(read.image, 10, 0, &why), nullptr);
  EXPECT_NE(why.find("the only code for sm_100 is the compressed PTX compute_90"),
            std::string::npos)
      << why;
}

TEST(ModuleImage, UncompressedPtxInAFatbinaryIsCompiledForNewerDevices) {
  const std::vector<std::byte> fatbin = read_fixture("kernels_ptx.fatbin");
  ASSERT_FALSE(fatbin.empty());
  const ReadResult read = read_image(fatbin.data(), 0);
  ASSERT_TRUE(read.ok) << read.error;
  std::string why;
  const Code* code = select_code(read.image, 10, 0, &why);
  ASSERT_NE(code, nullptr) << why;
  EXPECT_EQ(code->kind, CodeKind::kPtx);
  EXPECT_EQ(code->ptx_version, 90);
  expect_kernels_cu(*code);
  EXPECT_EQ(select_code(read.image, 8, 0, &why), nullptr);  // compute_90 needs 9.0
}

TEST(ModuleImage, ACubinThatFitsIsPreferredToPtx) {
  const std::vector<std::byte> fatbin = read_fixture("kernels_both.fatbin");
  ASSERT_FALSE(fatbin.empty());
  const ReadResult read = read_image(fatbin.data(), fatbin.size());
  ASSERT_TRUE(read.ok) << read.error;
  ASSERT_EQ(read.image.codes.size(), 2u);  // cubin sm_90, PTX compute_90, both uncompressed
  std::string why;
  const Code* on_9_0 = select_code(read.image, 9, 0, &why);
  ASSERT_NE(on_9_0, nullptr) << why;
  EXPECT_EQ(on_9_0->kind, CodeKind::kCubin);
  const Code* on_10_0 = select_code(read.image, 10, 0, &why);  // the cubin is 9.x only
  ASSERT_NE(on_10_0, nullptr) << why;
  EXPECT_EQ(on_10_0->kind, CodeKind::kPtx);
}

TEST(ModuleImage, NvccsWrapperPointsAtTheFatbinary) {
  const std::vector<std::byte> fatbin = read_fixture("kernels.fatbin");
  ASSERT_FALSE(fatbin.empty());
  struct Wrapper {  // fatbinary_section.h's __fatBinC_Wrapper_t
    int magic;
    int version;
    const void* data;
    void* filename_or_fatbins;
  } wrapper{0x466243B1, 1, fatbin.data(), nullptr};
  const ReadResult read = read_image(&wrapper, 0);
  ASSERT_TRUE(read.ok) << read.error;
  EXPECT_EQ(read.image.codes.size(), 3u);
  const void* data = nullptr;
  EXPECT_EQ(image_extent(&wrapper, &data), fatbin.size());
  EXPECT_EQ(data, fatbin.data());
  wrapper.version = 3;
  EXPECT_EQ(read_image(&wrapper, 0).error,
            "a fatbinary wrapper of version 3 (fatbinary_section.h defines 1 and 2)");
}

TEST(ModuleImage, ALinkedImageReadsAsOneCodeOfItsArchitecture) {
  std::vector<std::byte> ptx = read_fixture("kernels.ptx");
  ASSERT_FALSE(ptx.empty());
  ptx.push_back(std::byte{0});
  const char* other =
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".visible .entry extra_kernel(.param .u32 n)\n{ ret; }\n";
  const ReadResult a = read_image(ptx.data(), 0);
  const ReadResult b = read_image(other, 0);
  ASSERT_TRUE(a.ok && b.ok);
  const std::vector<std::byte> linked = write_fatbinary({&a.image.codes[0], &b.image.codes[0]}, 90);
  const ReadResult read = read_image(linked.data(), linked.size());
  ASSERT_TRUE(read.ok) << read.error;
  ASSERT_EQ(read.image.codes.size(), 1u);
  EXPECT_EQ(read.image.codes[0].arch, 90);
  EXPECT_EQ(read.image.codes[0].kernels.size(), 5u);
  EXPECT_NE(find_kernel(read.image.codes[0], "extra_kernel"), nullptr);
}

TEST(ModuleImage, LayoutsItDoesNotKnowAreRejectedByName) {
  EXPECT_EQ(read_image("", 0).error, "text that is not PTX (no .version and .target directives)");
  EXPECT_EQ(read_image(".entry k\n", 0).error,
            "text that is not PTX (no .version and .target directives)");
  EXPECT_EQ(read_image(".version 8.0\n.target compute_90\n", 0).error,
            "PTX for target compute_90 (the simulation knows sm_XY targets)");
  const unsigned char elf32[64] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
  EXPECT_EQ(
      read_image(elf32, sizeof elf32).error,
      "an ELF file of class 1 and data encoding 1 (a cubin is ELF64, little-endian: 2 and 1)");
  unsigned char x86[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  x86[18] = 62;  // EM_X86_64
  EXPECT_EQ(read_image(x86, sizeof x86).error,
            "an ELF file for machine 62, not a cubin (EM_CUDA, 190)");
  unsigned char fatbin[16] = {0x50, 0xED, 0x55, 0xBA, 2, 0, 16, 0};
  EXPECT_EQ(read_image(fatbin, sizeof fatbin).error,
            "a fatbinary of version 2 (this reader knows version 1)");
  fatbin[4] = 1;
  fatbin[8] = 64;  // 64 bytes of payload that are not there
  EXPECT_EQ(read_image(fatbin, sizeof fatbin).error, "a fatbinary of 80 bytes in 16 bytes given");
  std::vector<std::byte> cubin = read_fixture("kernels_sm90.cubin");
  ASSERT_FALSE(cubin.empty());
  EXPECT_EQ(read_image(cubin.data(), 100).error.rfind("a cubin whose section table", 0), 0u);
}

}  // namespace
}  // namespace mockdev::cuda::image
