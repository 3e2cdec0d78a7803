// ScalarType names and the list of all scalar types.
#include "accel/scalar_type.h"

#include <array>

namespace accel {

namespace {
constexpr std::array kAllScalarTypes = {
    ScalarType::kUInt8,       ScalarType::kInt8,          ScalarType::kInt16,
    ScalarType::kInt32,       ScalarType::kInt64,         ScalarType::kFloat16,
    ScalarType::kFloat32,     ScalarType::kFloat64,       ScalarType::kComplex32,
    ScalarType::kComplex64,   ScalarType::kComplex128,    ScalarType::kBool,
    ScalarType::kQInt8,       ScalarType::kQUInt8,        ScalarType::kQInt32,
    ScalarType::kBFloat16,    ScalarType::kQUInt4x2,      ScalarType::kQUInt2x4,
    ScalarType::kFloat8_e5m2, ScalarType::kFloat8_e4m3fn,
};
static_assert(kAllScalarTypes.size() == static_cast<std::size_t>(ScalarType::kFloat8_e4m3fn) + 1,
              "kAllScalarTypes must list every ScalarType");
}  // namespace

std::span<const ScalarType> all_scalar_types() noexcept { return kAllScalarTypes; }

std::string_view to_string(ScalarType type) noexcept {
  switch (type) {
    case ScalarType::kUInt8:
      return "uint8";
    case ScalarType::kInt8:
      return "int8";
    case ScalarType::kInt16:
      return "int16";
    case ScalarType::kInt32:
      return "int32";
    case ScalarType::kInt64:
      return "int64";
    case ScalarType::kFloat16:
      return "float16";
    case ScalarType::kFloat32:
      return "float32";
    case ScalarType::kFloat64:
      return "float64";
    case ScalarType::kComplex32:
      return "complex32";
    case ScalarType::kComplex64:
      return "complex64";
    case ScalarType::kComplex128:
      return "complex128";
    case ScalarType::kBool:
      return "bool";
    case ScalarType::kQInt8:
      return "qint8";
    case ScalarType::kQUInt8:
      return "quint8";
    case ScalarType::kQInt32:
      return "qint32";
    case ScalarType::kBFloat16:
      return "bfloat16";
    case ScalarType::kQUInt4x2:
      return "quint4x2";
    case ScalarType::kQUInt2x4:
      return "quint2x4";
    case ScalarType::kFloat8_e5m2:
      return "float8_e5m2";
    case ScalarType::kFloat8_e4m3fn:
      return "float8_e4m3fn";
  }
  return "unknown";
}

}  // namespace accel
