#pragma once
// Scalar types, for DeviceCapability::supported_dtypes. The list and the names follow
// torch's dtypes (AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS plus the float8 types).

#include <cstdint>
#include <span>
#include <string_view>

namespace accel {

enum class ScalarType : std::uint8_t {
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kComplex32,
  kComplex64,
  kComplex128,
  kBool,
  kQInt8,
  kQUInt8,
  kQInt32,
  kBFloat16,
  kQUInt4x2,
  kQUInt2x4,
  kFloat8_e5m2,
  kFloat8_e4m3fn,
};

// Every ScalarType, in declaration order.
std::span<const ScalarType> all_scalar_types() noexcept;

// torch's name without the "torch." prefix: "float32", "bfloat16", "float8_e4m3fn".
std::string_view to_string(ScalarType type) noexcept;

}  // namespace accel
