// The SPIR-V reader of the mock Level Zero driver (Note [SPIR-V modules] in ze_spirv.h).

#include "level_zero/ze_spirv.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

namespace mockdev::level_zero::spirv {
namespace {

enum Op : std::uint32_t {
  kOpMemoryModel = 14,
  kOpEntryPoint = 15,
  kOpExecutionMode = 16,
  kOpTypeInt = 21,
  kOpTypeFloat = 22,
  kOpTypeVector = 23,
  kOpTypeArray = 28,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstant = 43,
  kOpFunction = 54,
  kOpFunctionParameter = 55,
  kOpFunctionEnd = 56,
  kOpVariable = 59,
  kOpDecorate = 71,
};
constexpr std::uint32_t kExecutionModelKernel = 6;
constexpr std::uint32_t kExecutionModeLocalSize = 17;
constexpr std::uint32_t kAddressingPhysical32 = 1;
constexpr std::uint32_t kStorageWorkgroup = 4;
constexpr std::uint32_t kStorageCrossWorkgroup = 5;
constexpr std::uint32_t kDecorationLinkageAttributes = 41;
constexpr std::uint32_t kLinkageExport = 0;

struct Type {
  std::uint64_t bytes = 0;  // 0: unknown
  std::uint64_t align = 1;
  std::uint32_t storage = 0;  // pointers: the storage class
  std::uint32_t pointee = 0;  // pointers: the pointee type id
};

struct Entry {
  std::string name;
  std::uint32_t function = 0;
  std::uint32_t model = 0;
  std::size_t at = 0;  // word index, for messages
};

struct Variable {
  std::uint32_t pointer_type = 0;
  std::uint32_t initializer = 0;
};

struct Function {
  std::vector<std::uint32_t> param_types;
};

std::string at_word(std::size_t word) { return " (at word " + std::to_string(word) + ")"; }

// A literal string starting at operand `first` of the instruction `words[0..count)`: the bytes
// up to the nul; false when no nul ends it inside the instruction. `*next` gets the operand after.
bool literal_string(const std::uint32_t* words, std::size_t count, std::size_t first,
                    std::string* out, std::size_t* next) {
  out->clear();
  for (std::size_t w = first; w < count; ++w) {
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((words[w] >> (8 * b)) & 0xff);
      if (c == '\0') {
        *next = w + 1;
        return true;
      }
      out->push_back(c);
    }
  }
  return false;
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

}  // namespace

std::optional<Module> read_module(const void* data, std::size_t bytes, std::string* why) {
  auto fail = [&](std::string text) -> std::optional<Module> {
    *why = std::move(text);
    return std::nullopt;
  };
  if (bytes % 4 != 0) {
    return fail("a SPIR-V module is whole 32-bit words; got " + std::to_string(bytes) + " bytes");
  }
  if (bytes < 20) {
    return fail("a SPIR-V module starts with a 5-word header; got " + std::to_string(bytes / 4) +
                " words");
  }
  std::vector<std::uint32_t> words(bytes / 4);
  std::memcpy(words.data(), data, bytes);
  if (words[0] != kMagic) {
    if (words[0] != __builtin_bswap32(kMagic)) {
      char text[64];
      std::snprintf(text, sizeof text, "not SPIR-V: the magic number is 0x%08x, not 0x07230203",
                    words[0]);
      return fail(text);
    }
    for (std::uint32_t& w : words) w = __builtin_bswap32(w);
  }
  const std::uint32_t major = (words[1] >> 16) & 0xff;
  if (major != 1 || (words[1] & 0xff0000ffu) != 0) {
    char text[80];
    std::snprintf(text, sizeof text, "SPIR-V version word 0x%08x is not version 1.x", words[1]);
    return fail(text);
  }
  if (words[3] == 0) return fail("the id bound (header word 3) is 0");
  if (words[4] != 0) return fail("the schema (header word 4) is not 0");

  std::uint64_t pointer_bytes = 8;
  std::vector<Entry> entries;
  std::map<std::uint32_t, std::array<std::uint32_t, 3>> local_sizes;  // function id -> LocalSize
  std::map<std::uint32_t, Type> types;
  std::map<std::uint32_t, std::uint64_t> constants;  // id -> value (integers)
  std::map<std::uint32_t, std::vector<std::uint32_t>> constant_words;
  std::map<std::uint32_t, Variable> variables;  // module scope, CrossWorkgroup
  std::vector<std::uint32_t> variable_order;
  std::map<std::uint32_t, std::string> exports;  // id -> Export name
  std::map<std::uint32_t, Function> functions;
  Function* current = nullptr;
  std::uint32_t current_id = 0;

  for (std::size_t i = 5; i < words.size();) {
    const std::uint32_t count = words[i] >> 16;
    const std::uint32_t op = words[i] & 0xffff;
    if (count == 0) return fail("an instruction with a word count of 0" + at_word(i));
    if (count > words.size() - i) {
      return fail("instruction " + std::to_string(op) + " of " + std::to_string(count) +
                  " words runs past the end of the module" + at_word(i));
    }
    const std::uint32_t* w = &words[i];
    auto need = [&](std::uint32_t least, const char* name) {
      if (count >= least) return true;
      *why = std::string(name) + " has " + std::to_string(count) + " words, fewer than its " +
             std::to_string(least) + at_word(i);
      return false;
    };
    switch (op) {
      case kOpMemoryModel:
        if (!need(3, "OpMemoryModel")) return std::nullopt;
        pointer_bytes = w[1] == kAddressingPhysical32 ? 4 : 8;
        break;
      case kOpEntryPoint: {
        if (!need(4, "OpEntryPoint")) return std::nullopt;
        Entry e;
        e.model = w[1];
        e.function = w[2];
        e.at = i;
        std::size_t next = 0;
        if (!literal_string(w, count, 3, &e.name, &next)) {
          return fail("the name of an OpEntryPoint is not nul-terminated" + at_word(i));
        }
        entries.push_back(std::move(e));
        break;
      }
      case kOpExecutionMode:
        if (!need(3, "OpExecutionMode")) return std::nullopt;
        if (w[2] == kExecutionModeLocalSize) {
          if (!need(6, "OpExecutionMode LocalSize")) return std::nullopt;
          std::copy(w + 3, w + 6, local_sizes[w[1]].begin());
        }
        break;
      case kOpTypeInt:
      case kOpTypeFloat:
        if (!need(3, op == kOpTypeInt ? "OpTypeInt" : "OpTypeFloat")) return std::nullopt;
        types[w[1]] = Type{w[2] / 8, std::max<std::uint64_t>(w[2] / 8, 1), 0, 0};
        break;
      case kOpTypeVector: {
        if (!need(4, "OpTypeVector")) return std::nullopt;
        const Type component = types.count(w[2]) != 0 ? types[w[2]] : Type{};
        const std::uint64_t n = w[3] == 3 ? 4 : w[3];
        types[w[1]] = Type{component.bytes * n, std::max<std::uint64_t>(component.bytes * n, 1)};
        break;
      }
      case kOpTypeArray: {
        if (!need(4, "OpTypeArray")) return std::nullopt;
        const Type element = types.count(w[2]) != 0 ? types[w[2]] : Type{};
        const std::uint64_t length = constants.count(w[3]) != 0 ? constants[w[3]] : 0;
        types[w[1]] = Type{element.bytes * length, element.align};
        break;
      }
      case kOpTypeStruct: {
        if (!need(2, "OpTypeStruct")) return std::nullopt;
        Type s{0, 1};
        bool known = true;
        for (std::uint32_t m = 2; m < count; ++m) {
          const Type member = types.count(w[m]) != 0 ? types[w[m]] : Type{};
          known = known && member.bytes != 0;
          s.bytes = round_up(s.bytes, member.align) + member.bytes;
          s.align = std::max(s.align, member.align);
        }
        s.bytes = known ? round_up(s.bytes, s.align) : 0;
        types[w[1]] = s;
        break;
      }
      case kOpTypePointer:
        if (!need(4, "OpTypePointer")) return std::nullopt;
        types[w[1]] = Type{pointer_bytes, pointer_bytes, w[2], w[3]};
        break;
      case kOpConstant:
        if (!need(4, "OpConstant")) return std::nullopt;
        constants[w[2]] = count >= 5 ? (std::uint64_t{w[4]} << 32 | w[3]) : w[3];
        constant_words[w[2]].assign(w + 3, w + count);
        break;
      case kOpVariable:
        if (!need(4, "OpVariable")) return std::nullopt;
        if (current == nullptr && w[3] == kStorageCrossWorkgroup) {
          variables[w[2]] = Variable{w[1], count >= 5 ? w[4] : 0};
          variable_order.push_back(w[2]);
        }
        break;
      case kOpDecorate:
        if (!need(3, "OpDecorate")) return std::nullopt;
        if (w[2] == kDecorationLinkageAttributes) {
          std::string name;
          std::size_t next = 0;
          if (!literal_string(w, count, 3, &name, &next) || next >= count) {
            return fail("a LinkageAttributes decoration without a name and a linkage type" +
                        at_word(i));
          }
          if (w[next] == kLinkageExport) exports[w[1]] = name;
        }
        break;
      case kOpFunction:
        if (!need(5, "OpFunction")) return std::nullopt;
        if (current != nullptr) return fail("OpFunction inside a function" + at_word(i));
        current_id = w[2];
        current = &functions[current_id];
        break;
      case kOpFunctionParameter:
        if (!need(3, "OpFunctionParameter")) return std::nullopt;
        if (current == nullptr) return fail("OpFunctionParameter outside a function" + at_word(i));
        current->param_types.push_back(w[1]);
        break;
      case kOpFunctionEnd:
        if (current == nullptr) return fail("OpFunctionEnd outside a function" + at_word(i));
        current = nullptr;
        break;
      default:
        break;
    }
    i += count;
  }
  if (current != nullptr) {
    return fail("function " + std::to_string(current_id) + " has no OpFunctionEnd");
  }

  Module module;
  std::set<std::string> names;
  for (const Entry& e : entries) {
    if (e.model != kExecutionModelKernel) {
      return fail("entry point '" + e.name + "' has execution model " + std::to_string(e.model) +
                  ", not Kernel (6): not an OpenCL kernel" + at_word(e.at));
    }
    auto f = functions.find(e.function);
    if (f == functions.end()) {
      return fail("entry point '" + e.name + "' names function " + std::to_string(e.function) +
                  ", which the module does not define" + at_word(e.at));
    }
    if (!names.insert(e.name).second) {
      return fail("entry point '" + e.name + "' is declared twice" + at_word(e.at));
    }
    Kernel k;
    k.name = e.name;
    for (std::uint32_t type : f->second.param_types) {
      const Type t = types.count(type) != 0 ? types[type] : Type{};
      const bool local = t.pointee != 0 && t.storage == kStorageWorkgroup;
      k.param_sizes.push_back(local ? 0 : static_cast<std::uint32_t>(t.bytes));
    }
    if (auto ls = local_sizes.find(e.function); ls != local_sizes.end()) {
      std::copy(ls->second.begin(), ls->second.end(), k.required_group);
    }
    module.kernels.push_back(std::move(k));
  }
  for (std::uint32_t id : variable_order) {
    auto name = exports.find(id);
    if (name == exports.end()) continue;  // not exported: no host-visible name
    const Variable& v = variables[id];
    const Type pointer = types.count(v.pointer_type) != 0 ? types[v.pointer_type] : Type{};
    const Type pointee = types.count(pointer.pointee) != 0 ? types[pointer.pointee] : Type{};
    if (pointee.bytes == 0) {
      return fail("global '" + name->second + "' has a type whose size the driver cannot tell");
    }
    Global g;
    g.name = name->second;
    g.bytes = pointee.bytes;
    g.initial.assign(g.bytes, 0);
    if (auto init = constant_words.find(v.initializer); init != constant_words.end()) {
      const std::size_t n = std::min<std::size_t>(g.bytes, init->second.size() * 4);
      std::memcpy(g.initial.data(), init->second.data(), n);
    }
    module.globals.push_back(std::move(g));
  }
  return module;
}

}  // namespace mockdev::level_zero::spirv
