#include "support/ScalarType.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace tcs {

std::string_view scalar_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::UInt8: return "uint8";
    case ScalarType::UInt16: return "uint16";
    case ScalarType::UInt32: return "uint32";
    case ScalarType::UInt64: return "uint64";
    case ScalarType::Int8: return "int8";
    case ScalarType::Int16: return "int16";
    case ScalarType::Int32: return "int32";
    case ScalarType::Int64: return "int64";
    case ScalarType::Float16: return "float16";
    case ScalarType::Float32: return "float32";
    case ScalarType::Float64: return "float64";
  }
  return "?";
}

std::optional<ScalarType> scalar_type_from_name(std::string_view name) {
  if (name == "float") return ScalarType::Float32;
  if (name == "double") return ScalarType::Float64;
  for (ScalarType t : kAllScalarTypes)
    if (scalar_type_name(t) == name) return t;
  return std::nullopt;
}

std::optional<std::string_view> scalar_type_suggestion(std::string_view word) {
  static constexpr std::pair<std::string_view, std::string_view> table[] = {
      {"int", "int32"},   {"uint", "uint32"},  {"long", "int64"},     {"half", "float16"},
      {"short", "int16"}, {"char", "int8"},    {"unsigned", "uint32"}, {"float32_t", "float32"},
      {"int32_t", "int32"}, {"int64_t", "int64"}, {"bfloat16", "float32 (bfloat16 is not supported)"}};
  for (auto [w, t] : table)
    if (w == word) return t;
  return std::nullopt;
}

int scalar_type_bits(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return 8;
    case ScalarType::UInt8: case ScalarType::Int8: return 8;
    case ScalarType::UInt16: case ScalarType::Int16: case ScalarType::Float16: return 16;
    case ScalarType::UInt32: case ScalarType::Int32: case ScalarType::Float32: return 32;
    case ScalarType::UInt64: case ScalarType::Int64: case ScalarType::Float64: return 64;
  }
  return 0;
}

int scalar_type_bytes(ScalarType t) { return scalar_type_bits(t) / 8; }

bool scalar_type_is_float(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}

bool scalar_type_is_integer(ScalarType t) {
  return t != ScalarType::Bool && !scalar_type_is_float(t);
}

bool scalar_type_is_signed(ScalarType t) {
  switch (t) {
    case ScalarType::Int8: case ScalarType::Int16: case ScalarType::Int32:
    case ScalarType::Int64: return true;
    default: return scalar_type_is_float(t);
  }
}

ScalarType scalar_type_promote(ScalarType a, ScalarType b) {
  assert(a != ScalarType::Bool && b != ScalarType::Bool);
  if (a == b) return a;
  bool fa = scalar_type_is_float(a), fb = scalar_type_is_float(b);
  if (fa && fb) return scalar_type_bits(a) >= scalar_type_bits(b) ? a : b;
  if (fa) return a;
  if (fb) return b;
  int bits = std::max(scalar_type_bits(a), scalar_type_bits(b));
  bool is_signed = scalar_type_is_signed(a) || scalar_type_is_signed(b);
  switch (bits) {
    case 8: return is_signed ? ScalarType::Int8 : ScalarType::UInt8;
    case 16: return is_signed ? ScalarType::Int16 : ScalarType::UInt16;
    case 32: return is_signed ? ScalarType::Int32 : ScalarType::UInt32;
    default: return is_signed ? ScalarType::Int64 : ScalarType::UInt64;
  }
}

}  // namespace tcs
