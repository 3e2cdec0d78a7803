// The allocator state machine's generator (allocator_commands.h) itself, from fixed seeds:
// rapidcheck runs the first programs of a property at the smallest sizes, and at those sizes
// the programs must already hold every command kind and every stream of a device (a
// size-scaled draw gave only allocations there; reset_peak_memory_stats first appeared after
// about 90 programs), and no program is longer than its limit.

#include "allocator_commands.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace accel::test::alloc_model {
namespace {

constexpr Limits kLimits{.devices = 1, .capacity_bytes = 96 * kMiB, .max_length = 60};

const AllocatorCommand& as_allocator_command(const Program::value_type& command) {
  const auto* c = dynamic_cast<const AllocatorCommand*>(command.get());
  if (c == nullptr) throw std::logic_error("a command that is not an AllocatorCommand");
  return *c;
}

// 200 programs drawn at sizes 1 to 10.
TEST(AllocatorProgramGenerator, TheSmallestSizesAlreadyDrawEveryCommandKindAndStream) {
  const rc::Gen<Program> gen = gen_program(kLimits);
  rc::Random random(20261202);
  std::set<CommandKind> kinds;
  std::set<int> streams;
  for (int program = 0; program < 200; ++program) {
    for (const auto& command : gen(random.split(), 1 + program % 10).value()) {
      const AllocatorCommand& c = as_allocator_command(command);
      kinds.insert(c.kind());
      if (c.stream()) streams.insert(*c.stream());
    }
  }
  for (CommandKind kind : kAllCommandKinds) {
    EXPECT_TRUE(kinds.count(kind) == 1) << "never drawn: " << to_string(kind);
  }
  EXPECT_EQ(streams, (std::set<int>{0, 1, 2}));
}

// rapidcheck's command sequences grow with the size (1 to size + 1 commands); the generator
// scales the size so that the longest programs, at the nominal size, hold max_length.
TEST(AllocatorProgramGenerator, TheNominalSizeDrawsProgramsUpToTheirMaximumLength) {
  const rc::Gen<Program> gen = gen_program(kLimits);
  rc::Random random(20261203);
  std::size_t longest = 0;
  for (int program = 0; program < 500; ++program) {
    const Program p = gen(random.split(), rc::kNominalSize).value();
    ASSERT_FALSE(p.empty());
    longest = std::max(longest, p.size());
  }
  EXPECT_EQ(longest, kLimits.max_length);
}

}  // namespace
}  // namespace accel::test::alloc_model
