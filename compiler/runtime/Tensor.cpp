#include "runtime/Tensor.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <type_traits>

#include "runtime/Half.h"

namespace tcs {

// Float32 stores rely on IEEE conversions (an out-of-range double becomes inf).
static_assert(std::numeric_limits<float>::is_iec559 &&
              std::numeric_limits<double>::is_iec559);

std::string tensor_type_describe(ScalarType dtype, const std::vector<int64_t>& shape) {
  std::string text(scalar_type_name(dtype));
  text += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  text += ']';
  return text;
}

std::string tensor_describe(const Tensor& t) {
  return tensor_type_describe(t.dtype, t.shape);
}

Expected<size_t> tensor_bytes_checked(ScalarType dtype, const std::vector<int64_t>& shape) {
  for (int64_t extent : shape)
    if (extent < 0)
      return Error{ErrorKind::Sizes, tensor_type_describe(dtype, shape) + ": negative dimension " +
                   std::to_string(extent)};
  // A zero extent anywhere makes the tensor empty however large the other extents are;
  // checking it first keeps e.g. [2^40, 2^40, 0] from being reported as an overflow.
  for (int64_t extent : shape)
    if (extent == 0) return size_t(0);

  // Division-based checks rather than compiler builtins, so that MSVC builds this too.
  int64_t count = 1;
  for (int64_t extent : shape) {
    if (count > std::numeric_limits<int64_t>::max() / extent)
      return Error{ErrorKind::Sizes, tensor_type_describe(dtype, shape) +
                   ": element count overflows a 64-bit integer"};
    count *= extent;
  }
  size_t element = size_t(scalar_type_bytes(dtype));
  if (uint64_t(count) > std::numeric_limits<size_t>::max() / element)
    return Error{ErrorKind::Sizes, tensor_type_describe(dtype, shape) + ": byte size overflows size_t"};
  return size_t(count) * element;
}

Expected<Tensor> Tensor::zeros(ScalarType dtype, std::vector<int64_t> shape,
                               size_t max_bytes) {
  Expected<size_t> bytes = tensor_bytes_checked(dtype, shape);
  if (!bytes) return bytes.failure();
  if (*bytes > max_bytes)
    return Error{ErrorKind::Sizes, tensor_type_describe(dtype, shape) + ": needs " + std::to_string(*bytes) +
                 " bytes, more than the limit of " + std::to_string(max_bytes) + " bytes"};
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  // Within the limit is not the same as available: report that too instead of throwing
  // (bad_alloc, or length_error beyond what a vector can index).
  try {
    t.data.assign(*bytes, std::byte{0});
  } catch (const std::exception&) {
    return Error{ErrorKind::Sizes, tensor_type_describe(dtype, t.shape) + ": cannot allocate " +
                 std::to_string(*bytes) + " bytes"};
  }
  return t;
}

int64_t Tensor::numel() const {
  // Zero first, as in tensor_bytes_checked: [2^40, 2^40, 0] is a valid empty tensor
  // whose running product would overflow.
  for (int64_t extent : shape)
    if (extent == 0) return 0;
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

namespace {

// Elements are read and written with memcpy: the buffer is only byte-aligned as far as
// the type system knows, and memcpy of a fixed small size compiles to a plain load.
template <class T>
T element_load(const Tensor& t, int64_t i) {
  T value;
  std::memcpy(&value, t.data.data() + size_t(i) * sizeof(T), sizeof(T));
  return value;
}

template <class T>
void element_store(Tensor& t, int64_t i, T value) {
  std::memcpy(t.data.data() + size_t(i) * sizeof(T), &value, sizeof(T));
}

// double -> integer without undefined behaviour: truncate toward zero, then wrap modulo
// 2^bits like a C++ conversion from int64 does. Where the plain C++ conversion would be
// undefined instead, the value is pinned: nan gives 0, and values beyond int64 (beyond
// uint64 for uint64) saturate at its limits before the wrap.
template <class Int>
Int integer_from_double(double v) {
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  constexpr double two_63 = 9223372036854775808.0;
  if constexpr (std::is_same_v<Int, uint64_t>) {
    if (v >= 2 * two_63) return std::numeric_limits<uint64_t>::max();
    if (v >= two_63) return uint64_t(v);
  }
  int64_t wide;
  if (v >= two_63)
    wide = std::numeric_limits<int64_t>::max();
  else if (v < -two_63)
    wide = std::numeric_limits<int64_t>::min();
  else
    wide = int64_t(v);
  return static_cast<Int>(wide);
}

}  // namespace

double Tensor::get_as_double(int64_t i) const {
  assert(i >= 0 && size_t(i) * element_bytes() < data.size());
  switch (dtype) {
    case ScalarType::Bool: return element_load<uint8_t>(*this, i) != 0 ? 1.0 : 0.0;
    case ScalarType::UInt8: return double(element_load<uint8_t>(*this, i));
    case ScalarType::UInt16: return double(element_load<uint16_t>(*this, i));
    case ScalarType::UInt32: return double(element_load<uint32_t>(*this, i));
    case ScalarType::UInt64: return double(element_load<uint64_t>(*this, i));
    case ScalarType::Int8: return double(element_load<int8_t>(*this, i));
    case ScalarType::Int16: return double(element_load<int16_t>(*this, i));
    case ScalarType::Int32: return double(element_load<int32_t>(*this, i));
    case ScalarType::Int64: return double(element_load<int64_t>(*this, i));
    case ScalarType::Float16:
      return double(half_to_float(element_load<uint16_t>(*this, i)));
    case ScalarType::Float32: return double(element_load<float>(*this, i));
    case ScalarType::Float64: return element_load<double>(*this, i);
  }
  return 0.0;
}

void Tensor::set_from_double(int64_t i, double v) {
  assert(i >= 0 && size_t(i) * element_bytes() < data.size());
  auto store = [&](auto value) { element_store(*this, i, value); };
  switch (dtype) {
    // As in C++, any nonzero value (nan included) is true; stored as the byte 1.
    case ScalarType::Bool: return store(uint8_t(v != 0 ? 1 : 0));
    case ScalarType::UInt8: return store(integer_from_double<uint8_t>(v));
    case ScalarType::UInt16: return store(integer_from_double<uint16_t>(v));
    case ScalarType::UInt32: return store(integer_from_double<uint32_t>(v));
    case ScalarType::UInt64: return store(integer_from_double<uint64_t>(v));
    case ScalarType::Int8: return store(integer_from_double<int8_t>(v));
    case ScalarType::Int16: return store(integer_from_double<int16_t>(v));
    case ScalarType::Int32: return store(integer_from_double<int32_t>(v));
    case ScalarType::Int64: return store(integer_from_double<int64_t>(v));
    case ScalarType::Float16: return store(double_to_half(v));
    case ScalarType::Float32: return store(float(v));
    case ScalarType::Float64: return store(v);
  }
}

}  // namespace tcs
