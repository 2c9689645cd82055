#pragma once
// The tuning cache's schema, the one home of its tables: the SQL of each version's
// migration, applied in order. A file records its version in PRAGMA user_version and
// that it is ours in PRAGMA application_id.
#include <cstdint>

namespace tcs::tuner {

namespace sql {
class Database;
}

// "TCSc" as a big-endian 32-bit integer: written in every cache file's header.
inline constexpr int32_t kCacheApplicationId = 0x54435363;
// The version this build writes (the number of migrations).
inline constexpr int kCacheSchemaVersion = 3;
// The oldest version this build reads without upgrading the file: what was added since
// (candidates.program) only a tuning session reads, and it writes, so it upgrades first.
inline constexpr int kCacheOldestReadable = 2;

// Brings `db` from schema version `from` (0: empty) to `to`, inside the caller's
// transaction, and sets user_version and application_id.
void cache_migrate(sql::Database& db, int from, int to);

}  // namespace tcs::tuner
