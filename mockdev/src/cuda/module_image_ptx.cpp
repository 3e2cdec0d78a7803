// Reading PTX text (module_image.h, Note [Module images]): the module-scope directives of
// the PTX ISA (`.version`, `.target`, `.entry`, `.func`, `.global`, `.const`), each
// kernel's parameter list and performance directives, and the `.shared`, `.local` and
// `.reg` declarations of its body. Instructions are skipped: the simulation never runs them.
//
// Parameters are laid out as the PTX ISA lays out a kernel's parameter space: each at the
// next multiple of its alignment (its `.align`, else its element size), sized element size
// times array length. Registers per thread are not knowable before a JIT compiler
// allocates them; a kernel from PTX answers the count of 32-bit registers its body
// declares (a 64-bit one counts two, predicates none), at most 255 [inferred: an upper
// bound of what ptxas allocates; a cubin gives the exact count].

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "cuda/module_image.h"

namespace mockdev::cuda::image {
namespace {

// A PTX tokenizer: identifiers and directives (`.entry`, `%r`, `$L`), numbers, strings and
// single punctuation characters; comments and white space are dropped.
class Tokens {
 public:
  Tokens(const char* text, std::size_t length) : text_(text), length_(length) {}

  std::string_view next() {
    skip_space();
    if (at_ >= length_) return {};
    const char* begin = text_ + at_;
    const char c = *begin;
    std::size_t n = 1;
    if (c == '"') {
      while (at_ + n < length_ && begin[n] != '"') ++n;
      if (at_ + n < length_) ++n;
    } else if (word_char(c) || c == '.' || c == '%' || c == '$') {
      while (at_ + n < length_ && (word_char(begin[n]) || begin[n] == '$' || begin[n] == '.')) {
        ++n;
      }
    }
    at_ += n;
    return {begin, n};
  }
  std::string_view peek() {
    const std::size_t saved = at_;
    std::string_view token = next();
    at_ = saved;
    return token;
  }
  bool done() {
    skip_space();
    return at_ >= length_;
  }

