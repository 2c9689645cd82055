#include "support/StableHash.h"

namespace tcs {

uint64_t stable_hash(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string stable_hash_hex(std::string_view text) {
  static const char* digits = "0123456789abcdef";
  uint64_t h = stable_hash(text);
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[size_t(i)] = digits[h & 15];
  return s;
}

}  // namespace tcs
