#pragma once
// A hash of text that never changes between runs, builds or machines (64-bit FNV-1a),
// for short display keys: a workload's key, a target's fingerprint, a candidate's id in
// the tuning cache. Never the only thing that decides equality where a collision would
// mix records up (the cache keeps the full text beside those); the tuner's program ids
// are hashes alone, since a collision there only skips one candidate.
#include <cstdint>
#include <string>
#include <string_view>

namespace tcs {

uint64_t stable_hash(std::string_view text);
std::string stable_hash_hex(std::string_view text);  // 16 lower-case hex digits

}  // namespace tcs
