#pragma once
// Heap buffers that start on a cache line, as frameworks hand tensors to kernels. A plain
// std::vector's large buffer starts 16 bytes past a page boundary, so every 64-byte load
// or store of an AVX-512 loop straddles two lines: a layernorm measured that way ran 1.3x
// slower than on the same data aligned, and the benchmark's peers with it.
#include <cstddef>
#include <new>
#include <vector>

namespace tcs {

inline constexpr size_t kCacheLineBytes = 64;

template <class T>
struct CacheAlignedAllocator {
  using value_type = T;
  CacheAlignedAllocator() = default;
  template <class U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kCacheLineBytes))); }
  void deallocate(T* p, size_t) noexcept { ::operator delete(p, std::align_val_t(kCacheLineBytes)); }
  template <class U>
  bool operator==(const CacheAlignedAllocator<U>&) const noexcept {
    return true;
  }
};

// A vector whose elements start on a cache line.
template <class T>
using CacheAlignedVector = std::vector<T, CacheAlignedAllocator<T>>;

}  // namespace tcs
