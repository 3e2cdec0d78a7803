// Reading a module image (module_image.h, Note [Module images]): which of the four forms it
// is, the fatbinary container, choosing the code a device runs, and writing the fatbinary
// cuLinkComplete hands out. The PTX and cubin readers are module_image_ptx.cpp and
// module_image_cubin.cpp.

#include "cuda/module_image.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace mockdev::cuda::image {
namespace {

constexpr std::uint32_t kWrapperMagic = 0x466243B1;  // __fatBinC_Wrapper_t (fatbinary_section.h)
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
constexpr std::uint16_t kEntryPtx = 1;
constexpr std::uint16_t kEntryCubin = 2;
constexpr std::uint64_t kCompressedFlags = 0x2000 | 0x8000;  // LZ4-style, zstd
constexpr std::uint16_t kLinkedMark = 0x4B4C;  // module_image.h: entries cuLinkComplete wrote
constexpr std::size_t kFatbinHeaderBytes = 16;
constexpr std::size_t kEntryHeaderBytes = 64;  // what write_fatbinary writes; 48 is the least read

template <class T>
T load(const std::byte* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

template <class T>
void store(std::vector<std::byte>& out, std::size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof value);
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llX", static_cast<unsigned long long>(value));
  return text;
}

// Entries of one kind and architecture are one code (module_image.h): the later one's
// kernels and variables join the earlier one's.
void merge_last_code(Image& image) {
  if (image.codes.size() < 2) return;
  Code& last = image.codes.back();
  if (last.compressed) return;
  for (std::size_t i = 0; i + 1 < image.codes.size(); ++i) {
    Code& into = image.codes[i];
    const bool both_linked = into.linked && last.linked;
    if (into.compressed || (!both_linked && (into.kind != last.kind || into.arch != last.arch ||
                                             into.arch_specific != last.arch_specific))) {
      continue;
    }
    if (last.kind == CodeKind::kCubin) into.kind = CodeKind::kCubin;
    for (Kernel& k : last.kernels) into.kernels.push_back(std::move(k));
    for (Global& g : last.globals) into.globals.push_back(std::move(g));
    into.const_bytes += last.const_bytes;
    into.ptx_version = std::max(into.ptx_version, last.ptx_version);
    into.payloads.insert(into.payloads.end(), last.payloads.begin(), last.payloads.end());
    image.codes.pop_back();
    return;
  }
}

std::string read_fatbinary(const std::byte* bytes, std::size_t size, Image& image) {
  const auto version = load<std::uint16_t>(bytes + 4);
  const auto header_bytes = load<std::uint16_t>(bytes + 6);
  const auto payload_bytes = load<std::uint64_t>(bytes + 8);
  if (version != 1) {
    return "a fatbinary of version " + std::to_string(version) + " (this reader knows version 1)";
  }
  if (header_bytes < kFatbinHeaderBytes) {
    return "a fatbinary header of " + std::to_string(header_bytes) +
           " bytes (at least 16 expected)";
  }
  const std::uint64_t total = header_bytes + payload_bytes;
  if (size != 0 && total > size) {
    return "a fatbinary of " + std::to_string(total) + " bytes in " + std::to_string(size) +
           " bytes given";
  }
  for (std::uint64_t at = header_bytes; at < total;) {
    if (total - at < 48) return "a fatbinary entry cut short at byte " + std::to_string(at);
    const std::byte* entry = bytes + at;
    const auto kind = load<std::uint16_t>(entry);
    const bool linked = load<std::uint16_t>(entry + 2) == kLinkedMark;
    const auto entry_header = load<std::uint32_t>(entry + 4);
    const auto entry_bytes = load<std::uint64_t>(entry + 8);
    if (entry_header < 48 || entry_bytes > total - at - entry_header) {
      return "a fatbinary entry at byte " + std::to_string(at) + " with a header of " +
             std::to_string(entry_header) + " bytes and " + std::to_string(entry_bytes) +
             " bytes of payload, beyond the container's " + std::to_string(total) + " bytes";
    }
    const auto ptx_minor = load<std::uint16_t>(entry + 24);
    const auto ptx_major = load<std::uint16_t>(entry + 26);
    const auto arch = load<std::uint32_t>(entry + 28);
    const auto flags = load<std::uint64_t>(entry + 40);
    const std::byte* payload = entry + entry_header;
    if (kind != kEntryPtx && kind != kEntryCubin) {
      return "a fatbinary entry of kind " + std::to_string(kind) +
             " (this reader knows 1, PTX, and 2, ELF)";
    }
    if ((flags & kCompressedFlags) != 0) {
      Code code;
      code.kind = kind == kEntryPtx ? CodeKind::kPtx : CodeKind::kCubin;
      code.arch = static_cast<int>(arch);
      code.compressed = true;
      image.codes.push_back(std::move(code));
    } else {
      std::string error =
          kind == kEntryPtx
              ? read_ptx(reinterpret_cast<const char*>(payload),
                         strnlen(reinterpret_cast<const char*>(payload), entry_bytes), image)
              : read_cubin(payload, entry_bytes, image);
      if (!error.empty())
        return "in the fatbinary entry at byte " + std::to_string(at) + ": " + error;
      Code& read = image.codes.back();
      if (kind == kEntryPtx && read.ptx_version == 0) read.ptx_version = ptx_major * 10 + ptx_minor;
      if (linked) {
        read.linked = true;
        read.arch = static_cast<int>(arch);
      }
      merge_last_code(image);
    }
    at += entry_header + entry_bytes;
  }
  if (image.codes.empty()) return "a fatbinary with no entries";
  return {};
}

std::string arch_name(const Code& code) {
  std::string name =
      (code.kind == CodeKind::kCubin ? "sm_" : "compute_") + std::to_string(code.arch);
  if (code.arch_specific) name += "a";
  return name;
}

std::string describe_codes(const Image& image) {
  std::string list;
  for (const Code& code : image.codes) {
    if (!list.empty()) list += ", ";
    list += (code.kind == CodeKind::kCubin ? "cubin " : "PTX ") + arch_name(code);
    if (code.compressed) list += " (compressed)";
  }
  return list;
}

}  // namespace

