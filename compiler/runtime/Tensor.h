#pragma once
// A dense, row-major (C order) tensor: element type, shape and an owned byte buffer.
// This is the data type at every boundary of the product (CLI, worker, export).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/CacheAligned.h"
#include "support/Expected.h"
#include "support/ScalarType.h"

namespace tcs {

struct Tensor {
  ScalarType dtype = ScalarType::Float32;
  std::vector<int64_t> shape;  // empty: a 0-d tensor holding one element
  CacheAlignedVector<std::byte> data;  // starts on a cache line, as a framework's tensors do

  // Allocates a zero-filled tensor. Fails (never aborts) when the element count or the
  // byte size overflows or exceeds `max_bytes`.
  static Expected<Tensor> zeros(ScalarType dtype, std::vector<int64_t> shape,
                                size_t max_bytes = size_t(1) << 36);

  int64_t numel() const;
  size_t element_bytes() const { return size_t(scalar_type_bytes(dtype)); }

  // Element i (flat, row-major) converted to or from double; integers round toward zero
  // and wrap as C++ conversions of in-range values do; float16 is converted exactly.
  double get_as_double(int64_t i) const;
  void set_from_double(int64_t i, double v);

  template <class T> T* as() { return reinterpret_cast<T*>(data.data()); }
  template <class T> const T* as() const { return reinterpret_cast<const T*>(data.data()); }
};

// "float32[128, 256]"
std::string tensor_describe(const Tensor& t);
// The same spelling from a type and shape, for messages about tensors not yet made.
std::string tensor_type_describe(ScalarType dtype, const std::vector<int64_t>& shape);

// Bytes needed by a tensor of this type and shape. Fails on a negative dimension or when
// the element count or byte size does not fit (int64 elements, size_t bytes); it applies
// no other limit, so callers check the result against theirs before allocating.
Expected<size_t> tensor_bytes_checked(ScalarType dtype, const std::vector<int64_t>& shape);

}  // namespace tcs