 private:
  static bool word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  }
  void skip_space() {
    const std::size_t length = length_;
    while (at_ < length) {
      const char c = text_[at_];
      if (std::isspace(static_cast<unsigned char>(c)) != 0) {
        ++at_;
      } else if (c == '/' && at_ + 1 < length && text_[at_ + 1] == '/') {
        while (at_ < length && text_[at_] != '\n') ++at_;
      } else if (c == '/' && at_ + 1 < length && text_[at_ + 1] == '*') {
        const char* close =
            static_cast<const char*>(memmem(text_ + at_ + 2, length - at_ - 2, "*/", 2));
        at_ = close == nullptr ? length : static_cast<std::size_t>(close - text_) + 2;
      } else {
        return;
      }
    }
  }
  const char* text_;
  std::size_t length_;
  std::size_t at_ = 0;
};

// Bytes of one element of a PTX fundamental type (".u32" -> 4), 0 for anything else.
std::uint32_t type_bytes(std::string_view type) {
  if (type == ".pred") return 1;
  if (type.size() < 3 || type[0] != '.') return 0;
  if (type == ".f16x2" || type == ".bf16x2") return 4;
  if (type == ".bf16") return 2;
  const char kind = type[1];
  if (kind != 'b' && kind != 'u' && kind != 's' && kind != 'f') return 0;
  const std::string_view bits = type.substr(2);
  if (bits == "8") return 1;
  if (bits == "16") return 2;
  if (bits == "32") return 4;
  if (bits == "64") return 8;
  if (bits == "128") return 16;
  return 0;
}

std::uint64_t to_number(std::string_view token) {
  return std::strtoull(std::string(token).c_str(), nullptr, 0);
}

// One declaration's type and shape: `[.align N] .type name[n][m]...`, after its state space
// and attributes. Reads up to and including the name's dimensions.
struct Declaration {
  std::uint32_t align = 0;
  std::uint32_t element = 0;
  std::string name;
  std::uint64_t count = 1;
  bool unsized = false;   // `name[]`
  bool is_float = false;  // an .f16/.f32/.f64 element
};

std::string read_declaration(Tokens& tokens, Declaration& d) {
  for (std::string_view t = tokens.next(); !t.empty(); t = tokens.next()) {
    if (t == ".align") {
      d.align = static_cast<std::uint32_t>(to_number(tokens.next()));
    } else if (t == ".attribute") {
      while (!t.empty() && t != ")") t = tokens.next();
    } else if (t == ".ptr" || t == ".global" || t == ".const" || t == ".shared" || t == ".local" ||
               t == ".v2" || t == ".v4" || t == ".v8") {
      // pointer attributes of a parameter; vectors are counted below
      if (t == ".v2") d.count *= 2;
      if (t == ".v4") d.count *= 4;
      if (t == ".v8") d.count *= 8;
    } else if (t[0] == '.') {
      if (std::uint32_t bytes = type_bytes(t)) {
        d.element = bytes;
        d.is_float = t[1] == 'f';
      }
    } else {
      d.name = std::string(t);
      while (tokens.peek() == "[") {
        tokens.next();
        const std::string_view n = tokens.next();
        if (n == "]") {
          d.unsized = true;
          continue;
        }
        d.count *= std::max<std::uint64_t>(1, to_number(n));
        tokens.next();  // ]
      }
      if (d.element == 0) return "a declaration of " + d.name + " with no type PTX defines";
      if (d.align == 0) d.align = d.element;
      return {};
    }
  }
  return "a declaration cut short";
}

// `= value` or `= {v, v, ...}` for a variable of `element`-byte elements: the initial bytes
// (integers and the hexadecimal float forms 0f... and 0d...; a decimal float is read as
// one; an address initialiser such as generic(x) counts as 0). Stops at the `;`.
void read_initialiser(Tokens& tokens, std::uint32_t element, bool is_float, Global& g) {
  std::vector<std::byte> bytes;
  for (std::string_view t = tokens.next(); !t.empty() && t != ";"; t = tokens.next()) {
    if (t == "{" || t == "}" || t == "," || t == "=") continue;
    std::uint64_t value = 0;
    bool negative = false;
    if (t == "-") {
      negative = true;
      t = tokens.next();
    }
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F' || t[1] == 'd' || t[1] == 'D')) {
      value = std::strtoull(std::string(t.substr(2)).c_str(), nullptr, 16);
    } else if (is_float && t.find_first_of(".eE") != std::string_view::npos &&
               t.substr(0, 2) != "0x") {
      const double d = std::strtod(std::string(t).c_str(), nullptr) * (negative ? -1 : 1);
      negative = false;
      if (element == 4) {
        const float f = static_cast<float>(d);
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        value = u;
      } else {
        std::memcpy(&value, &d, 8);
      }
    } else if (!t.empty() && std::isdigit(static_cast<unsigned char>(t[0])) != 0) {
      value = to_number(t);
    } else {
      while (!t.empty() && t != ")" && t != ";") t = tokens.next();  // generic(x), x + 4 ...
      if (t == ";") break;
    }
    if (negative) value = ~value + 1;
    const auto* raw = reinterpret_cast<const std::byte*>(&value);
    bytes.insert(bytes.end(), raw, raw + std::min<std::uint32_t>(element, 8));
  }
  bytes.resize(g.size, std::byte{0});
  g.init = std::move(bytes);
}

// Skips a `{ ... }` block, adding the kernel's `.shared`, `.local` and `.reg` declarations.
void read_body(Tokens& tokens, Kernel* kernel) {
  int depth = 1;
  std::uint64_t shared = 0;
  std::uint64_t local = 0;
  std::uint64_t registers = 0;
  while (depth > 0 && !tokens.done()) {
    const std::string_view t = tokens.next();
    if (t == "{") {
      ++depth;
    } else if (t == "}") {
      --depth;
    } else if (kernel != nullptr && (t == ".shared" || t == ".local")) {
      Declaration d;
      if (!read_declaration(tokens, d).empty()) continue;
      std::uint64_t& total = t == ".shared" ? shared : local;
      total = (total + d.align - 1) / d.align * d.align + d.element * d.count;
    } else if (kernel != nullptr && t == ".reg") {
      std::uint32_t element = 0;
      std::string_view v = tokens.next();
      if (v == ".v2" || v == ".v4") v = tokens.next();
      element = v == ".pred" ? 0 : type_bytes(v);
      tokens.next();  // the name
      std::uint64_t count = 1;
      if (tokens.peek() == "<") {
        tokens.next();
        count = to_number(tokens.next());
      }
      registers += count * ((element + 3) / 4);
    }
  }
  if (kernel != nullptr) {
    kernel->static_shared_bytes = static_cast<int>(shared);
    kernel->local_bytes = static_cast<int>(local);
    kernel->registers = static_cast<int>(std::min<std::uint64_t>(registers, 255));
  }
}

