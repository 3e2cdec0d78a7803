#pragma once
// What the mock Level Zero driver reads from a SPIR-V module (zeModuleCreate with
// ZE_MODULE_FORMAT_IL_SPIRV): its OpenCL kernels with their parameters, and the module-scope
// variables it exports. Pure functions over the words; no engine state, no lock.
//
// Note [SPIR-V modules]
// A module is a stream of 32-bit words (the SPIR-V specification, "Physical Layout"): a
// five-word header (magic 0x07230203, version 1.x, generator, id bound > 0, schema 0), then
// instructions whose first word holds the word count in its high 16 bits and the opcode in
// its low 16. A module written in the other byte order (magic 0x03022307) is read swapped.
// The reader takes:
//  - OpEntryPoint (15): execution model, function id, name (a nul-terminated literal string
//    packed four bytes a word), interface ids. Every entry point must be a Kernel (6) one, as
//    an OpenCL module's are, and name an OpFunction of the module; a name twice is refused.
//  - OpFunction (54) ... OpFunctionParameter (55) ... OpFunctionEnd (56): each entry point's
//    parameters, in order, with the size of each parameter's type.
//  - OpExecutionMode (16) LocalSize (17): a kernel's required group size.
//  - OpMemoryModel (14): Physical32 (1) makes pointers 4 bytes, anything else 8.
//  - Type sizes: OpTypeInt (21), OpTypeFloat (22), OpTypeVector (23, 3 components take the
//    room of 4 as OpenCL lays them out), OpTypeArray (28, with an OpConstant length),
//    OpTypeStruct (30, members at their natural alignment), OpTypePointer (32). A parameter
//    of any other type, or a pointer to Workgroup (local) memory, whose argument size is the
//    local memory the launch gives it, has size 0: any argument size is taken.
//  - OpVariable (59) at module scope with storage class CrossWorkgroup (5) and an OpDecorate
//    (71) LinkageAttributes (41) Export name: a global zeModuleGetGlobalPointer finds; its
//    size is its pointee type's, its initial value an OpConstant (43) scalar initializer or
//    zeros.
// Everything else is skipped by its word count. A module the reader refuses is a build
// failure whose log says why, at which word.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mockdev::level_zero::spirv {

inline constexpr std::uint32_t kMagic = 0x07230203;

struct Kernel {
  std::string name;
  std::vector<std::uint32_t> param_sizes;       // bytes of each parameter's type; 0: any
  std::uint32_t required_group[3] = {0, 0, 0};  // LocalSize; zeros: none
};

struct Global {
  std::string name;  // the Export linkage name
  std::uint64_t bytes = 0;
  std::vector<unsigned char> initial;  // `bytes` bytes
};

struct Module {
  std::vector<Kernel> kernels;  // in OpEntryPoint order
  std::vector<Global> globals;  // in OpVariable order
};

// The module in `bytes` bytes at `data`, or nullopt with `*why` saying what is wrong.
std::optional<Module> read_module(const void* data, std::size_t bytes, std::string* why);

}  // namespace mockdev::level_zero::spirv
