#pragma once
// What a module image declares, read from the bytes a program hands cuModuleLoadData,
// cuModuleLoadFatBinary, cuLibraryLoadData or cuLinkAddData: PTX text, a cubin (an ELF file
// for the CUDA machine), an nvcc fatbinary, or the wrapper nvcc puts around one. Pure (no
// driver state); thread-safe.
//
// Note [Module images]
// The simulation never runs GPU code, but a program sees a module's kernels, their
// parameters, their attributes and its global variables, so those are read from the image:
// - PTX (text, NUL-terminated as CUDA requires): `.version`, `.target`, each `.entry` with
//   its `.param` list (sizes and alignments give the offsets, as the PTX ISA lays out a
//   parameter space), `.maxntid`/`.reqntid`, and module-scope `.global`/`.const` variables
//   with their initialisers.
// - A cubin: the ELF header's machine (EM_CUDA, 190) and its SM architecture (e_flags bits
//   8-15: 90 for sm_90); the kernels are the FUNC symbols marked as entries (st_other 0x10);
//   each kernel's `.nv.info.<name>` section lists its parameters (attribute 0x17: ordinal,
//   offset and size), its maximum threads (0x05: a __launch_bounds__), and the module's
//   `.nv.info` its register count (0x2f) and frame size (0x11); `.nv.shared.<name>` sizes its
//   static shared memory (on sm_90 and later that section begins with the 1 KiB the
//   architecture reserves per block, `.nv.reservedSmem.cap` where the cubin names it, which
//   is not the kernel's: ptxas -v reports 256 bytes for a section of 1280); OBJECT symbols in
//   `.nv.global`, `.nv.global.init` and
//   `.nv.constant3` are its variables (st_other 0x04 marks a __managed__ one).
// - A fatbinary: a header {u32 magic 0xBA55ED50, u16 version 1, u16 header size, u64 payload
//   size} followed by entries {u16 kind (1 PTX, 2 ELF), u16, u32 header size, u64 size, ...,
//   u32 SM architecture at offset 28, u64 flags at offset 40 (0x2000 and 0x8000: compressed)}
//   each followed by its payload. nvcc compresses PTX entries by default and never cubins;
//   a compressed entry is kept as such (the simulation does not decompress) and only chosen
//   when nothing else fits, with an error naming it.
// - nvcc's wrapper (`__fatBinC_Wrapper_t`, fatbinary_section.h): {int magic 0x466243B1,
//   int version 1 or 2, data pointer, ...}; its data is a fatbinary.
// NVIDIA documents only the wrapper; the cubin's sections and attribute numbers and the
// fatbinary's layout are read as nvcc 13 writes them (tests/unit/mockdev/cuda compiles
// kernels with the toolkit's nvcc and checks each number here against the source). A
// layout this reader does not recognise is rejected with a message naming it, never
// guessed at.
//
// Which code of a fatbinary a device runs (CUDA C++ Programming Guide, "Binary
// Compatibility"): a cubin for sm_XY runs on devices of compute capability X.Z with Z >= Y
// (an architecture-specific cubin, sm_XYa, only on X.Y); PTX for compute_XY is compiled
// for any device of capability >= X.Y. A cubin that fits is preferred to PTX, the newest
// fitting one first. Entries of the same kind and architecture are read as one code. The
// images cuLinkComplete writes hold one entry per input, each with the architecture linked
// for and marked as linked (0x4B4C in the u16 at offset 2, which nvcc sets to 0x0101):
// marked entries are read as one code whatever their kinds (a cubin if any is one), as the
// real linker's output is one cubin.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mockdev::cuda::image {

struct Param {
  std::uint32_t offset = 0;  // in the kernel's parameter buffer
  std::uint32_t size = 0;
};

struct Kernel {
  std::string name;           // the entry name (mangled for C++ kernels)
  std::vector<Param> params;  // in declaration order
  int registers = 0;          // per thread; 0 when the image does not say (PTX)
  int static_shared_bytes = 0;
  int local_bytes = 0;                     // per-thread local memory (the frame)
  int max_threads = 0;                     // .maxntid / __launch_bounds__ product; 0: none
  unsigned required_block[3] = {0, 0, 0};  // .reqntid; 0: none
};

struct Global {
  std::string name;
  std::uint64_t size = 0;
  std::vector<std::byte> init;  // the initial bytes; empty: zeros
  bool constant = false;        // __constant__ (PTX .const, cubin .nv.constant3)
  bool managed = false;         // __managed__
};

enum class CodeKind { kPtx, kCubin };

// One code of an image: PTX or a cubin, for one architecture.
struct Code {
  CodeKind kind = CodeKind::kPtx;
  int arch = 0;                // 90 for sm_90 / compute_90
  bool arch_specific = false;  // sm_90a: runs on exactly that capability
  int ptx_version = 0;         // PTX ISA version * 10 (9.0 -> 90); 0 when unknown
  bool compressed = false;     // a fatbinary entry the simulation cannot read
  bool linked = false;         // from an image cuLinkComplete wrote
  std::vector<Kernel> kernels;
  std::vector<Global> globals;
  std::uint64_t const_bytes = 0;  // user __constant__ bytes (CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)
  // The code's own bytes inside what was read (valid while those bytes live), one span per
  // entry it was read from: what cuLinkComplete copies into the image it writes.
  std::vector<std::pair<const std::byte*, std::size_t>> payloads;
};

struct Image {
  std::string format;  // "PTX", "cubin", "fatbinary"
  std::vector<Code> codes;
};

struct ReadResult {
  bool ok = false;
  Image image;
  std::string error;  // why not ok: names the layout or the bytes that were not understood
};

// Reads the image at `bytes`. `size` bounds the read when the caller knows it
// (cuLinkAddData, a file); 0 means unknown (cuModuleLoadData): then a binary image's own
// headers give its extent, and text ends at its NUL.
ReadResult read_image(const void* bytes, std::size_t size);

// How many bytes the image at `bytes` takes, read from its own headers (a wrapper: the
// fatbinary it points to, whose address `*data` is set to; text: up to and including its
// NUL), so a caller can copy an image whose size it was not told. `*data` is `bytes` for
// every other form.
std::size_t image_extent(const void* bytes, const void** data);

// The code of `image` a device of capability major.minor runs (see the Note), or null with
// `why` set: "no code for sm_XY in <list of what the image holds>".
const Code* select_code(const Image& image, int major, int minor, std::string* why);

// The kernel or global of `code` named `name`, or null.
const Kernel* find_kernel(const Code& code, std::string_view name);
const Global* find_global(const Code& code, std::string_view name);

// A fatbinary holding each code's payload as one uncompressed entry of its kind and
// architecture: the image cuLinkComplete hands out, which read_image reads back.
// `arch` is the architecture linked for.
std::vector<std::byte> write_fatbinary(const std::vector<const Code*>& codes, int arch);

// Parts the readers share (module_image*.cpp): each appends one code to `image` or returns
// an error text.
std::string read_ptx(const char* text, std::size_t length, Image& image);
std::string read_cubin(const std::byte* bytes, std::size_t size, Image& image);
// The extent of a cubin from its ELF header (section table end), 0 when not an ELF64 file.
std::size_t cubin_extent(const std::byte* bytes);

}  // namespace mockdev::cuda::image
