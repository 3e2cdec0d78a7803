#include "driver_loader.h"

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

// Every row or nothing: the mock implements the whole table.
template <typename Table, typename Load>
const Table* load_all(const char* path, Load load) {
  auto* table = new Table();
  const accel::test::LoadReport report = load(path, *table, accel::test::kDriverDlopenFlags);
  if (const std::string error = report.describe(); !error.empty()) die(error);
  return table;
}

}  // namespace

const char* cuda_driver_path() { return MOCKDEV_TEST_CUDA_DRIVER; }
const char* nvml_library_path() { return MOCKDEV_TEST_NVML_LIBRARY; }

const CudaDriver& cuda() {
  static const CudaDriver* const driver =
      load_all<CudaDriver>(cuda_driver_path(), accel::test::load_cuda_entry_points);
  return *driver;
}

const NvmlLibrary& nvml() {
  static const NvmlLibrary* const library =
      load_all<NvmlLibrary>(nvml_library_path(), accel::test::load_nvml_entry_points);
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
