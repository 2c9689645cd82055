#pragma once
// A thin layer over SQLite's C API for the cache: a connection, prepared statements and
// an immediate transaction. Failures throw SqlError inside the tuner library; the cache
// turns them into Expected errors at its public boundary, so nothing throws past it.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace tcs::tuner::sql {

struct SqlError : std::runtime_error {
  int code;  // SQLite's primary result code (SQLITE_BUSY, SQLITE_CORRUPT, ...)
  SqlError(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters count from 1, as in SQL's ?1.
  Statement& bind(int i, int64_t v);
  Statement& bind(int i, double v);
  Statement& bind(int i, std::string_view v);
  Statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Statement& bind(int i, std::nullopt_t);
  Statement& bind(int i, const std::optional<double>& v);  // NULL when empty
  Statement& bind_blob(int i, const void* data, size_t bytes);

  bool step();  // true: a row is ready; false: done
  void run() { while (step()) {} }
  void reset();  // to run again with new bindings

  bool is_null(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  std::string blob(int col) const;  // the bytes as stored
  std::optional<double> optional_real(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  // flags: SQLite's open flags. Throws SqlError when it cannot open.
  Database(const std::string& uri, int flags);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);  // one or more statements, no results
  int64_t last_insert_id() const;
  int changes() const;
  int64_t total_changes() const;  // rows changed since the connection opened
  sqlite3* handle() const { return db_; }
  // A single value of a one-row query, e.g. "PRAGMA user_version".
  int64_t query_int(std::string_view sql);
  std::string query_text(std::string_view sql);

 private:
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE (takes the write lock now, waiting up to the busy timeout) ... COMMIT;
// rolls back when left without commit(), e.g. by an exception.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace tcs::tuner::sql
