// Reading a cubin (module_image.h, Note [Module images]): an ELF64 file for the CUDA machine.
// The ELF structures are the System V ABI's; the section names, symbol flags and
// `.nv.info` attribute numbers are read as nvcc 13 writes them, and anything else in the
// file is skipped. Every offset is checked against the file's extent before it is read.

#include <algorithm>
#include <cstring>
#include <map>

#include "cuda/module_image.h"

namespace mockdev::cuda::image {
namespace {

constexpr std::uint16_t kMachineCuda = 190;   // EM_CUDA
constexpr std::uint8_t kSymbolObject = 1;     // STT_OBJECT
constexpr std::uint8_t kSymbolFunction = 2;   // STT_FUNC
constexpr std::uint8_t kOtherEntry = 0x10;    // st_other: a kernel (__global__)
constexpr std::uint8_t kOtherManaged = 0x04;  // st_other: a __managed__ variable
constexpr std::uint32_t kSectionNoBits = 8;   // SHT_NOBITS

// `.nv.info` attributes: {u8 format, u8 attribute, then by format: two unused bytes (1), one
// byte and a pad (2), a u16 (3), or a u16 size and that many bytes (4)}.
constexpr std::uint8_t kFormatNone = 1, kFormatByte = 2, kFormatHalf = 3, kFormatSized = 4;
constexpr std::uint8_t kAttrMaxThreads = 0x05;     // u32 x, y, z: __launch_bounds__
constexpr std::uint8_t kAttrFrameSize = 0x11;      // u32 symbol, u32 bytes (module .nv.info)
constexpr std::uint8_t kAttrParamInfo = 0x17;      // u32 0, u16 ordinal, u16 offset, u32 size << 18
constexpr std::uint8_t kAttrRegisterCount = 0x2f;  // u32 symbol, u32 registers (module .nv.info)

struct SectionHeader {
  std::uint32_t name;
  std::uint32_t type;
  std::uint64_t flags;
  std::uint64_t address;
  std::uint64_t offset;
  std::uint64_t size;
  std::uint32_t link;
  std::uint32_t info;
  std::uint64_t align;
  std::uint64_t entry_size;
};
static_assert(sizeof(SectionHeader) == 64);

struct Symbol {
  std::uint32_t name;
  std::uint8_t info;
  std::uint8_t other;
  std::uint16_t section;
  std::uint64_t value;
  std::uint64_t size;
};
static_assert(sizeof(Symbol) == 24);

template <class T>
T load(const std::byte* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

class Cubin {
 public:
  Cubin(const std::byte* bytes, std::size_t size) : bytes_(bytes), size_(size) {}

  std::string read(Image& image) {
    if (size_ < 64) return "a cubin of " + std::to_string(size_) + " bytes (an ELF header is 64)";
    const auto elf_class = static_cast<std::uint8_t>(bytes_[4]);
    const auto data = static_cast<std::uint8_t>(bytes_[5]);
    if (elf_class != 2 || data != 1) {
      return "an ELF file of class " + std::to_string(elf_class) + " and data encoding " +
             std::to_string(data) + " (a cubin is ELF64, little-endian: 2 and 1)";
    }
    const auto machine = load<std::uint16_t>(bytes_ + 18);
    if (machine != kMachineCuda) {
      return "an ELF file for machine " + std::to_string(machine) + ", not a cubin (EM_CUDA, 190)";
    }
    const auto flags = load<std::uint32_t>(bytes_ + 48);
    const auto section_table = load<std::uint64_t>(bytes_ + 40);
    const auto section_entry = load<std::uint16_t>(bytes_ + 58);
    const auto section_count = load<std::uint16_t>(bytes_ + 60);
    const auto names_index = load<std::uint16_t>(bytes_ + 62);
    if (section_entry != sizeof(SectionHeader) || names_index >= section_count ||
        section_table > size_ || section_count > (size_ - section_table) / sizeof(SectionHeader)) {
      return "a cubin whose section table (" + std::to_string(section_count) + " entries of " +
             std::to_string(section_entry) + " bytes at " + std::to_string(section_table) +
             ") does not fit its " + std::to_string(size_) + " bytes";
    }
    for (std::size_t i = 0; i < section_count; ++i) {
      const auto header = load<SectionHeader>(bytes_ + section_table + i * sizeof(SectionHeader));
      if (header.type != kSectionNoBits &&
          (header.offset > size_ || header.size > size_ - header.offset)) {
        return "a cubin whose section " + std::to_string(i) + " lies outside its " +
               std::to_string(size_) + " bytes";
      }
      sections_.push_back(header);
    }
    names_ = &sections_[names_index];

    Code code;
    code.kind = CodeKind::kCubin;
    code.arch = static_cast<int>((flags >> 8) & 0xff);
    code.ptx_version = 0;
    code.payloads.emplace_back(bytes_, size_);
    if (std::string error = read_symbols(code); !error.empty()) return error;
    image.codes.push_back(std::move(code));
    return {};
  }

 private:
  std::string_view string_at(const SectionHeader& table, std::uint32_t offset) const {
    if (offset >= table.size) return {};
    const char* begin = reinterpret_cast<const char*>(bytes_ + table.offset + offset);
    return {begin, strnlen(begin, table.size - offset)};
  }
  std::string_view section_name(const SectionHeader& s) const { return string_at(*names_, s.name); }
  const SectionHeader* section_named(std::string_view name) const {
    for (const SectionHeader& s : sections_) {
      if (section_name(s) == name) return &s;
    }
    return nullptr;
  }

  // Walks the attributes of one `.nv.info` section; `visit(attribute, data, bytes)` sees each
  // sized one.
  template <class Visit>
  std::string for_each_attribute(const SectionHeader& s, Visit visit) const {
    const std::byte* at = bytes_ + s.offset;
    const std::byte* end = at + s.size;
    while (at < end) {
      if (end - at < 2) break;
      const auto format = static_cast<std::uint8_t>(at[0]);
      const auto attribute = static_cast<std::uint8_t>(at[1]);
      if (format == kFormatNone || format == kFormatByte || format == kFormatHalf) {
        at += 4;
      } else if (format == kFormatSized) {
        if (end - at < 4) break;
        const auto bytes = load<std::uint16_t>(at + 2);
        if (bytes > end - at - 4) {
          return "a cubin whose " + std::string(section_name(s)) + " attribute " +
                 std::to_string(attribute) + " overruns its section";
        }
        visit(attribute, at + 4, bytes);
        at += 4 + bytes;
      } else {
        return "a cubin whose " + std::string(section_name(s)) + " holds an attribute of format " +
               std::to_string(format) + " (this reader knows formats 1 to 4)";
      }
    }
    return {};
  }

  std::string read_symbols(Code& code) {
    const SectionHeader* symbols = nullptr;
    for (const SectionHeader& s : sections_) {
      if (s.type == 2) symbols = &s;  // SHT_SYMTAB
    }
    if (symbols == nullptr) return {};  // no symbols: no kernels, no variables
    if (symbols->link >= sections_.size() || symbols->entry_size != sizeof(Symbol)) {
      return "a cubin whose symbol table is not ELF64's";
    }
    const SectionHeader& strings = sections_[symbols->link];
    const std::size_t count = symbols->size / sizeof(Symbol);
    std::map<std::uint32_t, std::size_t> kernel_of_symbol;  // symbol index -> kernel
    std::uint64_t reserved_shared = section_named(".nv.shared.reserved.0") != nullptr ? 1024 : 0;
    for (std::size_t i = 0; i < count; ++i) {
      const auto symbol = load<Symbol>(bytes_ + symbols->offset + i * sizeof(Symbol));
      const std::string_view name = string_at(strings, symbol.name);
      if (name == ".nv.reservedSmem.cap") reserved_shared = symbol.value;
      const std::uint8_t type = symbol.info & 0xf;
      if (type == kSymbolFunction && (symbol.other & kOtherEntry) != 0) {
        kernel_of_symbol[static_cast<std::uint32_t>(i)] = code.kernels.size();
        Kernel kernel;
        kernel.name = std::string(name);
        code.kernels.push_back(std::move(kernel));
      } else if (type == kSymbolObject && symbol.section != 0 &&
                 symbol.section < sections_.size()) {
        const SectionHeader& home = sections_[symbol.section];
        const std::string_view home_name = section_name(home);
        const bool constant = home_name == ".nv.constant3";
        if (home_name != ".nv.global" && home_name != ".nv.global.init" && !constant) continue;
        Global global;
        global.name = std::string(name);
        global.size = symbol.size;
        global.constant = constant;
        global.managed = (symbol.other & kOtherManaged) != 0;
        if (home.type != kSectionNoBits && symbol.value <= home.size &&
            symbol.size <= home.size - symbol.value) {
          const std::byte* init = bytes_ + home.offset + symbol.value;
          global.init.assign(init, init + symbol.size);
        }
        code.globals.push_back(std::move(global));
      }
    }
    if (const SectionHeader* constants = section_named(".nv.constant3")) {
      code.const_bytes = constants->size;
    }
    for (Kernel& kernel : code.kernels) {
      if (const SectionHeader* shared = section_named(".nv.shared." + kernel.name)) {
        kernel.static_shared_bytes =
            static_cast<int>(shared->size > reserved_shared ? shared->size - reserved_shared : 0);
      }
      if (const SectionHeader* info = section_named(".nv.info." + kernel.name)) {
        std::vector<std::pair<std::uint16_t, Param>> params;
        std::string error = for_each_attribute(
            *info, [&](std::uint8_t attribute, const std::byte* data, std::uint16_t bytes) {
              if (attribute == kAttrParamInfo && bytes >= 12) {
                const auto ordinal = load<std::uint16_t>(data + 4);
                const auto offset = load<std::uint16_t>(data + 6);
                const auto size = (load<std::uint32_t>(data + 8) >> 18) & 0x3fff;
                params.emplace_back(ordinal, Param{offset, size});
              } else if (attribute == kAttrMaxThreads && bytes >= 12) {
                const std::uint64_t threads = std::uint64_t{load<std::uint32_t>(data)} *
                                              load<std::uint32_t>(data + 4) *
                                              load<std::uint32_t>(data + 8);
                kernel.max_threads = static_cast<int>(std::min<std::uint64_t>(threads, 1u << 30));
              }
            });
        if (!error.empty()) return error;
        std::sort(params.begin(), params.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t i = 0; i < params.size(); ++i) {
          if (params[i].first != i) {
            return "a cubin whose kernel " + kernel.name + " lists parameter " +
                   std::to_string(params[i].first) + " where " + std::to_string(i) +
                   " was expected";
          }
          kernel.params.push_back(params[i].second);
        }
      }
    }
    if (const SectionHeader* info = section_named(".nv.info")) {
      return for_each_attribute(
          *info, [&](std::uint8_t attribute, const std::byte* data, std::uint16_t bytes) {
            if ((attribute != kAttrRegisterCount && attribute != kAttrFrameSize) || bytes < 8) {
              return;
            }
            auto kernel = kernel_of_symbol.find(load<std::uint32_t>(data));
            if (kernel == kernel_of_symbol.end()) return;
            const auto value = static_cast<int>(load<std::uint32_t>(data + 4));
            Kernel& k = code.kernels[kernel->second];
            (attribute == kAttrRegisterCount ? k.registers : k.local_bytes) = value;
          });
    }
    return {};
  }

  const std::byte* bytes_;
  std::size_t size_;
  std::vector<SectionHeader> sections_;
  const SectionHeader* names_ = nullptr;
};

}  // namespace

std::size_t cubin_extent(const std::byte* bytes) {
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      static_cast<std::uint8_t>(bytes[4]) != 2) {
    return 0;
  }
  const auto section_table = load<std::uint64_t>(bytes + 40);
  const auto section_entry = load<std::uint16_t>(bytes + 58);
  const auto section_count = load<std::uint16_t>(bytes + 60);
  std::uint64_t end = section_table + std::uint64_t{section_entry} * section_count;
  // The program header table (nvcc writes it after the sections).
  const auto program_table = load<std::uint64_t>(bytes + 32);
  end = std::max(end, program_table + std::uint64_t{load<std::uint16_t>(bytes + 54)} *
                                          load<std::uint16_t>(bytes + 56));
  // Section data may follow the table: the furthest section end bounds the file too.
  for (std::size_t i = 0; i < section_count && section_entry == sizeof(SectionHeader); ++i) {
    const auto header = load<SectionHeader>(bytes + section_table + i * sizeof(SectionHeader));
    if (header.type != kSectionNoBits) end = std::max(end, header.offset + header.size);
  }
  return static_cast<std::size_t>(end);
}

std::string read_cubin(const std::byte* bytes, std::size_t size, Image& image) {
  if (size == 0) size = cubin_extent(bytes);
  return Cubin(bytes, size).read(image);
}

}  // namespace mockdev::cuda::image
