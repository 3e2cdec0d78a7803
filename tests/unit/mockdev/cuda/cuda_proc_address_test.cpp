// cuGetProcAddress_v2 and the CUDA 11.3 cuGetProcAddress of the simulated driver.

#include "mock_test.h"

namespace mockdev::testing {
namespace {

using MockProcAddress = MockTest;

TEST_F(MockProcAddress, EveryEntryPointResolvesToItsExportedSymbolAtItsVersion){
#define MOCKDEV_TEST_RESOLVES(name, version, symbol, params)                             \
  {                                                                                      \
    void* pfn = nullptr;                                                                 \
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;        \
    EXPECT_EQ(cu().cuGetProcAddress_v2(#name, &pfn, version, 0, &status), CUDA_SUCCESS); \
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS) << #name;                             \
    EXPECT_EQ(pfn, dlsym(cu().handle, #symbol)) << #name;                                \
    EXPECT_NE(pfn, nullptr) << #name;                                                    \
    void* old = nullptr;                                                                 \
    EXPECT_EQ(cu().cuGetProcAddress(#name, &old, version, 0), CUDA_SUCCESS);             \
    EXPECT_EQ(old, pfn) << #name;                                                        \
  }
    ACCEL_CUDA_ENTRY_POINTS(MOCKDEV_TEST_RESOLVES)
#undef MOCKDEV_TEST_RESOLVES
}

// Under CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM a row with a per-thread variant
// resolves to the variant (cuMemcpyAsync -> cuMemcpyAsync_ptsz); under the default and the
// legacy flag, to the row.
TEST_F(MockProcAddress, PerThreadFlagServesEachRowsPerThreadVariant) {
  int variants = 0;
#define MOCKDEV_TEST_PER_THREAD(name, version, symbol, variant, pt_version, suffix, params, args, \
                                traits)                                                          \
  {                                                                                              \
    ++variants;                                                                                  \
    void* pfn = nullptr;                                                                         \
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                \
    EXPECT_EQ(cu().cuGetProcAddress_v2(#name, &pfn, version,                                     \
                                       CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status),  \
              CUDA_SUCCESS);                                                                     \
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS) << #variant;                                  \
    EXPECT_EQ(pfn, dlsym(cu().handle, #variant)) << #variant;                                    \
    EXPECT_NE(pfn, nullptr) << #variant;                                                         \
    EXPECT_NE(pfn, dlsym(cu().handle, #symbol)) << #variant;                                     \
    EXPECT_EQ(cu().cuGetProcAddress_v2(#name, &pfn, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM,  \
                                       &status),                                                 \
              CUDA_SUCCESS);                                                                     \
    EXPECT_EQ(pfn, dlsym(cu().handle, #symbol)) << #name;                                        \
  }
  ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_TEST_PER_THREAD)
#undef MOCKDEV_TEST_PER_THREAD
  EXPECT_GE(variants, 31);
  // A row without a variant is served as itself under the per-thread flag.
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuMemAlloc", &pfn, 13000,
                                     CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status),
            CUDA_SUCCESS);
  EXPECT_EQ(pfn, dlsym(cu().handle, "cuMemAlloc_v2"));
}

TEST_F(MockProcAddress, DocumentedCases) {
  void* pfn = reinterpret_cast<void*>(0x1);
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuMemAlloc", &pfn, 13000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(pfn, dlsym(cu().handle, "cuMemAlloc_v2"));
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);

  // Below the introducing version: success, but no function.
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuDeviceGetUuid", &pfn, 11000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(pfn, nullptr);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);

  pfn = reinterpret_cast<void*>(0x1);
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuNoSuchThing", &pfn, 13000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(pfn, nullptr);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

  // Exported names are not base names.
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuMemAlloc_v2", &pfn, 13000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

  // Newer than the driver.
  EXPECT_EQ(cu().cuGetProcAddress_v2("cuInit", &pfn, 14000, 0, &status), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGetProcAddress_v2(nullptr, &pfn, 13000, 0, &status), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGetProcAddress_v2("cuInit", nullptr, 13000, 0, &status),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGetProcAddress_v2("cuInit", &pfn, 13000, 4, &status), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(
      cu().cuGetProcAddress_v2("cuInit", &pfn, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, nullptr),
      CUDA_SUCCESS);
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuInit));

  EXPECT_EQ(control::call_count("cuGetProcAddress_v2"), 9u);
  EXPECT_FALSE(control::driver_initialized());
}

TEST_F(MockProcAddress, TheResolverResolvesItself) {
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult status{};
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuGetProcAddress", &pfn, 12000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuGetProcAddress_v2));
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuGetProcAddress", &pfn, 11080, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuGetProcAddress));
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuGetProcAddress", &pfn, 11000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
}

TEST_F(MockProcAddress, OlderDriverRejectsNewerRequests) {
  use_machine(std::string(MOCKDEV_TEST_MACHINES_DIR) + "/small_memory.yaml");  // driver 12.8
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult status{};
  EXPECT_EQ(cu().cuGetProcAddress_v2("cuInit", &pfn, 13000, 0, &status), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGetProcAddress_v2("cuInit", &pfn, 12080, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuInit));
  EXPECT_EQ(cu().cuGetProcAddress("cuInit", &pfn, 12090, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(control::call_count("cuGetProcAddress"), 1u);
}

// CUDA 13's context forms that name their context: the resolver serves them for 13000 and
// later (as the H100's driver 580 did, docs/HARDWARE.md Recording 2) and the older forms
// before; the CUDA 12 facade (drivers/cuda12/) neither exports nor serves them.
TEST_F(MockProcAddress, Cuda13ContextFormsAndTheCuda12Facade) {
  const char* const forms[][2] = {{"cuCtxGetDevice", "cuCtxGetDevice_v2"},
                                  {"cuCtxSynchronize", "cuCtxSynchronize_v2"}};
  void* cuda12 = dlopen(MOCKDEV_TEST_CUDA12_DRIVER, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(cuda12, nullptr) << dlerror();
  using Resolver =
      CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto resolve12 = reinterpret_cast<Resolver>(dlsym(cuda12, "cuGetProcAddress_v2"));
  ASSERT_NE(resolve12, nullptr);
  for (const auto& [name, v2] : forms) {
    SCOPED_TRACE(name);
    void* pfn = nullptr;
    CUdriverProcAddressQueryResult status{};
    ASSERT_EQ(cu().cuGetProcAddress_v2(name, &pfn, 13000, 0, &status), CUDA_SUCCESS);
    EXPECT_EQ(pfn, dlsym(cu().handle, v2));
    EXPECT_NE(pfn, nullptr);
    ASSERT_EQ(cu().cuGetProcAddress_v2(name, &pfn, 12090, 0, &status), CUDA_SUCCESS);
    EXPECT_EQ(pfn, dlsym(cu().handle, name));
    EXPECT_EQ(dlsym(cuda12, v2), nullptr);
    ASSERT_EQ(resolve12(name, &pfn, 13000, 0, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
    EXPECT_EQ(pfn, dlsym(cuda12, name));
    EXPECT_NE(pfn, nullptr);
  }
}

}  // namespace
}  // namespace mockdev::testing