ReadResult read_image(const void* image, std::size_t size) {
  ReadResult result;
  const auto* bytes = static_cast<const std::byte*>(image);
  // Every binary form's first four bytes are non-zero: shorter text is PTX (or nothing).
  const bool short_image = size != 0 ? size < 4 : strnlen(static_cast<const char*>(image), 4) < 4;
  const auto magic = short_image ? 0u : load<std::uint32_t>(bytes);
  std::string error;
  if (magic == kWrapperMagic) {
    const auto version = load<std::int32_t>(bytes + 4);
    if (version != 1 && version != 2) {
      error = "a fatbinary wrapper of version " + std::to_string(version) +
              " (fatbinary_section.h defines 1 and 2)";
    } else {
      const auto* data = load<const std::byte*>(bytes + 8);
      if (data == nullptr) {
        error = "a fatbinary wrapper with no data";
      } else if (load<std::uint32_t>(data) != kFatbinMagic) {
        error = "a fatbinary wrapper whose data starts with " + hex(load<std::uint32_t>(data)) +
                ", not the fatbinary magic 0xBA55ED50";
      } else {
        result.image.format = "fatbinary";
        error = read_fatbinary(data, 0, result.image);
      }
    }
  } else if (magic == kFatbinMagic) {
    if (size != 0 && size < kFatbinHeaderBytes) {
      error = "a fatbinary of " + std::to_string(size) + " bytes";
    } else {
      result.image.format = "fatbinary";
      error = read_fatbinary(bytes, size, result.image);
    }
  } else if (!short_image && std::memcmp(bytes,
                                         "\x7f"
                                         "ELF",
                                         4) == 0) {
    result.image.format = "cubin";
    error = read_cubin(bytes, size, result.image);
  } else {
    result.image.format = "PTX";
    const char* text = static_cast<const char*>(image);
    const std::size_t length = size != 0 ? strnlen(text, size) : std::strlen(text);
    error = read_ptx(text, length, result.image);
  }
  if (!error.empty()) {
    result.error = error;
    result.image.codes.clear();
    return result;
  }
  result.ok = true;
  return result;
}

