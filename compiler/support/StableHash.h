#pragma once
// A hash of text that never changes between runs, builds or machines (64-bit FNV-1a),
// for short keys: a workload's key in the tuning cache, a candidate's program. A workload's
// key never decides equality alone (the cache keeps the canonical text beside it); a
// program is known by its hash alone, since a collision there would only leave one
// program unmeasured.
#include <cstdint>
#include <string>
#include <string_view>

namespace tcs {

uint64_t stable_hash(std::string_view text);
std::string stable_hash_hex(std::string_view text);  // 16 lower-case hex digits

}  // namespace tcs