std::string read_entry(Tokens& tokens, Code& code) {
  Kernel kernel;
  kernel.name = std::string(tokens.next());
  std::uint32_t offset = 0;  // `.entry name` with no parameter list is legal too
  if (tokens.peek() == "(") {
    tokens.next();
    while (!tokens.done() && tokens.peek() != ")") {
      const std::string_view t = tokens.next();
      if (t == ",") continue;
      if (t != ".param") return "a parameter of " + kernel.name + " that is not a .param";
      Declaration d;
      if (std::string error = read_declaration(tokens, d); !error.empty()) {
        return "in the parameters of " + kernel.name + ": " + error;
      }
      offset = (offset + d.align - 1) / d.align * d.align;
      const auto size = static_cast<std::uint32_t>(d.element * d.count);
      kernel.params.push_back(Param{offset, size});
      offset += size;
    }
    tokens.next();  // )
  }
  for (std::string_view t = tokens.next(); !t.empty(); t = tokens.next()) {
    if (t == "{") {
      read_body(tokens, &kernel);
      break;
    }
    if (t == ";") break;  // a prototype
    if (t == ".maxntid" || t == ".reqntid") {
      unsigned dims[3] = {1, 1, 1};
      for (int i = 0; i < 3; ++i) {
        dims[i] = static_cast<unsigned>(to_number(tokens.next()));
        if (tokens.peek() != ",") break;
        tokens.next();
      }
      kernel.max_threads = static_cast<int>(dims[0] * dims[1] * dims[2]);
      if (t == ".reqntid") std::copy(dims, dims + 3, kernel.required_block);
    }
  }
  code.kernels.push_back(std::move(kernel));
  return {};
}

}  // namespace

std::string read_ptx(const char* text, std::size_t length, Image& image) {
  Tokens tokens(text, length);
  Code code;
  code.kind = CodeKind::kPtx;
  code.payloads.emplace_back(reinterpret_cast<const std::byte*>(text), length);
  bool saw_version = false;
  while (!tokens.done()) {
    const std::string_view t = tokens.next();
    if (t == ".version") {
      const std::string v(tokens.next());
      const auto dot = v.find('.');
      code.ptx_version = std::atoi(v.c_str()) * 10 +
                         (dot == std::string::npos ? 0 : std::atoi(v.c_str() + dot + 1));
      saw_version = true;
    } else if (t == ".target") {
      std::string_view target = tokens.next();
      if (target.substr(0, 3) != "sm_") {
        return "PTX for target " + std::string(target) + " (the simulation knows sm_XY targets)";
      }
      target.remove_prefix(3);
      code.arch = std::atoi(std::string(target).c_str());
      code.arch_specific = !target.empty() && target.back() == 'a';
      while (tokens.peek() == ",") {
        tokens.next();
        tokens.next();  // texmode_*, debug, map_f64_to_f32
      }
    } else if (t == ".entry") {
      if (std::string error = read_entry(tokens, code); !error.empty()) return error;
    } else if (t == ".func") {
      // a device function: its name, return and parameter lists, then a body or a `;`
      for (std::string_view f = tokens.next(); !f.empty(); f = tokens.next()) {
        if (f == "{") {
          read_body(tokens, nullptr);
          break;
        }
        if (f == ";") break;
      }
    } else if (t == ".extern") {
      for (std::string_view f = tokens.next(); !f.empty() && f != ";"; f = tokens.next()) {
        if (f == "{") {
          read_body(tokens, nullptr);
          break;
        }
      }
    } else if (t == ".global" || t == ".const") {
      Declaration d;
      bool managed = false;
      // `.attribute(.managed)` comes before the declaration proper
      if (tokens.peek() == ".attribute") {
        tokens.next();
        for (std::string_view a = tokens.next(); !a.empty() && a != ")"; a = tokens.next()) {
          if (a == ".managed") managed = true;
        }
      }
      if (std::string error = read_declaration(tokens, d); !error.empty()) {
        return "in a module-scope variable: " + error;
      }
      Global g;
      g.name = d.name;
      g.size = d.element * d.count;
      g.constant = t == ".const";
      g.managed = managed;
      if (tokens.peek() == "=") {
        read_initialiser(tokens, d.element, d.is_float, g);
      } else if (tokens.peek() == ";") {
        tokens.next();
      }
      if (g.constant) code.const_bytes += g.size;
      code.globals.push_back(std::move(g));
    } else if (t == "{") {
      read_body(tokens, nullptr);
    }
  }
  if (!saw_version || code.arch == 0) {
    return "text that is not PTX (no .version and .target directives)";
  }
  image.codes.push_back(std::move(code));
  return {};
}

}  // namespace mockdev::cuda::image
