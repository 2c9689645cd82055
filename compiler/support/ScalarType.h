#pragma once
// Element types of the comprehension language (LANGUAGE.md §1) and their promotion rules.
#include <cstdint>
#include <optional>
#include <string_view>

namespace tcs {

enum class ScalarType : uint8_t {
  Bool,
  UInt8, UInt16, UInt32, UInt64,
  Int8, Int16, Int32, Int64,
  Float16, Float32, Float64,
};

inline constexpr ScalarType kAllScalarTypes[] = {
    ScalarType::Bool,    ScalarType::UInt8,   ScalarType::UInt16,  ScalarType::UInt32,
    ScalarType::UInt64,  ScalarType::Int8,    ScalarType::Int16,   ScalarType::Int32,
    ScalarType::Int64,   ScalarType::Float16, ScalarType::Float32, ScalarType::Float64};

// The spelling used in diagnostics and in the language ("float32", "int64", ...).
std::string_view scalar_type_name(ScalarType t);
// Parses a type keyword; "float" and "double" are accepted as float32 and float64.
std::optional<ScalarType> scalar_type_from_name(std::string_view name);

// For a word that other languages use as a type ("int", "half"), the language's spelling
// ("int32", "float16"); nullopt for anything else.
std::optional<std::string_view> scalar_type_suggestion(std::string_view word);

int scalar_type_bytes(ScalarType t);
int scalar_type_bits(ScalarType t);
bool scalar_type_is_float(ScalarType t);
bool scalar_type_is_integer(ScalarType t);  // bool is not an integer
bool scalar_type_is_signed(ScalarType t);   // signed integers and floats

// Binary promotion (LANGUAGE.md §3): equal types stay; int with float gives the float;
// two floats give the wider; integers give the widest, signed if either is.
// Must not be called with Bool.
ScalarType scalar_type_promote(ScalarType a, ScalarType b);

}  // namespace tcs
