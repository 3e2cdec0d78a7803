#pragma once
// A SPIR-V module assembled word by word, for the Level Zero tests that build modules: the
// mock driver's object tests (tests/unit/mockdev/level_zero) and the Level Zero driver
// conformance suite (tests/driver/level_zero), which must hand a real driver the same module.
// Layout per the SPIR-V specification's physical layout: a 5-word header, then instructions
// of (word count << 16 | opcode) followed by their operands.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace accel::test::spirv {

class Module {
 public:
  explicit Module(std::uint32_t bound) : words_{0x07230203, 0x00010000, 0, bound, 0} {}
  // A literal string: its bytes, a nul, padded to whole words.
  static std::vector<std::uint32_t> text(const std::string& s) {
    std::vector<std::uint32_t> out((s.size() + 4) / 4, 0);
    for (std::size_t i = 0; i < s.size(); ++i) {
      out[i / 4] |= std::uint32_t{static_cast<unsigned char>(s[i])} << (8 * (i % 4));
    }
    return out;
  }
  Module& op(std::uint32_t code, std::vector<std::uint32_t> operands = {}) {
    words_.push_back(static_cast<std::uint32_t>(operands.size() + 1) << 16 | code);
    words_.insert(words_.end(), operands.begin(), operands.end());
    return *this;
  }
  // An instruction with a literal string between its leading and trailing operands.
  Module& op(std::uint32_t code, std::vector<std::uint32_t> head, const std::string& s,
             std::vector<std::uint32_t> tail = {}) {
    std::vector<std::uint32_t> all = std::move(head);
    for (std::uint32_t w : text(s)) all.push_back(w);
    all.insert(all.end(), tail.begin(), tail.end());
    return op(code, all);
  }
  std::vector<std::uint32_t>& words() { return words_; }

 private:
  std::vector<std::uint32_t> words_;
};

// The tests' module (spirv-val --target-env opencl2.0 accepts it):
//   OpCapability Addresses, Kernel, Linkage, Int64; OpMemoryModel Physical64 OpenCL
//   OpEntryPoint Kernel %10 "scale"; OpEntryPoint Kernel %13 "axpy"
//   OpDecorate %9 LinkageAttributes "counter" Export
//   %1 void, %2 uint32, %3 float32, %4 CrossWorkgroup float*, %5 CrossWorkgroup uint*
//   %6 void(float*), %7 void(float*, float*, float); %8 = uint 42
//   %9 = OpVariable %5 CrossWorkgroup %8
//   %10 scale(%11 float*) {}, %13 axpy(%14 float*, %15 float*, %16 float) {}
// The kernels' bodies are empty: a real device runs them as no-ops; the simulated one runs the
// host body a test registers under the kernel's name, if any.
inline std::vector<std::uint32_t> two_kernels() {
  Module m(19);
  m.op(17, {4}).op(17, {6}).op(17, {5}).op(17, {11});
  m.op(14, {2, 2});
  m.op(15, {6, 10}, "scale").op(15, {6, 13}, "axpy");
  m.op(71, {9, 41}, "counter", {0});
  m.op(19, {1}).op(21, {2, 32, 0}).op(22, {3, 32}).op(32, {4, 5, 3}).op(32, {5, 5, 2});
  m.op(33, {6, 1, 4}).op(33, {7, 1, 4, 4, 3});
  m.op(43, {2, 8, 42});
  m.op(59, {5, 9, 5, 8});
  m.op(54, {1, 10, 0, 6}).op(55, {4, 11}).op(248, {12}).op(253).op(56);
  m.op(54, {1, 13, 0, 7}).op(55, {4, 14}).op(55, {4, 15}).op(55, {3, 16}).op(248, {17});
  m.op(253).op(56);
  return m.words();
}

}  // namespace accel::test::spirv