std::size_t image_extent(const void* image, const void** data) {
  *data = image;
  if (strnlen(static_cast<const char*>(image), 4) < 4) {
    return std::strlen(static_cast<const char*>(image)) + 1;
  }
  const auto* bytes = static_cast<const std::byte*>(image);
  const auto magic = load<std::uint32_t>(bytes);
  if (magic == kWrapperMagic) {
    const auto* fatbin = load<const std::byte*>(bytes + 8);
    if (fatbin == nullptr || load<std::uint32_t>(fatbin) != kFatbinMagic) return 0;
    *data = fatbin;
    bytes = fatbin;
  }
  if (load<std::uint32_t>(bytes) == kFatbinMagic) {
    return load<std::uint16_t>(bytes + 6) + load<std::uint64_t>(bytes + 8);
  }
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) == 0)
    return cubin_extent(bytes);
  return std::strlen(static_cast<const char*>(image)) + 1;
}

const Code* select_code(const Image& image, int major, int minor, std::string* why) {
  const int device = major * 10 + minor;
  const Code* cubin = nullptr;
  const Code* ptx = nullptr;
  const Code* compressed = nullptr;
  for (const Code& code : image.codes) {
    const bool fits =
        code.kind == CodeKind::kCubin
            ? (code.arch_specific ? code.arch == device
                                  : code.arch / 10 == major && code.arch % 10 <= minor)
            : code.arch <= device;
    if (!fits) continue;
    if (code.compressed) {
      compressed = &code;
      continue;
    }
    const Code*& best = code.kind == CodeKind::kCubin ? cubin : ptx;
    if (best == nullptr || code.arch > best->arch) best = &code;
  }
  if (cubin != nullptr) return cubin;
  if (ptx != nullptr) return ptx;
  if (why != nullptr) {
    const std::string device_name = "sm_" + std::to_string(device);
    if (compressed != nullptr) {
      *why = "the only code for " + device_name + " is the compressed " +
             (compressed->kind == CodeKind::kCubin ? "cubin " : "PTX ") + arch_name(*compressed) +
             ", which the simulation does not decompress (build it with nvcc --no-compress, or add "
             "a cubin for the device: -gencode arch=compute_" +
             std::to_string(device) + ",code=sm_" + std::to_string(device) + ")";
    } else {
      *why = "no code for " + device_name + " in an image holding " + describe_codes(image);
    }
  }
  return nullptr;
}

const Kernel* find_kernel(const Code& code, std::string_view name) {
  for (const Kernel& k : code.kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const Global* find_global(const Code& code, std::string_view name) {
  for (const Global& g : code.globals) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::vector<std::byte> write_fatbinary(const std::vector<const Code*>& codes, int arch) {
  std::vector<std::byte> out(kFatbinHeaderBytes);
  for (const Code* code : codes) {
    for (const auto& [payload, bytes] : code->payloads) {
      const std::size_t at = out.size();
      const std::size_t padded = (bytes + 7) / 8 * 8;
      out.resize(at + kEntryHeaderBytes + padded);
      store<std::uint16_t>(out, at, code->kind == CodeKind::kPtx ? kEntryPtx : kEntryCubin);
      store<std::uint16_t>(out, at + 2, kLinkedMark);
      store<std::uint32_t>(out, at + 4, kEntryHeaderBytes);
      store<std::uint64_t>(out, at + 8, padded);
      store<std::uint16_t>(out, at + 24, static_cast<std::uint16_t>(code->ptx_version % 10));
      store<std::uint16_t>(out, at + 26, static_cast<std::uint16_t>(code->ptx_version / 10));
      store<std::uint32_t>(out, at + 28, static_cast<std::uint32_t>(arch));
      store<std::uint64_t>(out, at + 40, 0x11);  // 64-bit code for a Linux host, as nvcc's
      std::memcpy(out.data() + at + kEntryHeaderBytes, payload, bytes);
    }
  }
  store<std::uint32_t>(out, 0, kFatbinMagic);
  store<std::uint16_t>(out, 4, 1);
  store<std::uint16_t>(out, 6, kFatbinHeaderBytes);
  store<std::uint64_t>(out, 8, out.size() - kFatbinHeaderBytes);
  return out;
}

}  // namespace mockdev::cuda::image
