#include "driver_loader.h"

#include <dlfcn.h>
#include <elf.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace mockdev::testing {
namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "mockdev tests: %s\n", what.c_str());
  std::abort();
}

void* open_library(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) die(std::string("cannot dlopen ") + path + ": " + dlerror());
  return handle;
}

template <typename T>
void resolve(void* handle, T& slot, const char* symbol) {
  void* p = dlsym(handle, symbol);
  if (p == nullptr) die(std::string("symbol not exported: ") + symbol);
  slot = reinterpret_cast<T>(p);
}

}  // namespace

const char* cuda_driver_path() { return MOCKDEV_TEST_CUDA_DRIVER; }
const char* nvml_library_path() { return MOCKDEV_TEST_NVML_LIBRARY; }

const CudaDriver& cuda() {
  static const CudaDriver* const driver = [] {
    auto* d = new CudaDriver();
    d->handle = open_library(cuda_driver_path());
#define MOCKDEV_TEST_RESOLVE(name, version, symbol, params) resolve(d->handle, d->symbol, #symbol);
    ACCEL_CUDA_ENTRY_POINTS(MOCKDEV_TEST_RESOLVE)
#undef MOCKDEV_TEST_RESOLVE
    resolve(d->handle, d->cuGetProcAddress_v2, "cuGetProcAddress_v2");
    resolve(d->handle, d->cuGetProcAddress, "cuGetProcAddress");
    return d;
  }();
  return *driver;
}

const NvmlLibrary& nvml() {
  static const NvmlLibrary* const library = [] {
    auto* l = new NvmlLibrary();
    l->handle = open_library(nvml_library_path());
#define MOCKDEV_TEST_RESOLVE(symbol, ret, params) resolve(l->handle, l->symbol, #symbol);
    ACCEL_NVML_ENTRY_POINTS(MOCKDEV_TEST_RESOLVE)
#undef MOCKDEV_TEST_RESOLVE
    return l;
  }();
  return *library;
}

std::set<std::string> defined_dynamic_symbols(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof(Elf64_Ehdr)) die("not an ELF file: " + path);
  Elf64_Ehdr header;
  std::memcpy(&header, file.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) {
    die("not a 64-bit ELF file: " + path);
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  std::memcpy(sections.data(), file.data() + header.e_shoff, header.e_shnum * sizeof(Elf64_Shdr));
  std::set<std::string> names;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_DYNSYM) continue;
    const Elf64_Shdr& strings = sections[section.sh_link];
    const char* strtab = file.data() + strings.sh_offset;
    std::size_t count = section.sh_size / sizeof(Elf64_Sym);
    for (std::size_t i = 0; i < count; ++i) {
      Elf64_Sym sym;
      std::memcpy(&sym, file.data() + section.sh_offset + i * sizeof(Elf64_Sym), sizeof sym);
      int binding = ELF64_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK)) continue;
      names.insert(strtab + sym.st_name);
    }
  }
  return names;
}

}  // namespace mockdev::testing
